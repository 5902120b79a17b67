/**
 * Occupancy weights and the channel decision shared by `least_used` and `unmanaged_aware`
 * (reference §4.2 H7/H8, with the §8 #4 fix: a neighbour counts once for every candidate block
 * it overlaps, however wide it is).
 */
import { blockOf, is6GhzPsc, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { pick, type Rng } from './common.js';

/** Something occupying spectrum near the AP, with its weight. */
export interface Occupant {
  covered: readonly number[];
  weight: number;
}

/** 2.4 GHz channels within ±4 overlap (OVERLAP_WINDOW, reference §4.1). */
const OVERLAP_2G = 4;
const PREFERRED_2G = [1, 6, 11];

/** Weight of each candidate primary for an AP of `width`: Σ weight of overlapping occupants. */
export function candidateWeights(band: Band, width: ChannelWidth, candidates: readonly number[], occupants: readonly Occupant[]): number[] {
  return candidates.map((c) => {
    let w = 0;
    if (band === '2G') {
      for (const o of occupants) if (o.covered.some((x) => Math.abs(x - c) <= OVERLAP_2G)) w += o.weight;
      return w;
    }
    const block = blockOf(band, c, width)?.channels ?? [c];
    for (const o of occupants) if (o.covered.some((x) => block.includes(x))) w += o.weight;
    return w;
  });
}

/**
 * H8 with hysteresis: a single candidate wins (that is how constraints win); an AP keeps its
 * current channel when it is free or no candidate is strictly less occupied (no churn);
 * otherwise a random free channel (2.4 GHz prefers 1/6/11, 6 GHz prefers PSC channels), else
 * the least occupied, lowest channel first.
 */
export function chooseChannel(
  band: Band, candidates: readonly number[], weights: readonly number[], current: number | undefined, rng: Rng,
): number {
  if (candidates.length === 1) return candidates[0]!;
  const ci = current === undefined ? -1 : candidates.indexOf(current);
  const min = Math.min(...weights);
  if (ci >= 0 && weights[ci] === min) return current!;
  const free = candidates.filter((_, i) => weights[i] === 0);
  if (free.length > 0) {
    const preferred = band === '2G' ? free.filter((c) => PREFERRED_2G.includes(c))
      : band === '6G' ? free.filter(is6GhzPsc) : [];
    return pick(rng, preferred.length > 0 ? preferred : free);
  }
  return candidates[weights.indexOf(min)]!;
}
