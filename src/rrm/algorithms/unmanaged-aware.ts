/**
 * `unmanaged_aware` channel optimizer, the default (reference §4.5): weight of a channel =
 * 2 × unmanaged neighbours + 1 × managed neighbours on it (W = D·N + M, D = 2).
 * Fixes and choices (docs/rrm.md):
 * - a managed neighbour counts at its channel in this run: its new channel once assigned, its
 *   current channel before that (upstream ignored it until assigned, §8 #6), once per AP;
 * - passes repeat (best response, at most MAX_PASSES) until no AP moves, so optimising an
 *   optimised zone changes nothing; a move needs a strictly better channel (hysteresis);
 * - candidates, de-duplication, order and seeded picks as in `least_used`.
 */
import { BANDS, blockOf, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { zoneView, type ApView } from '../model/view.js';
import { blockStart, channelCandidates, setPlan, sortedPlan, type AlgorithmInput, type Plan } from './common.js';
import { candidateWeights, chooseChannel, type Occupant } from './channel-choice.js';

const UNMANAGED_WEIGHT = 2;
const MANAGED_WEIGHT = 1;
const MAX_PASSES = 8;

interface Slot { channel: number; width: ChannelWidth }

export function unmanagedAware(input: AlgorithmInput<Record<string, never>>): Plan {
  const { aps, managed } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  for (const band of BANDS) {
    const inBand = aps.filter((ap) => ap.radios.some((r) => r.band === band));
    const slots = new Map<string, Slot>();
    for (const ap of inBand) {
      const r = ap.radios.find((x) => x.band === band)!;
      slots.set(ap.serial, { channel: blockStart(band, r.channel, r.width), width: r.width });
    }
    const visit = inBand
      .filter((ap) => ap.scanned)
      .map((ap) => ({ ap, n: ap.neighbours.filter((x) => x.band === band).length }))
      .sort((a, b) => b.n - a.n || (a.ap.serial < b.ap.serial ? -1 : 1))
      .map((v) => v.ap);
    const decided = new Set<string>();
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      let moved = false;
      for (const ap of visit) {
        const next = decide(ap, band, slots, managed, input);
        if (next === undefined) continue;
        decided.add(ap.serial);
        const slot = slots.get(ap.serial)!;
        if (next !== slot.channel) { moved = true; slot.channel = next; }
      }
      if (!moved) break;
    }
    for (const s of decided) setPlan(plan, s, band, slots.get(s)!.channel);
  }
  return sortedPlan(plan);
}

function decide(
  ap: ApView, band: Band, slots: Map<string, Slot>, managed: Map<string, string>, input: AlgorithmInput<Record<string, never>>,
): number | undefined {
  const cfg = input.configs.get(ap.serial);
  const user = cfg?.userChannels?.[band];
  if (user !== undefined) return user;
  const own = slots.get(ap.serial)!;
  const candidates = channelCandidates(ap, band, own.width, cfg);
  if (candidates.length === 0) return undefined;
  const occupants: Occupant[] = [];
  const seen = new Set<string>();
  for (const n of ap.neighbours) {
    if (n.band !== band) continue;
    const serial = managed.get(n.bssid);
    if (serial === undefined) { occupants.push({ covered: n.covered, weight: UNMANAGED_WEIGHT }); continue; }
    if (serial === ap.serial || seen.has(serial)) continue;
    seen.add(serial);
    const slot = slots.get(serial);
    const covered = slot ? blockOf(band, slot.channel, slot.width)?.channels ?? [slot.channel] : n.covered;
    occupants.push({ covered, weight: MANAGED_WEIGHT });
  }
  const weights = candidateWeights(band, own.width, candidates, occupants);
  return chooseChannel(band, candidates, weights, own.channel, input.rng);
}
