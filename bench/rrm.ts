/**
 * rrm benchmark (architecture.md "Benchmarks"): each optimizer's runtime on zones of 10, 100
 * and 1,000 APs. Venues are synthetic and seeded (test/helpers/rrm-models.ts: 2.4 + 5 GHz,
 * one unmanaged neighbour per three APs, ~15 m between APs, every AP located); building the
 * model is not timed. Each figure is the median of several runs after a warm-up.
 * Result: ms to optimise channels of a 1,000-AP zone with `least_used` (target <= 1,000 ms).
 */
import { performance } from 'node:perf_hooks';
import { report } from './_report.js';
import { runAlgorithm } from '../src/rrm/algorithms/registry.js';
import { defaultConfigs, genVenue, venueModel } from '../test/helpers/rrm-models.js';

const SEED = 20261121;
const SIZES = [10, 100, 1000];
const RUNS: Record<number, number> = { 10: 7, 100: 5, 1000: 3 };
const CASES: [string, string][] = [
  ['OptimizeChannel', 'random'], ['OptimizeChannel', 'least_used'], ['OptimizeChannel', 'unmanaged_aware'],
  ['OptimizeTxPower', 'random'], ['OptimizeTxPower', 'measure_ap_client'], ['OptimizeTxPower', 'measure_ap_ap'],
  ['OptimizeTxPower', 'location_optimal'],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`rrm: optimizer runtime per zone size (seed ${SEED}; median ms of N runs after one warm-up)`);
let headline = NaN;
for (const n of SIZES) {
  const venue = genVenue(SEED + n, { aps: n });
  const model = venueModel(venue);
  const configs = defaultConfigs(venue, (_, i) => ({ location: [venue.aps[i]!.x, venue.aps[i]!.y] }));
  const zone = { name: `zone-${n}`, serials: venue.aps.map((a) => a.serial) };
  const scanEntries = Object.values(model.latestWifiScans).reduce((s, scans) => s + (scans.at(-1)?.length ?? 0), 0);
  console.log(`  ${n} APs, ${(scanEntries / n).toFixed(1)} scan entries per AP`);
  for (const [algorithm, mode] of CASES) {
    const once = () => {
      const t0 = performance.now();
      runAlgorithm({ algorithm, args: `mode=${mode}`, allowDefaultMode: false, model, zone, configs, seed: String(SEED) });
      return performance.now() - t0;
    };
    once();
    const runs = mode === 'location_optimal' ? 1 : RUNS[n]!;
    const ms = median(Array.from({ length: runs }, once));
    console.log(`    ${algorithm.padEnd(16)} ${mode.padEnd(18)} ${ms.toFixed(1).padStart(9)} ms (${runs} run${runs > 1 ? 's' : ''})`);
    if (n === 1000 && mode === 'least_used') headline = ms;
  }
}
report({
  bench: 'rrm', metric: 'ms to optimise channels of a 1,000-AP zone', value: Number(headline.toFixed(1)), unit: 'ms',
  baseline: null, baselineName: null,
});
