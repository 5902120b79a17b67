/**
 * One call for the HTTP layer and the scheduler: validate the zone, run an optimizer on the zone's
 * model and effective configs, and (unless dry-run) compute the new layers and the configuration
 * documents to push (docs/upstream.md#rrm-api, docs/upstream.md#how-rrm-applies-results). Pure: the
 * caller stores the layers and sends the commands.
 */
import { badRequest, notFound } from '../errors.js';
import { applyPlan, type DeviceConfiguration } from './apply-plan.js';
import { runAlgorithm, type RunOutcome } from './algorithms/registry.js';
import { writeAutoValues, zoneDeviceConfigs } from './config/layered.js';
import { isZoneInTopology } from './config/topology.js';
import { modelForSerials } from './model/build.js';
import { sharingZoneViews } from './model/view.js';
import type { RrmModel } from './model/types.js';
import type { Allocation, RunResult } from './schemas/algorithm.js';
import type { LayeredConfig } from './schemas/layered-config.js';
import type { Topology } from './schemas/topology.js';
import { scorePair, withLowerBound } from './score/plan.js';
import type { ScorePair } from './score/types.js';
import type { Site } from './site.js';

export interface ZoneRunRequest {
  algorithm: string;
  args?: string | Record<string, string> | null;
  allowDefaultMode: boolean;
  zone: string | undefined;
  /** Name of the zone parameter for error details ('zone' or 'venue'). */
  zoneParam?: string;
  topology: Topology;
  layers: LayeredConfig;
  model: RrmModel;
  /** Seed when the args carry none; generated and recorded by the caller. */
  seed: string;
  dryRun: boolean;
  /** serial -> configuration the device runs now (for the configure commands). */
  current: ReadonlyMap<string, DeviceConfiguration>;
  /** The venue, when known: walls and positions for the power modes. */
  site?: Site;
}

export interface ZoneRunResult {
  outcome: RunOutcome;
  /** The plan's CCI (and power) figures on the model it was computed from, before and after. */
  score: ScorePair;
  /** The zone's members the plan and score cover. */
  serials: string[];
  /** The layers to store (unchanged object when dry-run or nothing was computed). */
  layers: LayeredConfig;
  /** serial -> configuration document to push (empty when dry-run). */
  commands: Map<string, DeviceConfiguration>;
  /** serial -> why a device with new values gets no configure (apply-plan.ts NOT_PUSHED). */
  notPushed: Record<string, string>;
}

export function runZone(req: ZoneRunRequest): ZoneRunResult {
  const param = req.zoneParam ?? 'zone';
  if (req.zone === undefined || req.zone.trim() === '') throw badRequest(param, `Invalid ${param}`);
  if (!isZoneInTopology(req.topology, req.zone)) throw notFound(param, `Unknown ${param} '${req.zone}'.`);
  const serials = req.topology[req.zone] ?? [];
  const configs = zoneDeviceConfigs(req.layers, req.topology, req.zone);
  const model = modelForSerials(req.model, serials);
  // The optimizer and the score read the same zone view: built once.
  const { outcome, score } = sharingZoneViews(() => {
    const o = runAlgorithm({
      algorithm: req.algorithm, args: req.args, allowDefaultMode: req.allowDefaultMode,
      model, zone: { name: req.zone!, serials }, configs, seed: req.seed,
      ...(req.site ? { site: req.site } : {}),
    });
    const pair = scorePair(o.kind, model, serials, o.plan, { ...(req.site ? { site: req.site } : {}), location: (s) => configs.get(s)?.location });
    return { outcome: o, score: o.lowerBound_mw === undefined ? pair : withLowerBound(pair, o.lowerBound_mw) };
  });
  const base = { outcome, score, serials: [...serials] };
  if (req.dryRun || Object.keys(outcome.plan).length === 0) return { ...base, layers: req.layers, commands: new Map(), notPushed: {} };
  const applied = applyPlan({ kind: outcome.kind, plan: outcome.plan, configs, current: req.current });
  return {
    ...base,
    layers: writeAutoValues(req.layers, req.topology, applied.field, applied.autoUpdates),
    commands: applied.commands,
    notPushed: applied.notPushed,
  };
}

/** runRRM body: exactly one of channelMap / txPowerMap. */
export const toRunResult = (o: RunOutcome, score: ScorePair): RunResult =>
  (o.kind === 'channel' ? { channelMap: o.plan, score } : { txPowerMap: o.plan, score });

/** optimizeChannel / optimizeTxPower body. */
export const toAllocation = (o: RunOutcome, score: ScorePair): Allocation => ({ data: o.plan, score });
