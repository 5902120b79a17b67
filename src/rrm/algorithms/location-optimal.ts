/**
 * `location_optimal` TPC (reference §4.7): per (band, channel) group of APs with a known
 * `location`, the powers with the best coverage-grid score (coverage-grid.ts).
 *
 * Fixes (§8 #11, docs/rrm.md): not capped at 1,000 combinations. When the exhaustive search
 * fits EXHAUSTIVE_BUDGET it runs as upstream (lexicographic, first AP slowest, first strictly
 * best wins, all +∞ -> all max); otherwise a coordinate descent starts from all-max and only
 * accepts strict improvements, so it never scores worse than all-max. Each AP has its own
 * allowed powers (upstream narrowed one shared list progressively); an AP counts once per
 * group; the grid grows to contain every AP instead of aborting.
 */
import { zoneView } from '../model/view.js';
import { setPlan, sortedPlan, apTxChoices, type AlgorithmInput, type Plan } from './common.js';
import { CoverageGrid, type PlacedAp } from './coverage-grid.js';
import { tpcGroups } from './tpc-groups.js';

const DEFAULT_BOUNDARY = 100;
/** Exhaustive search when combinations × points × APs stays under this. */
export const EXHAUSTIVE_BUDGET = 2e7;
const MAX_DESCENT_PASSES = 20;
/** Point evaluations the descent may spend per group. */
const DESCENT_BUDGET = 3e7;

/** Exhaustive search in upstream order; null when it does not fit the budget. */
export function exhaustiveSearch(grid: CoverageGrid): number[] | null {
  const aps = grid.aps;
  let combos = 1;
  for (const a of aps) combos *= a.choices.length;
  if (combos * grid.points * aps.length > EXHAUSTIVE_BUDGET) return null;
  const idx = aps.map(() => 0);
  let best: number[] | null = null;
  let bestScore = Infinity;
  for (let k = 0; k < combos; k++) {
    const powers = idx.map((j, i) => aps[i]!.choices[j]!);
    const s = grid.score(powers);
    if (s < bestScore) { bestScore = s; best = powers; }
    for (let i = aps.length - 1; i >= 0; i--) {
      if (++idx[i]! < aps[i]!.choices.length) break;
      idx[i] = 0;
    }
  }
  return best ?? aps.map((a) => a.choices.at(-1)!);
}

/**
 * Coordinate descent from all-max, strict improvements only. Trials are scored incrementally
 * (one AP changes); a move is accepted only on its full score, so floating-point noise cannot
 * make the result worse than all-max. Bounded by DESCENT_BUDGET point evaluations.
 */
export function descentSearch(grid: CoverageGrid): number[] {
  const powers = grid.aps.map((a) => a.choices.at(-1)!);
  let stats = grid.pointStats(powers);
  let bestScore = grid.scoreStats(stats);
  let budget = DESCENT_BUDGET;
  for (let pass = 0; pass < MAX_DESCENT_PASSES && budget > 0; pass++) {
    let improved = false;
    for (let i = 0; i < grid.aps.length && budget > 0; i++) {
      for (const c of grid.aps[i]!.choices) {
        if (c === powers[i]) continue;
        budget -= grid.points;
        if (grid.trialScore(stats, i, powers[i]!, c) >= bestScore) continue;
        const trial = powers.slice();
        trial[i] = c;
        const next = grid.pointStats(trial);
        const full = grid.scoreStats(next);
        if (full < bestScore) {
          bestScore = full;
          powers[i] = c;
          stats = next;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return powers;
}

export function locationOptimal(input: AlgorithmInput<Record<string, never>>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  for (const g of tpcGroups(aps)) {
    const placed: (PlacedAp & { serial: string })[] = [];
    let boundary = DEFAULT_BOUNDARY;
    for (const { ap } of g.members) {
      const cfg = input.configs.get(ap.serial);
      const loc = cfg?.location;
      if (!loc || loc.length < 2 || loc[0]! < 0 || loc[1]! < 0) continue;
      const choices = apTxChoices(cfg, ap, g.band);
      if (choices.length === 0) continue;
      placed.push({ serial: ap.serial, x: loc[0]!, y: loc[1]!, choices });
      boundary = Math.max(boundary, cfg.boundary ?? 0, Math.floor(loc[0]!) + 1, Math.floor(loc[1]!) + 1);
    }
    if (placed.length === 0) continue;
    const grid = new CoverageGrid(placed, boundary);
    const powers = exhaustiveSearch(grid) ?? descentSearch(grid);
    placed.forEach((p, i) => setPlan(plan, p.serial, g.band, powers[i]!));
  }
  return sortedPlan(plan);
}
