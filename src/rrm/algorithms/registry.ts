/**
 * The algorithm registry (docs/upstream.md#rrm-algorithms): the list served by GET /algorithms,
 * mode resolution, argument validation and the one entry point that runs an optimizer with a seeded
 * rng. ClientSteering is not offered: the spec's RunResult has no field for it and upstream marks
 * it non-functional (docs/upstream.md#rrm-algorithms).
 */
import seedrandom from 'seedrandom';
import { badRequest } from '../../errors.js';
import type { Algorithm } from '../schemas/algorithm.js';
import type { EffectiveConfig } from '../schemas/device-config.js';
import type { RrmModel } from '../model/types.js';
import type { Site } from '../site.js';
import { argValue, parseArgs, type ArgSpec } from './args.js';
import type { AlgorithmInput, Plan } from './common.js';
import { annealing, weightedBestResponse } from './channel-search.js';
import { coverageCci } from './coverage-tpc.js';
import { exactChannels, exactSolve } from './exact.js';
import { leastUsed } from './least-used.js';
import type { RrmOptimizer } from './plugin.js';
import { locationOptimal } from './location-optimal.js';
import { measureApAp } from './measure-ap-ap.js';
import { measureApClient } from './measure-ap-client.js';
import { randomChannel } from './random-channel.js';
import { randomTxPower } from './random-tx-power.js';
import { unmanagedAware } from './unmanaged-aware.js';

export type AlgorithmType = 'OptimizeChannel' | 'OptimizeTxPower';
export type PlanKind = 'channel' | 'txPower';

