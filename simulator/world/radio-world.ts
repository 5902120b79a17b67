/**
 * The radio links of a venue: received power between any two points from one path-loss
 * function (TGax enterprise + walls/floors + shadowing), so AP->AP scan signals and
 * AP<->client rssi agree (docs/upstream.md#rrms-radio-constants). The frequency term of TGax is
 * 20 log10(f / 2.4 GHz), so the loss splits into a geometric part (cached for fixed transmitters)
 * plus that term; received power is tx power minus loss, dB for dB.
 */
import { distanceM, obstructionDb, type Geometry, type Position } from './geometry.js';
import { TGAX_ENTERPRISE, tgaxEnterpriseDb } from './path-loss.js';
import { linkShadowingDb, shadowField, type ShadowingParams } from './shadowing.js';

export interface RadioWorld { geometry: Geometry; shadowing: ShadowingParams }

/** Loss at 2.4 GHz (dB) between two points: distance, walls, floors and shadowing. Symmetric. */
export function geometricLossDb(w: RadioWorld, a: Position, b: Position): number {
  return tgaxEnterpriseDb(distanceM(w.geometry, a, b), 2400) + obstructionDb(w.geometry, a, b) + linkShadowingDb(w.shadowing, a, b);
}

/**
 * The same loss as geometricLossDb when the shadowing fields at both ends are already known
 * (fixed APs keep theirs; a moving station computes its own once for all candidate APs).
 */
export function geometricLossWithFields(w: RadioWorld, a: Position, fieldA: number, b: Position, fieldB: number): number {
  return tgaxEnterpriseDb(distanceM(w.geometry, a, b), 2400) + obstructionDb(w.geometry, a, b) + (w.shadowing.sigmaDb * (fieldA + fieldB)) / Math.SQRT2;
}

/** TGax frequency term relative to 2.4 GHz. */
export function frequencyTermDb(frequencyMHz: number): number {
  return 20 * Math.log10(frequencyMHz / 2400);
}

/** Total loss between two points at a frequency. */
export function pathLossDb(w: RadioWorld, a: Position, b: Position, frequencyMHz: number): number {
  return geometricLossDb(w, a, b) + frequencyTermDb(frequencyMHz);
}

/** Received power (dBm) at `rx` from a transmitter at `tx` with `txPowerDbm` on `frequencyMHz`. */
export function rxPowerDbm(w: RadioWorld, tx: Position, txPowerDbm: number, rx: Position, frequencyMHz: number): number {
  return txPowerDbm - pathLossDb(w, tx, rx, frequencyMHz);
}

/** Largest point count whose loss cache is a dense n x n matrix (2,048 points: 32 MiB). */
export const DENSE_LOSS_MAX_POINTS = 2048;

/** Distance (m) below which the TGax distance term stays under `lossDb`: the inverse of tgaxEnterpriseDb at 2.4 GHz. */
function tgaxReachM(lossDb: number): number {
  const { constantDb, breakpointM, nearExponent, farExponent } = TGAX_ENTERPRISE;
  if (lossDb < constantDb) return 1;
  const nearTop = constantDb + 10 * nearExponent * Math.log10(breakpointM);
  const d = lossDb <= nearTop ? 10 ** ((lossDb - constantDb) / (10 * nearExponent)) : breakpointM * 10 ** ((lossDb - nearTop) / (10 * farExponent));
  return d * 1.001 + 0.01; // a little slack for rounding: the exact test follows per pair
}

/**
 * Geometric losses between fixed points (APs, neighbours). Index pairs are symmetric:
 * loss(i, j) === loss(j, i), bit for bit the value of geometricLossDb on the two points.
 * Up to DENSE_LOSS_MAX_POINTS points the losses are cached in an n x n matrix on first use;
 * above that (a 50,000-AP venue would need 20 GB) each is computed when asked, from the
 * shadowing fields kept per point, and who-hears-whom goes through `within`, a spatial grid that
 * skips pairs whose loss cannot be small enough.
 */
export class LossMatrix {
  private readonly cache: Float64Array | undefined;
  /** The shadowing field at each point (fixed points: computed once). */
  private readonly fields: Float64Array;
  private readonly minField: number;
  private grid: { cols: number; rows: number; cells: Map<number, number[]> } | undefined;
  /** The last `within` answer: an AP's radios ask for the same point and budget in a row. */
  private memo: { i: number; maxLossDb: number; out: number[] } | undefined;
  private readonly cellM = 40;

