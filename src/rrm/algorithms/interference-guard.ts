/**
 * "Do no harm" for the channel optimizers: after a channel optimisation the zone's co-channel
 * interference (the objective, src/rrm/score/cci.ts: managed pairs and unmanaged BSSIDs heard
 * above −82 dBm on overlapping spectrum, 2.4 GHz partial overlap included, in mW) must not
 * rise as estimated from the scans. Upstream weighs neighbours by count,
 * which can move an AP next to a louder AP; here a move is only allowed when, given the channels
 * of the other managed APs at that moment of the run, it does not raise that sum as estimated
 * from the scans. A move forced by constraints (the current channel is not a candidate, e.g. a
 * DFS channel allowedChannels does not list) goes to the least interfering candidates. Every
 * other move is non-increasing, so the whole run is.
 */
import { blockOf, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import type { ApView } from '../model/view.js';
import { addOccupant, candidateIndex } from './channel-choice.js';

/** CCA level the interference metric starts at. */
export const CCI_THRESHOLD_DBM = -82;

export interface Slot { channel: number; width: ChannelWidth }

/** Per AP: managed peers and the pair weight (mW heard in both directions above the threshold). */
export type LinkList = { serial: string; mw: number }[];
export type Links = Map<string, LinkList>;

export function managedLinks(aps: readonly ApView[], band: Band): Links {
  // Index-based with scratch arrays: no per-pair maps or string keys on the hot path.
  const n = aps.length;
  const loud = new Float64Array(n).fill(-Infinity);
  const edges: number[][] = aps.map(() => []); // per AP: peer, mW, peer, mW, ...
  aps.forEach((ap, i) => {
    const touched: number[] = [];
    for (const nb of ap.byBand[band] ?? []) {
      const j = nb.peer;
      if (j < 0 || j === i || nb.signal <= CCI_THRESHOLD_DBM) continue;
      if (loud[j] === -Infinity) touched.push(j);
      if (nb.signal > loud[j]!) loud[j] = nb.signal;
    }
    for (const j of touched) {
      const mw = 10 ** (loud[j]! / 10);
      edges[i]!.push(j, mw);
      edges[j]!.push(i, mw);
      loud[j] = -Infinity;
    }
  });
  const sum = new Float64Array(n);
  const out: Links = new Map();
  edges.forEach((e, i) => {
    if (e.length === 0) return;
    const touched: number[] = [];
    for (let k = 0; k < e.length; k += 2) {
      const j = e[k]!;
      if (sum[j] === 0) touched.push(j);
      sum[j]! += e[k + 1]!;
    }
    out.set(aps[i]!.serial, touched.map((j) => { const mw = sum[j]!; sum[j] = 0; return { serial: aps[j]!.serial, mw }; }));
  });
  return out;
}

/** Memoised 20 MHz channels of a slot. */
export function slotCover(band: Band): (s: Slot) => readonly number[] {
  const memo = new Map<number, readonly number[]>();
  return (s) => {
    const key = s.channel * 1000 + s.width;
    let c = memo.get(key);
    if (!c) { c = blockOf(band, s.channel, band === '2G' ? 20 : s.width)?.channels ?? [s.channel]; memo.set(key, c); }
    return c;
  };
}

/** An unmanaged BSSID the AP hears above the threshold: where it sits and how loud (mW). */
export interface LoudUnmanaged { covered: readonly number[]; mw: number }

/** The unmanaged BSSIDs an AP hears above the threshold in a band. */
export function loudUnmanaged(ap: ApView, band: Band): LoudUnmanaged[] {
  return (ap.byBand[band] ?? []).filter((n) => n.peer < 0 && n.signal > CCI_THRESHOLD_DBM)
    .map((n) => ({ covered: n.covered, mw: 10 ** (n.signal / 10) }));
}

/**
 * Per candidate, the co-channel interference the AP takes part in on it (the objective's terms
 * that involve it, docs/rrm.md): managed peers at their slots now, both directions, plus the
 * unmanaged BSSIDs it hears, each counted on spectrum that overlaps (2.4 GHz: less than 5 apart).
 */
export function interferenceCost(
  band: Band, links: Readonly<LinkList> | undefined, unmanaged: readonly LoudUnmanaged[],
  candidates: readonly number[], blocks: readonly (readonly number[])[],
  slots: ReadonlyMap<string, Slot>, cover: (s: Slot) => readonly number[],
): number[] {
  const index = candidateIndex(band, candidates, blocks);
  const cost = new Array<number>(candidates.length).fill(0);
  const stamp = new Array<number>(candidates.length).fill(-1);
  let k = 0;
  for (const l of links ?? []) {
    const slot = slots.get(l.serial);
    if (slot) addOccupant(index, cost, stamp, k, cover(slot), l.mw);
    k++;
  }
  for (const u of unmanaged) addOccupant(index, cost, stamp, k++, u.covered, u.mw);
  return cost;
}

/**
 * Which candidates the AP may move to: those whose interference (interferenceCost) is not above
 * the current channel's. When the current channel is not a candidate (a move forced by
 * constraints), the candidates with the least interference.
 */
export function harmlessMoves(cost: readonly number[], candidates: readonly number[], current: number): boolean[] {
  const ci = candidates.indexOf(current);
  const limit = ci >= 0 ? cost[ci]! : Math.min(...cost);
  return cost.map((c) => c <= limit * (1 + 1e-12));
}
