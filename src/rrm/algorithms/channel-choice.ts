/**
 * Occupancy weights and the channel decision shared by `least_used` and `unmanaged_aware`
 * (docs/upstream.md#rrm-algorithms, with docs/rrm.md: a neighbour counts once for every candidate
 * block it overlaps, however wide it is).
 */
import { blockOf, is6GhzPsc, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { pick, type Rng } from './common.js';

/** Something occupying spectrum near the AP, with its weight. */
export interface Occupant {
  covered: readonly number[];
  /** Default 1 (a scanned neighbour passes as an occupant as it is). */
  weight?: number;
}

/** 2.4 GHz channels within ±4 overlap (OVERLAP_WINDOW, docs/upstream.md#rrm-algorithms). */
const OVERLAP_2G = 4;
const PREFERRED_2G = [1, 6, 11];

/** The 20 MHz channels each candidate primary occupies at `width` (2.4 GHz: the primary). */
export function candidateBlocks(band: Band, width: ChannelWidth, candidates: readonly number[]): (readonly number[])[] {
  return candidates.map((c) => (band === '2G' ? [c] : blockOf(band, c, width)?.channels ?? [c]));
}

/**
 * Weight of each candidate primary for an AP of `width`: Σ weight of the occupants that overlap
 * it, each occupant counted once per candidate. Linear in the occupants' channels: a channel ->
 * candidates index replaces the candidate × occupant product (bench/rrm.ts, 1,000 APs).
 */
export function candidateWeights(
  band: Band, width: ChannelWidth, candidates: readonly number[], occupants: readonly Occupant[],
  blocks: readonly (readonly number[])[] = candidateBlocks(band, width, candidates),
  /** Count exact 20 MHz overlap only (no 2.4 GHz ±4 window): the interference metric. */
  exact = false,
): number[] {
  const index = candidateIndex(band, candidates, blocks, exact);
  const weights = new Array<number>(candidates.length).fill(0);
  const stamp = new Array<number>(candidates.length).fill(-1);
  occupants.forEach((o, k) => addOccupant(index, weights, stamp, k, o.covered, o.weight ?? 1));
  return weights;
}

/** 20 MHz channel -> indices of the candidates an occupant on that channel overlaps. */
export type CandidateIndex = Map<number, number[]>;

export function candidateIndex(
  band: Band, candidates: readonly number[], blocks: readonly (readonly number[])[], exact = false,
): CandidateIndex {
  const index: CandidateIndex = new Map();
  candidates.forEach((c, i) => {
    const hit = band === '2G' && !exact ? range(c - OVERLAP_2G, c + OVERLAP_2G) : blocks[i]!;
    for (const ch of hit) {
      const list = index.get(ch);
      if (list) list.push(i); else index.set(ch, [i]);
    }
  });
  return index;
}

/** Adds one occupant (id `k`, counted once per candidate via `stamp`) to `weights`. */
export function addOccupant(
  index: CandidateIndex, weights: number[], stamp: number[], k: number, covered: readonly number[], weight: number,
): void {
  for (const ch of covered) {
    for (const i of index.get(ch) ?? []) {
      if (stamp[i] === k) continue;
      stamp[i] = k;
      weights[i]! += weight;
    }
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * H8 with hysteresis: a single candidate wins (that is how constraints win); an AP keeps its
 * current channel when it is free or no candidate is strictly less occupied (no churn);
 * otherwise a random free channel (2.4 GHz prefers 1/6/11, 6 GHz prefers PSC channels), else
 * the least occupied, lowest channel first. `allowed` (interference-guard.ts) masks out moves
 * that would raise the zone's co-channel interference; the current channel is never masked.
 */
export function chooseChannel(
  band: Band, candidates: readonly number[], weights: readonly number[], current: number | undefined, rng: Rng,
  allowed?: readonly boolean[] | (() => readonly boolean[]),
  /** Interference (mW) on each candidate: breaks ties between equally occupied channels. */
  loudness?: () => readonly number[],
): number {
  if (candidates.length === 1) return candidates[0]!;
  const ci = current === undefined ? -1 : candidates.indexOf(current);
  const min = Math.min(...weights);
  // Staying needs no mask (the current channel is never masked; the mask is the expensive part
  // in dense zones), unless an equally occupied channel is quieter: then the AP moves off the
  // loud one (as upstream does), to the quietest of the tied channels.
  if (ci >= 0 && weights[ci] === min) {
    const loud = loudness?.();
    if (!loud) return current!;
    let best = ci;
    weights.forEach((w, i) => { if (w === min && loud[i]! < loud[best]! * (1 - 1e-9)) best = i; });
    return candidates[best]!;
  }
  const mask = typeof allowed === 'function' ? allowed() : allowed;
  if (mask && mask.some((a) => !a)) {
    const keep = candidates.map((_, i) => i).filter((i) => mask[i]);
    const loud = loudness ? () => { const l = loudness(); return keep.map((i) => l[i]!); } : undefined;
    return chooseChannel(band, keep.map((i) => candidates[i]!), keep.map((i) => weights[i]!), current, rng, undefined, loud);
  }
  const free = candidates.filter((_, i) => weights[i] === 0);
  if (free.length > 0) {
    const preferred = band === '2G' ? free.filter((c) => PREFERRED_2G.includes(c))
      : band === '6G' ? free.filter(is6GhzPsc) : [];
    return pick(rng, preferred.length > 0 ? preferred : free);
  }
  return candidates[weights.indexOf(min)]!;
}
