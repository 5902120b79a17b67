/**
 * "Do no harm" for the channel optimizers (issue 7 §7: after a channel optimisation the zone's
 * total co-channel interference — over pairs of managed APs on overlapping channels, the
 * received power above −82 dBm, in mW — must not rise). Upstream weighs neighbours by count,
 * which can move an AP next to a louder AP; here a move is only allowed when, given the channels
 * of the other managed APs at that moment of the run, it does not raise that sum as estimated
 * from the scans. A move forced by constraints (the current channel is not a candidate, e.g. a
 * DFS channel allowedChannels does not list) goes to the least interfering candidates. Every
 * other move is non-increasing, so the whole run is.
 */
import { blockOf, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import type { ApView } from '../model/view.js';
import { candidateWeights, type Occupant } from './channel-choice.js';

/** CCA level the interference metric starts at. */
export const CCI_THRESHOLD_DBM = -82;

export interface Slot { channel: number; width: ChannelWidth }

/** Per AP: managed peers and the pair weight (mW heard in both directions above the threshold). */
export type LinkList = { serial: string; mw: number }[];
export type Links = Map<string, LinkList>;

export function managedLinks(aps: readonly ApView[], band: Band): Links {
  // Pairs keyed by index (i * n + j, i < j): no string keys on the hot path.
  const n = aps.length;
  const pair = new Map<number, number>();
  aps.forEach((ap, i) => {
    const loudest = new Map<number, number>();
    for (const nb of ap.byBand[band] ?? []) {
      if (nb.signal <= CCI_THRESHOLD_DBM) continue;
      const j = nb.peer;
      if (j < 0 || j === i) continue;
      loudest.set(j, Math.max(loudest.get(j) ?? -Infinity, nb.signal));
    }
    for (const [j, dbm] of loudest) {
      const key = i < j ? i * n + j : j * n + i;
      pair.set(key, (pair.get(key) ?? 0) + 10 ** (dbm / 10));
    }
  });
  const out: Links = new Map();
  const push = (a: number, b: number, mw: number) => {
    const s = aps[a]!.serial;
    let l = out.get(s);
    if (!l) { l = []; out.set(s, l); }
    l.push({ serial: aps[b]!.serial, mw });
  };
  for (const [key, mw] of pair) {
    const i = Math.floor(key / n);
    const j = key % n;
    push(i, j, mw);
    push(j, i, mw);
  }
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

/**
 * Which candidates the AP may move to: those whose interference with its managed peers (at
 * their slots now) is not above the current channel's. When the current channel is not a
 * candidate (a move forced by constraints), the candidates with the least interference.
 */
export function harmlessMoves(
  band: Band, width: ChannelWidth, links: Readonly<LinkList> | undefined,
  candidates: readonly number[], blocks: readonly (readonly number[])[], current: number,
  slots: ReadonlyMap<string, Slot>, cover: (s: Slot) => readonly number[],
): boolean[] {
  if (!links || links.length === 0) return candidates.map(() => true);
  const occupants: Occupant[] = [];
  for (const l of links) {
    const slot = slots.get(l.serial);
    if (slot) occupants.push({ covered: cover(slot), weight: l.mw });
  }
  const cost = candidateWeights(band, width, candidates, occupants, blocks, true);
  const ci = candidates.indexOf(current);
  const limit = ci >= 0 ? cost[ci]! : Math.min(...cost);
  return cost.map((c) => c <= limit * (1 + 1e-12));
}
