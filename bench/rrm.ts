/**
 * rrm benchmark (docs/performance.md): each optimizer's runtime on zones of 10, 100
 * and 1,000 APs, built two ways (building the model is not timed):
 * - simulator: a grid venue built by the simulator (simulator/venue.ts, ~12 m between APs,
 *   2.4 GHz on 1/6/11, 5 GHz at 40 MHz on 36/44/149/157); the model comes from what the
 *   simulated APs report (state, capabilities, scan), exactly as in a run;
 * - synthetic: test/helpers/rrm-models.ts (denser hearing: ~270 scan entries per AP at 1,000).
 * Each figure is the median of several runs after a warm-up, each on a freshly collected heap.
 * Result: ms to optimise channels of the simulator-built 1,000-AP zone with `least_used`
 * (target <= 1,000 ms).
 */
import { performance } from 'node:perf_hooks';
import { report, median } from './_report.js';
import { runAlgorithm } from '../src/rrm/algorithms/registry.js';
import { defaultEffectiveConfig } from '../src/rrm/config/layered.js';
import { buildModel } from '../src/rrm/model/build.js';
import type { RrmModel } from '../src/rrm/model/types.js';
import type { EffectiveConfig } from '../src/rrm/schemas/device-config.js';
import { VirtualClock } from '../simulator/clock.js';
import { scenarioStart, type Scenario } from '../simulator/scenario.js';
import { buildVenue } from '../simulator/venue.js';
import { stateDocument } from '../simulator/ap/frames.js';
import { scanEntries } from '../simulator/ap/scan.js';
import { defaultConfigs, genVenue, venueModel } from '../test/helpers/rrm-models.js';

const SEED = 20261121;
const SIZES = [10, 100, 1000];
const RUNS: Record<number, number> = { 10: 7, 100: 5, 1000: 3 };
const CASES: [string, string][] = [
  ['OptimizeChannel', 'random'], ['OptimizeChannel', 'least_used'], ['OptimizeChannel', 'unmanaged_aware'],
  ['OptimizeTxPower', 'random'], ['OptimizeTxPower', 'measure_ap_client'], ['OptimizeTxPower', 'measure_ap_ap'],
  ['OptimizeTxPower', 'location_optimal'],
];

interface Zone { model: RrmModel; configs: Map<string, EffectiveConfig>; serials: string[] }

function simulatorZone(n: number): Zone {
  const cols = Math.ceil(Math.sqrt(n));
  const rows = Math.ceil(n / cols);
  const scenario: Scenario = {
    name: `bench-${n}`, seed: SEED, country: 'US', intervals: { state: 60, healthcheck: 120 },
    building: { floors: [{ width: cols * 12, depth: rows * 12 }] },
    ssids: [{ name: 'bench', bands: ['2G', '5G'] }],
    apGrids: [{
      floors: [0], rows, cols, margin: 6, firstSerial: 'b0b1c2000001', model: 'edgecore_eap101',
      radios: [
        { band: '5G', channels: [36, 44, 149, 157], width: 40, txPower: 17 },
        { band: '2G', channels: [1, 6, 11], width: 20, txPower: 12 },
      ],
    }],
  } as Scenario;
  const v = buildVenue(scenario, new VirtualClock(scenarioStart(scenario)));
  const aps = v.aps.slice(0, n);
  const t = v.clock.now();
  const model = buildModel(aps.map((ap) => ({
    serial: ap.serial,
    states: [{ recorded: t, state: stateDocument(v, ap) }],
    scans: [{ recorded: t, entries: scanEntries(v, ap) }],
    capabilities: ap.capabilities,
    activeConfig: { radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.txPower })) },
  })));
  const configs = new Map(aps.map((ap) => [ap.serial, { ...defaultEffectiveConfig(), location: [Math.round(ap.pos.x), Math.round(ap.pos.y)] }]));
  return { model, configs, serials: aps.map((a) => a.serial) };
}

function syntheticZone(n: number): Zone {
  const venue = genVenue(SEED + n, { aps: n });
  const configs = defaultConfigs(venue, (_, i) => ({ location: [venue.aps[i]!.x, venue.aps[i]!.y] }));
  return { model: venueModel(venue), configs, serials: venue.aps.map((a) => a.serial) };
}

/** bin/bench.mjs runs with --expose-gc: each run starts on a collected heap, so garbage left by
 * building the zone (or by the previous run) is not billed to the optimizer. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

console.log(`rrm: optimizer runtime per zone size (seed ${SEED}; median ms of N runs after one warm-up)`);
let headline = NaN;
for (const [kind, build] of [['simulator', simulatorZone], ['synthetic', syntheticZone]] as const) {
  for (const n of SIZES) {
    const { model, configs, serials } = build(n);
    const zone = { name: `zone-${n}`, serials };
    const entries = Object.values(model.latestWifiScans).reduce((s, scans) => s + (scans.at(-1)?.length ?? 0), 0);
    console.log(`  ${kind}, ${n} APs, ${(entries / n).toFixed(1)} scan entries per AP`);
    for (const [algorithm, mode] of CASES) {
      const once = () => {
        collect();
        const t0 = performance.now();
        runAlgorithm({ algorithm, args: `mode=${mode}`, allowDefaultMode: false, model, zone, configs, seed: String(SEED) });
        return performance.now() - t0;
      };
      once();
      const runs = mode === 'location_optimal' ? 1 : RUNS[n]!;
      const ms = median(Array.from({ length: runs }, once));
      console.log(`    ${algorithm.padEnd(16)} ${mode.padEnd(18)} ${ms.toFixed(1).padStart(9)} ms (${runs} run${runs > 1 ? 's' : ''})`);
      if (kind === 'simulator' && n === 1000 && mode === 'least_used') headline = ms;
    }
  }
}
report({
  bench: 'rrm', metric: 'ms to optimise channels of a 1,000-AP zone', value: Number(headline.toFixed(1)), unit: 'ms',
  baseline: null, baselineName: null,
});