  constructor(private readonly world: RadioWorld, private readonly points: readonly Position[]) {
    const n = points.length;
    this.cache = n <= DENSE_LOSS_MAX_POINTS ? new Float64Array(n * n).fill(Number.NaN) : undefined;
    this.fields = Float64Array.from(points, (p) => shadowField(world.shadowing, p));
    let min = Infinity;
    for (const f of this.fields) if (f < min) min = f;
    this.minField = n > 0 ? min : 0;
  }

  geometric(i: number, j: number): number {
    const cache = this.cache;
    if (!cache) return this.compute(i, j);
    const n = this.points.length;
    const key = i < j ? i * n + j : j * n + i;
    let v = cache[key]!;
    if (Number.isNaN(v)) {
      v = this.compute(i, j);
      cache[key] = v;
    }
    return v;
  }

  /**
   * A lower bound of geometric(i, j): distance, floors and shadowing without the walls (walls
   * only add loss), less a hair for rounding. Cheap: no wall crossings, no field hashing.
   */
  lowerBound(i: number, j: number): number {
    const a = this.points[i]!;
    const b = this.points[j]!;
    const g = this.world.geometry;
    return tgaxEnterpriseDb(distanceM(g, a, b), 2400) + Math.abs(a.floor - b.floor) * g.floorLossDb
      + this.shadow(this.fields[i]!, this.fields[j]!) - 1e-6;
  }

  /**
   * Every other point whose geometric loss to point i may be at most `maxLossDb` (a superset:
   * lowerBound(i, j) <= maxLossDb), in ascending index order, so callers that walk them see
   * the same order as a walk over all points.
   */
  within(i: number, maxLossDb: number): number[] {
    const memo = this.memo;
    if (memo && memo.i === i && memo.maxLossDb === maxLossDb) return memo.out;
    const grid = (this.grid ??= this.buildGrid());
    const p = this.points[i]!;
    const g = this.world.geometry;
    // Loss budget left for distance and floors once the most favourable shadowing is assumed.
    const budget = maxLossDb - this.shadow(this.fields[i]!, this.minField);
    const c = this.cellM;
    const out: number[] = [];
    for (let f = 0; f < g.floors.length; f++) {
      // Each floor crossed takes its loss from the budget; the horizontal distance gets the rest.
      const left = budget - Math.abs(f - p.floor) * g.floorLossDb;
      if (left < TGAX_ENTERPRISE.constantDb) continue;
      const reach = tgaxReachM(left);
      const reach2 = reach * reach;
      const x0 = Math.max(0, Math.floor((p.x - reach) / c)), x1 = Math.min(grid.cols - 1, Math.floor((p.x + reach) / c));
      const y0 = Math.max(0, Math.floor((p.y - reach) / c)), y1 = Math.min(grid.rows - 1, Math.floor((p.y + reach) / c));
      for (let x = x0; x <= x1; x++) {
        for (let y = y0; y <= y1; y++) {
          const cell = grid.cells.get((f * grid.cols + x) * grid.rows + y);
          if (!cell) continue;
          for (const j of cell) {
            const q = this.points[j]!;
            const dx = q.x - p.x, dy = q.y - p.y;
            if (dx * dx + dy * dy <= reach2 && j !== i && this.lowerBound(i, j) <= maxLossDb) out.push(j);
          }
        }
      }
    }
    out.sort((a, b) => a - b);
    this.memo = { i, maxLossDb, out };
    return out;
  }

  private shadow(fieldA: number, fieldB: number): number {
    const s = this.world.shadowing;
    return s.sigmaDb === 0 ? 0 : (s.sigmaDb * (fieldA + fieldB)) / Math.SQRT2;
  }

  /** Points by (floor, cell x, cell y), numbered floor-major. */
  private buildGrid(): { cols: number; rows: number; cells: Map<number, number[]> } {
    let cols = 1;
    let rows = 1;
    for (const p of this.points) {
      cols = Math.max(cols, Math.floor(p.x / this.cellM) + 1);
      rows = Math.max(rows, Math.floor(p.y / this.cellM) + 1);
    }
    const cells = new Map<number, number[]>();
    this.points.forEach((p, j) => {
      const key = (p.floor * cols + Math.floor(p.x / this.cellM)) * rows + Math.floor(p.y / this.cellM);
      const cell = cells.get(key);
      if (cell) cell.push(j);
      else cells.set(key, [j]);
    });
    return { cols, rows, cells };
  }

  /** geometricLossDb of the two points (lower index first, as the cache always did). */
  private compute(i: number, j: number): number {
    const [a, b] = i < j ? [i, j] : [j, i];
    return geometricLossWithFields(this.world, this.points[a]!, this.fields[a]!, this.points[b]!, this.fields[b]!);
  }
}
