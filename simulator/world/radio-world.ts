/**
 * The radio links of a venue: received power between any two points from one path-loss
 * function (TGax enterprise + walls/floors + shadowing), so AP->AP scan signals and
 * AP<->client rssi agree (device-protocol-and-state.md §8.6). The frequency term of TGax is
 * 20 log10(f / 2.4 GHz), so the loss splits into a geometric part (cached for fixed transmitters)
 * plus that term; received power is tx power minus loss, dB for dB.
 */
import { distanceM, obstructionDb, type Geometry, type Position } from './geometry.js';
import { tgaxEnterpriseDb } from './path-loss.js';
import { linkShadowingDb, type ShadowingParams } from './shadowing.js';

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

/**
 * Geometric losses between fixed points (APs, neighbours), computed once on first use.
 * Index pairs are symmetric: loss(i, j) === loss(j, i).
 */
export class LossMatrix {
  private readonly cache: Float64Array;
  constructor(private readonly world: RadioWorld, private readonly points: readonly Position[]) {
    this.cache = new Float64Array(points.length * points.length).fill(Number.NaN);
  }

  geometric(i: number, j: number): number {
    const n = this.points.length;
    const key = i < j ? i * n + j : j * n + i;
    let v = this.cache[key]!;
    if (Number.isNaN(v)) {
      const [a, b] = i < j ? [this.points[i]!, this.points[j]!] : [this.points[j]!, this.points[i]!];
      v = geometricLossDb(this.world, a, b);
      this.cache[key] = v;
    }
    return v;
  }
}
