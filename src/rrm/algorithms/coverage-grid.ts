/**
 * The location model of `location_optimal` (docs/upstream.md#rrm-algorithms,
 * #rrms-radio-constants): APs on a square grid, rx = min(tx − 20 − 40·log10(d + 0.01), −30) dBm;
 * the score of a power assignment is the share of points with SINR ≤ 20 dB when fewer than 30 % of
 * points are below −80 dBm, else +∞ (lower is better).
 *
 * Work is O(points × APs) per score, so the grid is sampled: at most 100 × 100 points, and
 * fewer for big groups (points × APs ≤ POINT_AP_BUDGET), step = ceil(side / points per side).
 */
const RX_CAP_MW = 10 ** (-30 / 10);
const NOISE_MW = 10 ** (-94 / 10);
const SINR_THRESHOLD_LIN = 10 ** (20 / 10);
const RX_THRESHOLD_MW = 10 ** (-80 / 10);
const MAX_UNCOVERED_PERCENT = 30;
const MAX_SIDE_POINTS = 100;
const MIN_SIDE_POINTS = 20;
const POINT_AP_BUDGET = 5e5;

export interface PlacedAp { x: number; y: number; choices: readonly number[] }

/** Per point: total received power (mW), the strongest AP, its power and the second strongest. */
export interface PointStats { total: Float64Array; best: Float64Array; second: Float64Array; bestIdx: Int32Array }

const mw = (dbm: number) => 10 ** (dbm / 10);

export class CoverageGrid {
  readonly points: number;
  /** gain[i * points + p]: linear path gain from AP i to point p. */
  private readonly gain: Float64Array;

  /**
   * `gains`, when given, replaces the square grid and its free-space law: linear path gains of
   * every AP (row) to `points` points, e.g. from a venue's own path loss with its walls.
   */
  constructor(readonly aps: readonly PlacedAp[], boundary: number, gains?: { points: number; gain: Float64Array }) {
    if (gains) {
      this.points = gains.points;
      this.gain = gains.gain;
      return;
    }
    const perSide = Math.max(MIN_SIDE_POINTS, Math.min(MAX_SIDE_POINTS, Math.floor(Math.sqrt(POINT_AP_BUDGET / Math.max(1, aps.length)))));
    const step = Math.max(1, Math.ceil(boundary / perSide));
    const coords: number[] = [];
    for (let v = 0; v < boundary; v += step) coords.push(v);
    this.points = coords.length * coords.length;
    this.gain = new Float64Array(aps.length * this.points);
    aps.forEach((ap, i) => {
      let p = 0;
      for (const x of coords) {
        for (const y of coords) this.gain[i * this.points + p++] = mw(-20 - 40 * Math.log10(Math.hypot(x - ap.x, y - ap.y) + 0.01));
      }
    });
  }

  pointStats(powers: readonly number[]): PointStats {
    const n = powers.length;
    const tx = powers.map(mw);
    const total = new Float64Array(this.points);
    const best = new Float64Array(this.points);
    const second = new Float64Array(this.points);
    const bestIdx = new Int32Array(this.points).fill(-1);
    for (let i = 0; i < n; i++) {
      const t = tx[i]!;
      const off = i * this.points;
      for (let p = 0; p < this.points; p++) {
        const v = Math.min(t * this.gain[off + p]!, RX_CAP_MW);
        total[p]! += v;
        if (v > best[p]!) { second[p] = best[p]!; best[p] = v; bestIdx[p] = i; } else if (v > second[p]!) second[p] = v;
      }
    }
    return { total, best, second, bestIdx };
  }

  /** Score from per-point statistics. SINR max over APs is reached at the strongest AP. */
  scoreStats(s: PointStats): number {
    let uncovered = 0;
    let lowSinr = 0;
    for (let p = 0; p < this.points; p++) {
      const b = s.best[p]!;
      if (b <= RX_THRESHOLD_MW) uncovered++;
      if (b / (s.total[p]! - b + NOISE_MW) <= SINR_THRESHOLD_LIN) lowSinr++;
    }
    return (uncovered / this.points) * 100 < MAX_UNCOVERED_PERCENT ? lowSinr / this.points : Infinity;
  }

  /** Score of one assignment without allocating per-point arrays (the exhaustive search's hot loop). */
  score(powers: readonly number[]): number {
    const n = powers.length;
    const tx = powers.map(mw);
    let uncovered = 0;
    let lowSinr = 0;
    for (let p = 0; p < this.points; p++) {
      let total = 0;
      let b = 0;
      for (let i = 0; i < n; i++) {
        const v = Math.min(tx[i]! * this.gain[i * this.points + p]!, RX_CAP_MW);
        total += v;
        if (v > b) b = v;
      }
      if (b <= RX_THRESHOLD_MW) uncovered++;
      if (b / (total - b + NOISE_MW) <= SINR_THRESHOLD_LIN) lowSinr++;
    }
    return (uncovered / this.points) * 100 < MAX_UNCOVERED_PERCENT ? lowSinr / this.points : Infinity;
  }

  /** Score when AP `i` alone moves from `from` to `to` dBm, in O(points), from `s` of the current powers. */
  trialScore(s: PointStats, i: number, from: number, to: number): number {
    const fromMw = mw(from);
    const toMw = mw(to);
    const off = i * this.points;
    let uncovered = 0;
    let lowSinr = 0;
    for (let p = 0; p < this.points; p++) {
      const g = this.gain[off + p]!;
      const vNew = Math.min(toMw * g, RX_CAP_MW);
      const total = s.total[p]! - Math.min(fromMw * g, RX_CAP_MW) + vNew;
      const b = s.bestIdx[p] === i ? Math.max(vNew, s.second[p]!) : Math.max(s.best[p]!, vNew);
      if (b <= RX_THRESHOLD_MW) uncovered++;
      if (b / (total - b + NOISE_MW) <= SINR_THRESHOLD_LIN) lowSinr++;
    }
    return (uncovered / this.points) * 100 < MAX_UNCOVERED_PERCENT ? lowSinr / this.points : Infinity;
  }
}
