/**
 * `unmanaged_aware` channel optimizer, the default (docs/upstream.md#rrm-algorithms): weight of a
 * channel = 2 × unmanaged neighbours + 1 × managed neighbours on it (W = D·N + M, D = 2). Fixes and
 * choices (docs/rrm.md):
 * - a managed neighbour counts at its channel in this run: its new channel once assigned, its
 *   current channel before that (upstream ignored it until assigned, docs/rrm.md), once per AP;
 * - passes repeat (best response, at most MAX_PASSES) until no AP moves, so optimising an
 *   optimised zone changes nothing; a move needs a strictly better channel (hysteresis);
 * - candidates, de-duplication, order, seeded picks and the interference guard as in
 *   `least_used`.
 * The passes (`bestResponse`) are shared with `least_used`, which runs them with weight 1 for
 * every neighbour and keeps APs that are alone on their channel where they are.
 */
import { BANDS, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { zoneView, type ApView } from '../model/view.js';
import { blockStart, channelCandidates, setPlan, sortedPlan, type AlgorithmInput, type Plan } from './common.js';
import {
  addOccupant, candidateBlocks, candidateIndex, candidateWeights, chooseChannel, type CandidateIndex, type Occupant,
} from './channel-choice.js';
import {
  harmlessMoves, interferenceCost, loudUnmanaged, managedLinks, slotCover, type LinkList, type Links, type LoudUnmanaged, type Slot,
} from './interference-guard.js';

const MAX_PASSES = 8;

/** How a best-response run weighs neighbours, and whether APs alone on their channel stay. */
export interface BestResponseOptions {
  unmanagedWeight: number;
  managedWeight: number;
  /**
   * `least_used`: an AP whose scan shows its (candidate) channel free keeps it, and no AP that
   * such an AP hears may move onto that channel — else the next scans would show it crowded
   * and the next run would move it (churn).
   */
  keepAlone: boolean;
}

/** What does not change between passes, computed once per AP and band. */
interface Prepared {
  ap: ApView;
  /** A channel that wins whatever the neighbours do: the user channel, or kept because alone. */
  fixed: number | undefined;
  /** Kept because alone on its channel (`keepAlone`). */
  alone: boolean;
  candidates: number[];
  blocks: (readonly number[])[];
  index: CandidateIndex;
  /** Weights of what does not move during the run: unmanaged neighbours (and kept APs' bans). */
  base: number[];
  /** Serials of managed neighbours heard (once each), with the channels they were heard on. */
  managed: { serial: string; heard: readonly number[] }[];
  /** Unmanaged BSSIDs heard above the CCA threshold (the guard's and tie-break's interference). */
  loud: LoudUnmanaged[];
}

export function unmanagedAware(input: AlgorithmInput<Record<string, never>>): Plan {
  return bestResponse(input, { unmanagedWeight: 2, managedWeight: 1, keepAlone: false });
}

/**
 * Best-response passes over the zone, per band: APs in a fixed order (most neighbours first,
 * then serial), each counting managed neighbours at their slot in this run, until a pass moves
 * nobody or MAX_PASSES end. Every move is strictly better for the mover (hysteresis) and
 * allowed by the interference guard.
 */
export function bestResponse(input: AlgorithmInput<Record<string, never>>, opts: BestResponseOptions): Plan {
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
      // no scan, no decision (docs/upstream.md#rrm-algorithms), except that a user channel is
      // always reported
      .filter((ap) => ap.scanned || input.configs.get(ap.serial)?.userChannels?.[band] !== undefined)
      .map((ap) => ({ ap, n: ap.byBand[band]?.length ?? 0 }))
      .sort((a, b) => b.n - a.n || (a.ap.serial < b.ap.serial ? -1 : 1))
      .map((v) => prepare(v.ap, band, slots.get(v.ap.serial)!, aps, input, opts))
      .filter((p): p is Prepared => p !== undefined);
    if (opts.keepAlone) banAloneChannels(visit, band, slots);
    const covered = slotCover(band);
    let links: Links | undefined; // only needed when an AP wants to move
    const linksOf = (serial: string) => (links ??= managedLinks(aps, band)).get(serial);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      let moved = false;
      for (const p of visit) {
        const slot = slots.get(p.ap.serial)!;
        const next = p.fixed ?? decide(p, band, slot, slots, covered, linksOf, input, opts);
        if (next !== slot.channel) { moved = true; slot.channel = next; }
      }
      if (!moved) break;
    }
    for (const p of visit) setPlan(plan, p.ap.serial, band, slots.get(p.ap.serial)!.channel);
  }
  return sortedPlan(plan);
}

