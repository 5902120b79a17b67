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
export type Links = Map<string, { serial: string; mw: number }[]>;

export function managedLinks(aps: readonly ApView[], managed: ReadonlyMap<string, string>, band: Band): Links {
  const pair = new Map<string, Map<string, number>>();
  const add = (a: string, b: string, mw: number) => {
    let m = pair.get(a);
    if (!m) { m = new Map(); pair.set(a, m); }
    m.set(b, (m.get(b) ?? 0) + mw);
  };
  for (const ap of aps) {
    const loudest = new Map<string, number>();
    for (const n of ap.neighbours) {
      if (n.band !== band || n.signal <= CCI_THRESHOLD_DBM) continue;
      const peer = managed.get(n.bssid);
      if (peer === undefined || peer === ap.serial) continue;
      loudest.set(peer, Math.max(loudest.get(peer) ?? -Infinity, n.signal));
    }
    for (const [peer, dbm] of loudest) {
      const mw = 10 ** (dbm / 10);
      add(ap.serial, peer, mw);
      add(peer, ap.serial, mw);
    }
  }
  const out: Links = new Map();
  for (const [a, m] of pair) out.set(a, [...m].map(([serial, mw]) => ({ serial, mw })));
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
  band: Band, width: ChannelWidth, links: readonly { serial: string; mw: number }[] | undefined,
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
