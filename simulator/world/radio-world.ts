/**
 * The radio links of a venue: received power between any two points from one path-loss
 * function (TGax enterprise + walls/floors + shadowing), so AP->AP scan signals and
 * AP<->client rssi agree (device-protocol-and-state.md §8.6). The frequency term of TGax is
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
  private grid: Map<string, number[]> | undefined;
  /** Largest cell coordinates holding a point (x, y), so a long reach stops at the venue's edge. */
  private maxCell = [0, 0];
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
    const grid = (this.grid ??= this.buildGrid());
    const p = this.points[i]!;
    const g = this.world.geometry;
    // Loss budget left for distance and floors once the most favourable shadowing is assumed.
    const budget = maxLossDb - this.shadow(this.fields[i]!, this.minField);
    const reach = tgaxReachM(budget);
    const floorReach = g.floorLossDb > 0 ? Math.floor((budget - TGAX_ENTERPRISE.constantDb) / g.floorLossDb + 1e-9) : g.floors.length;
    const c = this.cellM;
    const out: number[] = [];
    const x0 = Math.max(0, Math.floor((p.x - reach) / c)), x1 = Math.min(this.maxCell[0]!, Math.floor((p.x + reach) / c));
    const y0 = Math.max(0, Math.floor((p.y - reach) / c)), y1 = Math.min(this.maxCell[1]!, Math.floor((p.y + reach) / c));
    const f0 = Math.max(0, p.floor - floorReach), f1 = Math.min(g.floors.length - 1, p.floor + floorReach);
    for (let f = f0; f <= f1; f++) {
      for (let x = x0; x <= x1; x++) {
        for (let y = y0; y <= y1; y++) {
          const cell = grid.get(`${f}:${x}:${y}`);
          if (!cell) continue;
          for (const j of cell) if (j !== i && this.lowerBound(i, j) <= maxLossDb) out.push(j);
        }
      }
    }
    return out.sort((a, b) => a - b);
  }

  private shadow(fieldA: number, fieldB: number): number {
    const s = this.world.shadowing;
    return s.sigmaDb === 0 ? 0 : (s.sigmaDb * (fieldA + fieldB)) / Math.SQRT2;
  }

  private buildGrid(): Map<string, number[]> {
    const grid = new Map<string, number[]>();
    this.points.forEach((p, j) => {
      const cx = Math.floor(p.x / this.cellM);
      const cy = Math.floor(p.y / this.cellM);
      this.maxCell = [Math.max(this.maxCell[0]!, cx), Math.max(this.maxCell[1]!, cy)];
      const key = `${p.floor}:${cx}:${cy}`;
      const cell = grid.get(key);
      if (cell) cell.push(j);
      else grid.set(key, [j]);
    });
    return grid;
  }

  /** geometricLossDb of the two points (lower index first, as the cache always did). */
  private compute(i: number, j: number): number {
    const [a, b] = i < j ? [i, j] : [j, i];
    return geometricLossWithFields(this.world, this.points[a]!, this.fields[a]!, this.points[b]!, this.fields[b]!);
  }
}
