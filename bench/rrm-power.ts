/**
 * rrm-power benchmark (docs/rrm-power.md): the power figures (src/rrm/score/power.ts) of every tx
 * power mode on the shipped venues, seeds 1-3, against the powers the venue runs now. Each venue
 * runs 2 minutes of virtual time with its stations, then its model is taken as a collector would
 * (test/helpers/sim-zone.ts) and every mode plans on it with the venue's site (walls, positions).
 * Printed per venue and seed: client coverage (%), grid coverage (%), median SINR (dB), CCI (nW)
 * and the largest planned power. With `--measure`, each plan is also applied to the simulated
 * APs and scored again from what they report two minutes later (the effect, not the prediction;
 * the current powers are measured the same way, as stations come and go in those minutes).
 * Result: the number of (venue, seed) where coverage_cci covers at least as much as the current
 * powers with no more CCI (target: all 12).
 */
import { report } from './_report.js';
import { runAlgorithm } from '../src/rrm/algorithms/registry.js';
import type { Plan } from '../src/rrm/algorithms/common.js';
import { PowerScene, type PowerScore } from '../src/rrm/score/power.js';
import { radiosChanged } from '../simulator/venue.js';
import { simZone, venueRrmModel } from '../test/helpers/sim-zone.js';

const VENUES = ['lab', 'default', 'hotel', 'hall'];
const SEEDS = [1, 2, 3];
const ALL_MODES = ['measure_ap_ap', 'measure_ap_client', 'location_optimal', 'coverage_cci'];
const MODES = process.argv.find((a) => a.startsWith('--modes='))?.slice(8).split(',') ?? ALL_MODES;
const only = process.argv.find((a) => a.startsWith('--venues='))?.slice(9).split(',');
const measure = process.argv.includes('--measure');

const pct = (v: number | null) => (v === null ? '   -  ' : (100 * v).toFixed(1).padStart(6));
const row = (name: string, s: PowerScore, maxP: number, ms: number) =>
  `  ${name.padEnd(20)} cov ${pct(s.coverage)}  grid ${pct(s.gridCoverage)}  sinr ${(s.medianSinr ?? NaN).toFixed(1).padStart(5)}  cci ${(s.cci * 1e6).toFixed(1).padStart(8)} nW  max ${String(maxP).padStart(2)} dBm  ${ms.toFixed(0).padStart(5)} ms`;
const maxPower = (plan: Plan) => Math.max(0, ...Object.values(plan).flatMap((b) => Object.values(b)));

/** Applies `plan` to a fresh copy of the venue and scores what its APs report 2 minutes later. */
function measured(venue: string, seed: number, plan: Plan): void {
  const m = simZone(venue, seed);
  for (const ap of m.venue.aps) for (const r of ap.radios) { const p = plan[ap.serial]?.[r.band]; if (p !== undefined) r.txPower = p; }
  radiosChanged(m.venue);
  m.clock.runUntil(m.clock.now() + 120_000);
  const after = new PowerScene(venueRrmModel(m.venue), m.serials, { site: m.site });
  console.log(row('  measured', after.score(after.powersOf({})), maxPower(plan), 0));
}

let ok = 0;
let okApAp = 0;
const scores = new Map<string, PowerScore>();
for (const venue of only ?? VENUES) {
  for (const seed of SEEDS) {
    const z = simZone(venue, seed);
    const scene = new PowerScene(z.model, z.serials, { site: z.site });
    const now = scene.score(scene.powersOf({}));
    console.log(`${venue} seed ${seed}: ${z.serials.length} APs, ${now.clients} clients`);
    console.log(row('current', now, Math.max(...scene.slots.map((s) => s.current)), 0));
    if (measure) measured(venue, seed, {});
    for (const mode of MODES) {
      const t0 = performance.now();
      const plan = runAlgorithm({
        algorithm: 'OptimizeTxPower', args: `mode=${mode.replaceAll(':', ',')}`, allowDefaultMode: false, model: z.model,
        zone: { name: venue, serials: z.serials }, configs: z.configs, seed: String(seed), site: z.site,
      }).plan;
      const ms = performance.now() - t0;
      const s = scene.score(scene.powersOf(plan));
      console.log(row(mode, s, maxPower(plan), ms));
      scores.set(mode, s);
      if (mode.startsWith('coverage_cci')) {
        const good = (s.coverage ?? 0) >= (now.coverage ?? 0) && (s.gridCoverage ?? 0) >= (now.gridCoverage ?? 0) && s.cci <= now.cci;
        if (good) ok++;
        else console.log('  ^ coverage_cci is worse than the current powers here');
        const apAp = scores.get('measure_ap_ap');
        if (apAp) {
          const better = (s.coverage ?? 0) >= (apAp.coverage ?? 0) && (s.gridCoverage ?? 0) >= (apAp.gridCoverage ?? 0) && s.cci <= apAp.cci;
          if (better) okApAp++;
          else console.log(`  ^ not at least as good as measure_ap_ap on every figure here (clients ${pct(s.coverage)} vs ${pct(apAp.coverage)}, grid ${pct(s.gridCoverage)} vs ${pct(apAp.gridCoverage)}, CCI ${(s.cci * 1e6).toFixed(1)} vs ${(apAp.cci * 1e6).toFixed(1)} nW)`);
        }
      }
      if (measure) measured(venue, seed, plan);
    }
  }
}
console.log(`coverage_cci vs current powers: ${ok}/${VENUES.length * SEEDS.length}; vs measure_ap_ap's plan: ${okApAp}/${VENUES.length * SEEDS.length}`);
report({ bench: 'rrm-power', metric: 'venues where coverage_cci keeps coverage with no more CCI', value: ok, unit: 'of 12', baseline: VENUES.length * SEEDS.length, baselineName: 'all venue x seed' });
