/**
 * `random` channel initializer (docs/upstream.md#rrm-algorithms): one random channel for the whole
 * band, or one per AP with `setDifferentChannelPerAp=true`. Fixes (docs/rrm.md): each AP's width,
 * capabilities, DFS and allowedChannels are respected, userChannels win, and the rng is drawn only
 * for APs that get an output. When the APs share no candidate, each gets its own random pick.
 */
import { BANDS } from '../../protocol/wifi-channels.js';
import { zoneView } from '../model/view.js';
import { channelCandidates, pick, setPlan, sortedPlan, type AlgorithmInput, type Plan } from './common.js';

export interface RandomChannelArgs { setDifferentChannelPerAp: boolean }

export function randomChannel(input: AlgorithmInput<RandomChannelArgs>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  const ordered = [...aps].sort((a, b) => (a.serial < b.serial ? -1 : 1));
  for (const band of BANDS) {
    const lists: { serial: string; candidates: number[] }[] = [];
    for (const ap of ordered) {
      const radio = ap.radios.find((r) => r.band === band);
      if (!radio) continue;
      const cfg = input.configs.get(ap.serial);
      const user = cfg?.userChannels?.[band];
      if (user !== undefined) { setPlan(plan, ap.serial, band, user); continue; }
      const candidates = channelCandidates(ap, band, radio.width, cfg);
      if (candidates.length > 0) lists.push({ serial: ap.serial, candidates });
    }
    if (lists.length === 0) continue;
    const shared = lists.slice(1).reduce((acc, l) => acc.filter((c) => l.candidates.includes(c)), lists[0]!.candidates);
    const common = !input.args.setDifferentChannelPerAp && shared.length > 0 ? pick(input.rng, shared) : undefined;
    for (const l of lists) setPlan(plan, l.serial, band, common ?? pick(input.rng, l.candidates));
  }
  return sortedPlan(plan);
}
