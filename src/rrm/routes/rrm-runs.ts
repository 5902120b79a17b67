/**
 * Algorithm runs over HTTP (reference §1.3): optimizeChannel / optimizeTxPower (mode required,
 * no other args) and runRRM (`args` as k=v,...; default mode allowed). Unless dry_run / mock the
 * result is applied (src/rrm/apply.ts). Errors: blank zone/venue 400, unknown zone/venue 404,
 * bad mode / algorithm / args 400 naming them.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { errorResponses } from '../../server/schemas.js';
import { Allocation, RunResult } from '../schemas/algorithm.js';
import { toAllocation, toRunResult } from '../run-zone.js';
import type { RrmDeps } from '../deps.js';

const CHANNEL_MODES = ['random', 'least_used', 'unmanaged_aware'];
const TX_POWER_MODES = ['random', 'measure_ap_client', 'measure_ap_ap', 'location_optimal'];

const optimizeQuery = (modes: string[]) => Type.Object({
  mode: Type.Optional(Type.String({ description: `Required: ${modes.join(' | ')}.` })),
  zone: Type.Optional(Type.String({ description: 'Required: the RF zone.' })),
  dry_run: Type.Optional(Type.Boolean({ description: 'true: compute only, change nothing.' })),
});
type OptimizeQuery = Static<ReturnType<typeof optimizeQuery>>;

const RunQuery = Type.Object({
  algorithm: Type.Optional(Type.String({ description: 'Required: OptimizeChannel | OptimizeTxPower.' })),
  args: Type.Optional(Type.String({ description: 'k=v,... e.g. mode=least_used,seed=7 (see docs/rrm.md).' })),
  venue: Type.Optional(Type.String({ description: 'Required: the RF zone.' })),
  mock: Type.Optional(Type.Boolean({ description: 'true: compute only, change nothing.' })),
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
      const { outcome, notPushed } = await applier.run({
        algorithm, args: { mode: q.mode ?? '' }, allowDefaultMode: false, zone: q.zone, zoneParam: 'zone',
        dryRun: q.dry_run === true, source: 'api',
      });
      return { ...toAllocation(outcome), ...withNotPushed(notPushed) };
    });
  };
  optimize('/optimizeChannel', 'OptimizeChannel', CHANNEL_MODES, 'Run a channel optimizer on a zone (applied unless dry_run)');
  optimize('/optimizeTxPower', 'OptimizeTxPower', TX_POWER_MODES, 'Run a transmit power optimizer on a zone (applied unless dry_run)');

  api.put('/runRRM', {
    config: { openapi: { query: { required: ['algorithm', 'venue'], enums: { algorithm: ['OptimizeChannel', 'OptimizeTxPower'] } } } },
    schema: {
      tags: ['rrm'], summary: 'Run an algorithm on a venue (applied unless mock)', querystring: RunQuery,
      response: { 200: RunResult, ...errorResponses },
    },
  }, async (req) => {
    const q = req.query as Static<typeof RunQuery>;
    const { outcome, notPushed } = await applier.run({
      algorithm: q.algorithm ?? '', args: q.args ?? '', allowDefaultMode: true, zone: q.venue, zoneParam: 'venue',
      dryRun: q.mock === true, source: 'api',
    });
    return { ...toRunResult(outcome), ...withNotPushed(notPushed) };
  });
}

const withNotPushed = (notPushed: Record<string, string>) => (Object.keys(notPushed).length > 0 ? { notPushed } : {});
