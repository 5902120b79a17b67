/**
 * Spatially consistent log-normal shadowing. A smooth random field F(position) ~ N(0,1) is drawn
 * from hashed lattice values (value noise, bilinear between lattice points spaced one
 * decorrelation distance apart), and a link's shadowing is sigma (F(a) + F(b)) / sqrt(2):
 * symmetric by construction, about N(0, sigma^2), and two nearby receivers see nearly the same
 * value. TGax enterprise uses sigma = 5 dB (doc 11-14/0980); the decorrelation distance of
 * ~10 m is the indoor figure of 3GPP TR 38.901 (InH, 10 m for LOS shadow fading).
 * Pure: the field depends only on the seed and the coordinates.
 */
import { hash32 } from '../rng.js';
import type { Position } from './geometry.js';

export interface ShadowingParams { seed: number; sigmaDb: number; decorrelationM: number }

/** A standard-normal value fixed to one lattice point (two hashes -> Box-Muller). */
function latticeNormal(seed: number, floor: number, i: number, j: number): number {
  const u1 = (hash32(seed, floor, i, j, 1) + 1) / 4294967297;
  const u2 = hash32(seed, floor, i, j, 2) / 4294967296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** The field at a position, roughly N(0,1) (renormalised for the bilinear blend). */
export function shadowField(p: ShadowingParams, pos: Position): number {
  const gx = pos.x / p.decorrelationM;
  const gy = pos.y / p.decorrelationM;
  const i = Math.floor(gx);
  const j = Math.floor(gy);
  const fx = gx - i;
  const fy = gy - j;
  const w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
  const v = w00 * latticeNormal(p.seed, pos.floor, i, j) + w10 * latticeNormal(p.seed, pos.floor, i + 1, j)
    + w01 * latticeNormal(p.seed, pos.floor, i, j + 1) + w11 * latticeNormal(p.seed, pos.floor, i + 1, j + 1);
  // A weighted sum of independent normals has variance sum(w^2); divide to keep unit variance.
  return v / Math.sqrt(w00 * w00 + w10 * w10 + w01 * w01 + w11 * w11);
}

/** Shadowing of the link a-b in dB (added to the loss). Symmetric in a and b. */
export function linkShadowingDb(p: ShadowingParams, a: Position, b: Position): number {
  if (p.sigmaDb === 0) return 0;
  return (p.sigmaDb * (shadowField(p, a) + shadowField(p, b))) / Math.SQRT2;
}
