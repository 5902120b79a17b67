/**
 * `location_optimal` TPC (reference §4.7, device-protocol §8.1). For each (band, channel) group
 * of APs with a known `location`, choose the powers that minimise the share of grid points with
 * SINR ≤ 20 dB, subject to fewer than 30 % of points below −80 dBm (else the score is +∞).
 * rx = min(tx − 20 − 40·log10(d + 0.01), −30) dBm.
 *
 * Fixes (§8 #11, docs/rrm.md): not capped at 1,000 combinations. When the exhaustive search
 * fits the work budget it runs exactly as upstream (lexicographic, first AP slowest, first
 * strictly best wins); otherwise a coordinate descent starts from all-max and only accepts
 * strict improvements, so it never scores worse than all-max. Each AP has its own allowed
 * powers (upstream narrowed one shared list progressively). An AP is counted once per group.
 * The grid is sampled at most 100 × 100 points (step ceil(boundary/100)) and grows to contain
 * every AP instead of aborting.
 */
import { zoneView } from '../model/view.js';
import { setPlan, sortedPlan, txChoices, type AlgorithmInput, type Plan } from './common.js';
import { tpcGroups } from './tpc-groups.js';

const DEFAULT_BOUNDARY = 100;
const MAX_SIDE_POINTS = 100;
const RX_CAP_DBM = -30;
const NOISE_MW = 10 ** (-94 / 10);
const SINR_THRESHOLD_LIN = 10 ** (20 / 10);
const RX_THRESHOLD_DBM = -80;
const MAX_UNCOVERED_PERCENT = 30;
/** Exhaustive search when combinations × points × APs stays under this. */
export const EXHAUSTIVE_BUDGET = 2e7;
const MAX_DESCENT_PASSES = 20;

export interface PlacedAp { x: number; y: number; choices: readonly number[] }

/** Precomputed linear path gains from each AP to each grid point. */
export class CoverageGrid {
  readonly points: number;
  /** gain[i * points + p] = 10^((−20 − 40·log10(d + 0.01)) / 10) */
  private readonly gain: Float64Array;
  private readonly capMw = 10 ** (RX_CAP_DBM / 10);
  private readonly rxThresholdMw = 10 ** (RX_THRESHOLD_DBM / 10);

  constructor(readonly aps: readonly PlacedAp[], boundary: number) {
    const step = Math.max(1, Math.ceil(boundary / MAX_SIDE_POINTS));
    const coords: number[] = [];
    for (let v = 0; v < boundary; v += step) coords.push(v);
    this.points = coords.length * coords.length;
    this.gain = new Float64Array(aps.length * this.points);
    aps.forEach((ap, i) => {
      let p = 0;
      for (const x of coords) {
        for (const y of coords) {
          const d = Math.hypot(x - ap.x, y - ap.y);
          this.gain[i * this.points + p++] = 10 ** ((-20 - 40 * Math.log10(d + 0.01)) / 10);
        }
      }
    });
  }

  /** The upstream metric for one power assignment (lower is better, +∞ = coverage fails). */
  score(powers: readonly number[]): number {
    const n = this.aps.length;
    const txMw = powers.map((p) => 10 ** (p / 10));
    const rx = new Float64Array(n);
    let uncovered = 0;
    let lowSinr = 0;
    for (let p = 0; p < this.points; p++) {
      let total = 0;
      let best = 0;
      for (let i = 0; i < n; i++) {
        const v = Math.min(txMw[i]! * this.gain[i * this.points + p]!, this.capMw);
        rx[i] = v;
        total += v;
        if (v > best) best = v;
      }
      if (best <= this.rxThresholdMw) uncovered++;
      // max over APs of rx_i / (others + noise) is reached at the strongest AP
      if (best / (total - best + NOISE_MW) <= SINR_THRESHOLD_LIN) lowSinr++;
    }
    return (uncovered / this.points) * 100 < MAX_UNCOVERED_PERCENT ? lowSinr / this.points : Infinity;
  }
}

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

/** Coordinate descent from all-max; strict improvements only. */
export function descentSearch(grid: CoverageGrid): number[] {
  const powers = grid.aps.map((a) => a.choices.at(-1)!);
  let bestScore = grid.score(powers);
  for (let pass = 0; pass < MAX_DESCENT_PASSES; pass++) {
    let improved = false;
    grid.aps.forEach((ap, i) => {
      for (const c of ap.choices) {
        if (c === powers[i]) continue;
        const trial = powers.slice();
        trial[i] = c;
        const s = grid.score(trial);
        if (s < bestScore) { bestScore = s; powers[i] = c; improved = true; }
      }
    });
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
      const choices = txChoices(cfg, g.band);
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
