/**
 * Algorithm runs over HTTP (docs/upstream.md#rrm-api): optimizeChannel / optimizeTxPower (mode
 * required, no other args) and runRRM (`args` as k=v,...; default mode allowed). Unless dry_run /
 * mock the result is applied (src/rrm/apply.ts). Errors: blank zone/venue 400, unknown zone/venue
 * 404, bad mode / algorithm / args 400 naming them.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errorResponses } from '../../server/schemas.js';
import { badRequest } from '../../errors.js';
import { Allocation, RunResult } from '../schemas/algorithm.js';
import { RunEntry } from '../schemas/score.js';
import type { RunRecord } from '../store.js';
import { modesOf } from '../algorithms/registry.js';
import { toAllocation, toRunResult } from '../run-zone.js';
import type { RrmDeps } from '../deps.js';


const optimizeQuery = (modes: string[]) => Type.Object({
  mode: Type.Optional(Type.String({ description: `Required: ${modes.join(' | ')}.` })),
  zone: Type.Optional(Type.String({ description: 'Required: the RF zone.' })),
  dry_run: Type.Optional(Type.Boolean({ description: 'true: compute only, change nothing.' })),
  seed: Type.Optional(Type.String({ description: 'Seed of the run (beyond the spec): the same seed on the same model gives the same plan. Default: a new random seed, kept in the run history.' })),
});
type OptimizeQuery = Static<ReturnType<typeof optimizeQuery>>;

const RunQuery = Type.Object({
  algorithm: Type.Optional(Type.String({ description: 'Required: OptimizeChannel | OptimizeTxPower.' })),
  args: Type.Optional(Type.String({ description: 'k=v,... e.g. mode=least_used,seed=7 (see docs/rrm.md).' })),
  venue: Type.Optional(Type.String({ description: 'Required: the RF zone.' })),
  mock: Type.Optional(Type.Boolean({ description: 'true: compute only, change nothing.' })),
});

const RunsQuery = Type.Object({
  zone: Type.Optional(Type.String({ description: 'Only the runs of this zone (default: every zone).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many runs (default 100).' })),
});

const toRunEntry = (r: RunRecord): RunEntry => ({
  id: r.id, zone: r.zone, algorithm: r.algorithm, mode: r.mode, args: r.args, seed: r.seed, source: r.source,
  dryRun: r.dryRun, applied: r.applied, plan: r.plan as RunEntry['plan'], score: r.score, measured: r.measured,
  created: r.createdMs, measuredAt: r.measuredMs,
});

export async function rrmRunRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  const applier = deps.rrm.applier;
  const optimize = (path: string, algorithm: string, modes: string[], summary: string) => {
    const querystring = optimizeQuery(modes);
    api.get(path, {
      // Checked by the run (an unknown zone is 404 before a bad mode is 400); stated in the document.
      config: { openapi: { query: { required: ['mode', 'zone'], enums: { mode: modes } } } },
      schema: { tags: ['rrm'], summary, querystring, response: { 200: Allocation, ...errorResponses } },
    }, async (req) => {
      const q = req.query as OptimizeQuery;
      const { outcome, score, notPushed } = await applier.run({
        algorithm, args: { mode: q.mode ?? '', ...(q.seed !== undefined ? { seed: q.seed } : {}) }, allowDefaultMode: false, zone: q.zone, zoneParam: 'zone',
        dryRun: q.dry_run === true, source: 'api',
      });
      return { ...toAllocation(outcome, score), ...withNotPushed(notPushed) };
    });
  };
  optimize('/optimizeChannel', 'OptimizeChannel', modesOf('OptimizeChannel'), 'Run a channel optimizer on a zone (applied unless dry_run)');
  optimize('/optimizeTxPower', 'OptimizeTxPower', modesOf('OptimizeTxPower'), 'Run a transmit power optimizer on a zone (applied unless dry_run)');

  api.put('/runRRM', {
    config: { openapi: { query: { required: ['algorithm', 'venue'], enums: { algorithm: ['OptimizeChannel', 'OptimizeTxPower'] } } } },
    schema: {
      tags: ['rrm'], summary: 'Run an algorithm on a venue (applied unless mock)', querystring: RunQuery,
      response: { 200: RunResult, ...errorResponses },
    },
  }, async (req) => {
    const q = req.query as Static<typeof RunQuery>;
    const { outcome, score, notPushed } = await applier.run({
      algorithm: q.algorithm ?? '', args: q.args ?? '', allowDefaultMode: true, zone: q.venue, zoneParam: 'venue',
      dryRun: q.mock === true, source: 'api',
    });
    return { ...toRunResult(outcome, score), ...withNotPushed(notPushed) };
  });

  api.get('/runs', {
    schema: {
      tags: ['rrm'], summary: 'The run history of a zone, newest first (beyond the spec)',
      description: 'Every optimisation run (dry or not, API or scheduler) with its seed, plan, predicted score and, after an applied run, the score measured from the first scans and states newer than the apply.',
      querystring: RunsQuery, response: { 200: Type.Array(RunEntry), ...errorResponses },
    },
  }, async (req) => {
    const q = req.query as Static<typeof RunsQuery>;
    if (q.zone !== undefined && q.zone.trim() === '') throw badRequest('zone', 'Invalid zone');
    return (await deps.rrm.store.runs(q.limit ?? 100, q.zone)).map(toRunEntry);
  });
}

const withNotPushed = (notPushed: Record<string, string>) => (Object.keys(notPushed).length > 0 ? { notPushed } : {});