interface ModeDef {
  description: string;
  args: Record<string, ArgSpec>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run: (input: AlgorithmInput<any>) => Plan;
  /** Modes that prove a lower bound on the objective (`exact`): the plan with that bound. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  solve?: (input: AlgorithmInput<any>) => { plan: Plan; lowerBound_mw?: number };
}

interface TypeDef {
  name: string;
  description: string;
  kind: PlanKind;
  defaultMode: string;
  modes: Record<string, ModeDef>;
}

export const REGISTRY: Record<AlgorithmType, TypeDef> = {
  OptimizeChannel: {
    name: 'Optimize channel configuration',
    description: 'Run channel optimization algorithm',
    kind: 'channel',
    defaultMode: 'unmanaged_aware',
    modes: {
      random: {
        description: 'random channel initialisation',
        args: { setDifferentChannelPerAp: { kind: 'boolean', default: false, description: 'one random channel per AP instead of one per band' } },
        run: randomChannel,
      },
      least_used: { description: 'least used channel assignment', args: {}, run: leastUsed },
      unmanaged_aware: {
        description: 'least used channel assignment that takes unmanaged APs into account', args: {}, run: unmanagedAware,
      },
      weighted: {
        description: 'signal-weighted best response on the co-channel interference (2.4 GHz partial overlap, unmanaged BSSIDs)', args: {}, run: weightedBestResponse,
      },
      annealing: {
        description: 'seeded simulated annealing of the whole zone on the co-channel interference',
        args: {
          iterations: { kind: 'integer', default: 0, min: 0, max: 10_000_000, description: 'proposed moves per band (0: sized from the zone)' },
          restarts: { kind: 'integer', default: 2, min: 1, max: 50, description: 'annealing chains; the best wins' },
          maxMs: { kind: 'integer', default: 10_000, min: 1, max: 600_000, description: 'wall-time cap per band, ms (a cap that binds makes the plan depend on the machine)' },
        },
        run: annealing,
      },
      exact: {
        description: 'the optimum of the co-channel interference as a MILP (HiGHS), for zones small enough',
        args: { timeLimit: { kind: 'integer', default: 20, min: 1, max: 3600, description: 'solver time limit per band, s' } },
        run: exactChannels,
        solve: exactSolve,
      },
    },
  },
  OptimizeTxPower: {
    name: 'Optimize tx power configuration',
    description: 'Run transmit power control algorithm',
    kind: 'txPower',
    defaultMode: 'measure_ap_ap',
    modes: {
      random: {
        description: 'random transmit power initialiser',
        args: { setDifferentTxPowerPerAp: { kind: 'boolean', default: false, description: 'one random power per AP instead of one for the zone' } },
        run: randomTxPower,
      },
      measure_ap_client: {
        description: 'measurement-based AP-to-client transmit power control',
        args: { targetMcs: { kind: 'integer', default: 8, min: 0, max: 9, description: 'MCS the weakest client should reach' } },
        run: measureApClient,
      },
      measure_ap_ap: {
        description: 'measurement-based AP-to-AP transmit power control',
        args: {
          coverageThreshold: { kind: 'integer', default: -70, min: -100, max: 30, description: 'dBm at which the n-th weakest neighbour should hear the AP' },
          nthSmallestRssi: { kind: 'integer', default: 0, min: 0, description: 'which neighbour RSSI (0 = weakest) to aim at' },
        },
        run: measureApAp,
      },
      location_optimal: { description: 'location-based optimal transmit power control', args: {}, run: locationOptimal },
      coverage_cci: {
        description: 'most coverage at the least co-channel interference: coordinate descent on the power figures, never above the current CCI',
        args: {
          marginDb: { kind: 'integer', default: 3, min: 0, max: 20, description: 'dB above -67 dBm a covered client keeps when powers are lowered' },
          sinrFloorDb: { kind: 'integer', default: 25, min: -10, max: 60, description: 'SINR (dB) a client above it keeps when powers are lowered (25: MCS 8)' },
          costWeight: { kind: 'integer', default: 0, min: 0, max: 100, description: 'weight of the CCI cost (share of the starting CCI) against the coverage gain of a raise; 0: any gain within the starting CCI' },
        },
        run: coverageCci,
      },
    },
  },
};

export const ALGORITHM_TYPES = Object.keys(REGISTRY) as AlgorithmType[];

/** Modes added by plug-ins (algorithms/plugin.ts), per type. */
const PLUGIN_MODES: Record<AlgorithmType, string[]> = { OptimizeChannel: [], OptimizeTxPower: [] };

/**
 * Adds a plug-in optimizer as a mode of its type. A name the type already has is an Error
 * (a plug-in cannot replace a built-in mode); registering the same optimizer again is a no-op.
 */
export function registerOptimizer(o: RrmOptimizer): void {
  const def = REGISTRY[o.algorithm];
  const existing = def.modes[o.name];
  if (existing?.run === o.run) return;
  if (existing) throw new Error(`rrm plug-in: ${o.algorithm} already has a mode '${o.name}'`);
  def.modes[o.name] = { description: o.description ?? `plug-in ${o.name}`, args: o.args ?? {}, run: o.run };
  PLUGIN_MODES[o.algorithm].push(o.name);
}

/** The modes of a type: built-in first, then plug-ins in the order they were added. */
export const modesOf = (t: AlgorithmType): string[] => Object.keys(REGISTRY[t].modes);

/** Plug-in modes of a type. */
export const pluginModesOf = (t: AlgorithmType): readonly string[] => PLUGIN_MODES[t];

/** docs/upstream.md#rrm-api: the `k=v(,k=v)*` regex and samples upstream publishes. */
export const PARAMETER_FORMAT = '((([^,=])+)=(([^,=])+))(,(([^,=])+)=(([^,=])+))*';
export const PARAMETER_SAMPLES = ['mode=random', 'key1=val1,key2=val2'];

/** GET /algorithms. `helper` is the documentation URL the service is configured with. */
export function listAlgorithms(helper: string): Algorithm[] {
  return ALGORITHM_TYPES.map((t) => {
    const plugins = PLUGIN_MODES[t];
    return {
      name: REGISTRY[t].name,
      description: plugins.length === 0 ? REGISTRY[t].description : `${REGISTRY[t].description}; plug-in modes: ${plugins.join(', ')}`,
      shortName: t, parameterFormat: PARAMETER_FORMAT,
      parameterSamples: [...PARAMETER_SAMPLES, ...plugins.map((m) => `mode=${m}`)], helper,
      modes: Object.entries(REGISTRY[t].modes).map(([name, m]) => ({ name, description: m.description, plugin: plugins.includes(name) })),
    };
  });
}

export const isAlgorithmType = (v: unknown): v is AlgorithmType => typeof v === 'string' && v in REGISTRY;

/**
 * Mode of a run (docs/upstream.md#rrm-algorithms): `args.mode`, else the default when allowed;
 * unknown -> BAD_REQUEST.
 */
export function resolveMode(algorithm: AlgorithmType, mode: string | undefined, allowDefault: boolean): string {
  const def = REGISTRY[algorithm];
  const m = mode === undefined || mode === '' ? (allowDefault ? def.defaultMode : '') : mode;
  if (!Object.prototype.hasOwnProperty.call(def.modes, m)) {
    throw badRequest('mode', `Unknown mode '${mode ?? ''}' provided for algorithm '${algorithm}'`);
  }
  return m;
}

export interface RunRequest {
  algorithm: string;
  /** The raw `k=v,...` string or already parsed pairs. */
  args?: string | Record<string, string> | null;
  /** runRRM and the scheduler allow the default mode; optimizeChannel/TxPower do not. */
  allowDefaultMode: boolean;
  model: RrmModel;
  zone: { name: string; serials: readonly string[] };
  configs: ReadonlyMap<string, EffectiveConfig>;
  /**
   * Seed used when the args carry none. The caller generates it and records it (a run never
   * silently picks one); the outcome returns the seed that was used.
   */
  seed: string;
  /** The venue, when known (simulated venues): walls and positions for the power modes. */
  site?: Site;
}

export interface RunOutcome {
  algorithm: AlgorithmType;
  mode: string;
  kind: PlanKind;
  seed: string;
  /** serial -> band -> channel or dBm, zone members only. */
  plan: Plan;
  /**
   * Proven lower bound on the zone's CCI, mW, from modes that prove one (`exact`); absent when
   * the zone could not be solved, or when devices with enableRRM off left the optimised zone
   * smaller than the scored one (the bound would be on another objective).
   */
  lowerBound_mw?: number;
}

/** Validates the request and runs one optimizer. Throws BAD_REQUEST naming what is wrong. */
export function runAlgorithm(req: RunRequest): RunOutcome {
  if (!isAlgorithmType(req.algorithm)) {
    throw badRequest('algorithm', `Unknown algorithm '${req.algorithm}'; expected one of ${ALGORITHM_TYPES.join(', ')}.`);
  }
  const raw = typeof req.args === 'string' || req.args == null ? parseArgs(req.args) : { ...req.args };
  const mode = resolveMode(req.algorithm, raw.mode, req.allowDefaultMode);
  const def = REGISTRY[req.algorithm].modes[mode]!;
  const args: Record<string, boolean | number> = {};
  for (const key of Object.keys(raw)) {
    if (key !== 'mode' && key !== 'seed' && !(key in def.args)) {
      const known = ['mode', 'seed', ...Object.keys(def.args)].join(', ');
      throw badRequest(`args.${key}`, `Unknown argument '${key}' for ${req.algorithm} mode '${mode}'; known: ${known}.`);
    }
  }
  for (const [name, spec] of Object.entries(def.args)) args[name] = argValue(name, raw[name], spec);
  const seed = raw.seed !== undefined && raw.seed !== '' ? raw.seed : req.seed;
  const rng = seedrandom(`${seed}:${req.algorithm}:${mode}:${req.zone.name}`);
  // Devices with enableRRM off are not optimised (upstream drops their model data,
  // docs/upstream.md#rrm-data-model).
  const serials = req.zone.serials.filter((s) => req.configs.get(s)?.enableRRM !== false);
  const zone = { name: req.zone.name, serials };
  const input = { model: req.model, zone, configs: req.configs, rng: () => rng(), args, ...(req.site ? { site: req.site } : {}) };
  const base = { algorithm: req.algorithm, mode, kind: REGISTRY[req.algorithm].kind, seed };
  if (!def.solve) return { ...base, plan: def.run(input) };
  const { plan, lowerBound_mw } = def.solve(input);
  const sameZone = serials.length === req.zone.serials.length;
  return { ...base, plan, ...(lowerBound_mw !== undefined && sameZone ? { lowerBound_mw } : {}) };
}