function prepare(
  ap: ApView, band: Band, slot: Slot, aps: readonly ApView[], input: AlgorithmInput<Record<string, never>>,
  opts: BestResponseOptions,
): Prepared | undefined {
  const width: ChannelWidth = slot.width;
  const cfg = input.configs.get(ap.serial);
  const user = cfg?.userChannels?.[band];
  const candidates = user !== undefined ? [user] : channelCandidates(ap, band, width, cfg);
  if (candidates.length === 0) return undefined;
  const unmanaged: Occupant[] = [];
  const heard = new Map<string, readonly number[]>();
  for (const n of ap.byBand[band] ?? []) {
    if (n.peer < 0) { unmanaged.push({ covered: n.covered, weight: opts.unmanagedWeight }); continue; }
    const serial = aps[n.peer]!.serial;
    if (serial !== ap.serial && !heard.has(serial)) heard.set(serial, n.covered);
  }
  const blocks = candidateBlocks(band, width, candidates);
  const index = candidateIndex(band, candidates, blocks);
  const base = candidateWeights(band, width, candidates, unmanaged, blocks);
  const managed = [...heard].map(([serial, h]) => ({ serial, heard: h }));
  // Alone = nothing in the scan (managed neighbours where they were heard) overlaps the
  // current channel, which is a candidate: such an AP never moves.
  const ci = candidates.indexOf(slot.channel);
  const alone = user === undefined && opts.keepAlone && ci >= 0 && base[ci] === 0
    && !managed.some((m) => hits(index, ci, m.heard));
  return { ap, fixed: alone ? slot.channel : user, alone, candidates, blocks, index, base, managed, loud: loudUnmanaged(ap, band) };
}

const hits = (index: CandidateIndex, ci: number, covered: readonly number[]): boolean =>
  covered.some((ch) => index.get(ch)?.includes(ci) ?? false);

/**
 * `keepAlone`: a managed AP heard by a kept AP may not move onto the kept AP's channel (its
 * weight there is +∞), so the kept AP is still alone on the next scans. The ban only loses to
 * constraints (user channels; a forced move whose every candidate is banned).
 */
function banAloneChannels(visit: Prepared[], band: Band, slots: ReadonlyMap<string, Slot>): void {
  const bySerial = new Map(visit.map((p) => [p.ap.serial, p]));
  const cover = slotCover(band);
  for (const kept of visit) {
    if (!kept.alone) continue;
    const own = cover(slots.get(kept.ap.serial)!);
    for (const m of kept.managed) {
      const p = bySerial.get(m.serial);
      if (!p || p.fixed !== undefined) continue;
      const stamp = new Array<number>(p.base.length).fill(-1);
      // a 2.4 GHz candidate within ±4 of the kept channel would show in its window (symmetric)
      addOccupant(p.index, p.base, stamp, 0, own, Infinity);
    }
  }
}

/** A managed neighbour counts at its slot in this run (its current channel until it moves). */
function decide(
  p: Prepared, band: Band, own: Slot, slots: Map<string, Slot>, covered: (s: Slot) => readonly number[],
  linksOf: (serial: string) => LinkList | undefined, input: AlgorithmInput<Record<string, never>>,
  opts: BestResponseOptions,
): number {
  let weights = p.base.slice();
  const stamp = new Array<number>(weights.length).fill(-1);
  p.managed.forEach((m, k) => {
    const slot = slots.get(m.serial);
    addOccupant(p.index, weights, stamp, k, slot ? covered(slot) : m.heard, opts.managedWeight);
  });
  let { candidates, blocks } = p;
  // Banned channels (+∞, `keepAlone`) are dropped before the guard sees them: a move forced by
  // constraints would otherwise follow the guard onto a kept AP's channel, the kept AP would no
  // longer be alone on the next scans, and the next run would move it.
  const open = weights.flatMap((w, i) => (w !== Infinity || candidates[i] === own.channel ? [i] : []));
  if (open.length > 0 && open.length < candidates.length) {
    candidates = open.map((i) => p.candidates[i]!);
    blocks = open.map((i) => p.blocks[i]!);
    weights = open.map((i) => weights[i]!);
  }
  let cost: number[] | undefined;
  const loudness = () => (cost ??= interferenceCost(band, linksOf(p.ap.serial), p.loud, candidates, blocks, slots, covered));
  const harmless = () => harmlessMoves(loudness(), candidates, own.channel);
  return chooseChannel(band, candidates, weights, own.channel, input.rng, harmless, loudness);
}
