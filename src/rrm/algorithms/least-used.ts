/**
 * `least_used` channel optimizer (reference §4.4): each AP, on its own, moves to a channel its
 * latest scan shows free, else to the least occupied one. Pure per-AP decisions: assignments of
 * other APs in this run are not considered (that is `unmanaged_aware`).
 * Fixes: candidates from capabilities/DFS/width/allowed (§8 #2, #3), neighbours de-duplicated
 * (§8 #4), deterministic order and seeded picks (§8 #5), hysteresis (no churn), and no move
 * that raises the zone's co-channel interference given the channels chosen so far
 * (interference-guard.ts).
 */
import { BANDS } from '../../protocol/wifi-channels.js';
import { zoneView } from '../model/view.js';
import { blockStart, channelCandidates, setPlan, sortedPlan, type AlgorithmInput, type Plan } from './common.js';
import { candidateBlocks, candidateWeights, chooseChannel } from './channel-choice.js';
import { harmlessMoves, managedLinks, slotCover, type Links, type Slot } from './interference-guard.js';

export function leastUsed(input: AlgorithmInput<Record<string, never>>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  for (const band of BANDS) {
    let links: Links | undefined; // only needed when an AP wants to move
    const linksOf = (serial: string) => (links ??= managedLinks(aps, band)).get(serial);
    const cover = slotCover(band);
    const slots = new Map<string, Slot>();
    for (const ap of aps) {
      const r = ap.radios.find((x) => x.band === band);
      if (r) slots.set(ap.serial, { channel: blockStart(band, r.channel, r.width), width: r.width });
    }
    const visit = aps
      // no scan, no decision (§4.10), except that a user channel is always reported
      .filter((ap) => ap.radios.some((r) => r.band === band)
        && (ap.scanned || input.configs.get(ap.serial)?.userChannels?.[band] !== undefined))
      .map((ap) => ({ ap, n: ap.byBand[band]?.length ?? 0 }))
      .sort((a, b) => b.n - a.n || (a.ap.serial < b.ap.serial ? -1 : 1));
    for (const { ap } of visit) {
      const cfg = input.configs.get(ap.serial);
      const user = cfg?.userChannels?.[band];
      if (user !== undefined) {
        setPlan(plan, ap.serial, band, user);
        slots.get(ap.serial)!.channel = user;
        continue;
      }
      const radio = ap.radios.find((r) => r.band === band)!;
      const candidates = channelCandidates(ap, band, radio.width, cfg);
      if (candidates.length === 0) continue;
      // every neighbour weighs 1 (Occupant.weight defaults to 1); an AP never counts itself
      const occupants = (ap.byBand[band] ?? []).filter((x) => x.peer < 0 || aps[x.peer] !== ap);
      const blocks = candidateBlocks(band, radio.width, candidates);
      const weights = candidateWeights(band, radio.width, candidates, occupants, blocks);
      const current = blockStart(band, radio.channel, radio.width);
      const harmless = () => harmlessMoves(band, linksOf(ap.serial), candidates, blocks, current, slots, cover);
      const next = chooseChannel(band, candidates, weights, current, input.rng, harmless);
      slots.get(ap.serial)!.channel = next;
      setPlan(plan, ap.serial, band, next);
    }
  }
  return sortedPlan(plan);
}
