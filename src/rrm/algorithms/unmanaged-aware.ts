/**
 * `unmanaged_aware` channel optimizer, the default (reference §4.5): weight of a channel =
 * 2 × unmanaged neighbours + 1 × managed neighbours on it (W = D·N + M, D = 2).
 * Fixes and choices (docs/rrm.md):
 * - a managed neighbour counts at its channel in this run: its new channel once assigned, its
 *   current channel before that (upstream ignored it until assigned, §8 #6), once per AP;
 * - passes repeat (best response, at most MAX_PASSES) until no AP moves, so optimising an
 *   optimised zone changes nothing; a move needs a strictly better channel (hysteresis);
 * - candidates, de-duplication, order, seeded picks and the interference guard as in
 *   `least_used`.
 */
import { BANDS, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { zoneView, type ApView } from '../model/view.js';
import { blockStart, channelCandidates, setPlan, sortedPlan, type AlgorithmInput, type Plan } from './common.js';
import {
  addOccupant, candidateBlocks, candidateIndex, candidateWeights, chooseChannel, type CandidateIndex, type Occupant,
} from './channel-choice.js';
import { harmlessMoves, managedLinks, slotCover, type LinkList, type Links, type Slot } from './interference-guard.js';

const UNMANAGED_WEIGHT = 2;
const MANAGED_WEIGHT = 1;
const MAX_PASSES = 8;

/** What does not change between passes, computed once per AP and band. */
interface Prepared {
  ap: ApView;
  user: number | undefined;
  candidates: number[];
  blocks: (readonly number[])[];
  index: CandidateIndex;
  /** Weights of the unmanaged neighbours: they do not move during the run. */
  base: number[];
  /** Serials of managed neighbours heard (once each), with the channels they were heard on. */
  managed: { serial: string; heard: readonly number[] }[];
}

export function unmanagedAware(input: AlgorithmInput<Record<string, never>>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  for (const band of BANDS) {
    const inBand = aps.filter((ap) => ap.radios.some((r) => r.band === band));
    const slots = new Map<string, Slot>();
    for (const ap of inBand) {
      const r = ap.radios.find((x) => x.band === band)!;
      slots.set(ap.serial, { channel: blockStart(band, r.channel, r.width), width: r.width });
    }
    const visit = inBand
      .filter((ap) => ap.scanned || input.configs.get(ap.serial)?.userChannels?.[band] !== undefined)
      .map((ap) => ({ ap, n: ap.byBand[band]?.length ?? 0 }))
      .sort((a, b) => b.n - a.n || (a.ap.serial < b.ap.serial ? -1 : 1))
      .map((v) => prepare(v.ap, band, slots.get(v.ap.serial)!.width, aps, input))
      .filter((p): p is Prepared => p !== undefined);
    const covered = slotCover(band);
    let links: Links | undefined; // only needed when an AP wants to move
    const linksOf = (serial: string) => (links ??= managedLinks(aps, band)).get(serial);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      let moved = false;
      for (const p of visit) {
        const slot = slots.get(p.ap.serial)!;
        const next = p.user ?? decide(p, band, slot, slots, covered, linksOf, input);
        if (next !== slot.channel) { moved = true; slot.channel = next; }
      }
      if (!moved) break;
    }
    for (const p of visit) setPlan(plan, p.ap.serial, band, slots.get(p.ap.serial)!.channel);
  }
  return sortedPlan(plan);
}

function prepare(
  ap: ApView, band: Band, width: ChannelWidth, aps: readonly ApView[], input: AlgorithmInput<Record<string, never>>,
): Prepared | undefined {
  const cfg = input.configs.get(ap.serial);
  const user = cfg?.userChannels?.[band];
  const candidates = user !== undefined ? [user] : channelCandidates(ap, band, width, cfg);
  if (candidates.length === 0) return undefined;
  const unmanaged: Occupant[] = [];
  const heard = new Map<string, readonly number[]>();
  for (const n of ap.byBand[band] ?? []) {
    if (n.peer < 0) { unmanaged.push({ covered: n.covered, weight: UNMANAGED_WEIGHT }); continue; }
    const serial = aps[n.peer]!.serial;
    if (serial !== ap.serial && !heard.has(serial)) heard.set(serial, n.covered);
  }
  const blocks = candidateBlocks(band, width, candidates);
  return {
    ap, user, candidates, blocks, index: candidateIndex(band, candidates, blocks),
    base: candidateWeights(band, width, candidates, unmanaged, blocks),
    managed: [...heard].map(([serial, h]) => ({ serial, heard: h })),
  };
}

/** A managed neighbour counts at its slot in this run (its current channel until it moves). */
function decide(
  p: Prepared, band: Band, own: Slot, slots: Map<string, Slot>, covered: (s: Slot) => readonly number[],
  linksOf: (serial: string) => LinkList | undefined, input: AlgorithmInput<Record<string, never>>,
): number {
  const weights = p.base.slice();
  const stamp = new Array<number>(weights.length).fill(-1);
  p.managed.forEach((m, k) => {
    const slot = slots.get(m.serial);
    addOccupant(p.index, weights, stamp, k, slot ? covered(slot) : m.heard, MANAGED_WEIGHT);
  });
  const harmless = () => harmlessMoves(band, linksOf(p.ap.serial), p.candidates, p.blocks, own.channel, slots, covered);
  return chooseChannel(band, p.candidates, weights, own.channel, input.rng, harmless);
}
