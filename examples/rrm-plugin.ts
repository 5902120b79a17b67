/**
 * An example RRM plug-in (docs/rrm.md "Your own optimizer"): every radio goes to the candidate
 * channel its latest scan shows quietest, summing what it hears there in mW.
 *   airtwin serve --sim --rrm-plugin examples/rrm-plugin.ts
 *   curl ... '/api/v1/optimizeChannel?mode=quietest&zone=lab&dry_run=true'
 */
import { channelCandidates, setPlan, sortedPlan, type AlgorithmInput, type Plan } from '../src/rrm/algorithms/common.js';
import type { RrmOptimizer } from '../src/rrm/algorithms/plugin.js';
import { zoneView } from '../src/rrm/model/view.js';
import { coveredChannels, spectrumOverlaps } from '../src/rrm/score/cci.js';

export const optimizer: RrmOptimizer = {
  name: 'quietest',
  algorithm: 'OptimizeChannel',
  description: 'each radio on the candidate channel where its scan hears the least, in mW',
  run(input: AlgorithmInput<Record<string, boolean | number>>): Plan {
    const plan: Plan = {};
    for (const ap of zoneView(input.model, input.zone.serials).aps) {
      if (!ap.scanned) continue;
      const cfg = input.configs.get(ap.serial);
      for (const r of ap.radios) {
        const user = cfg?.userChannels?.[r.band];
        const candidates = user !== undefined && user !== null ? [user] : channelCandidates(ap, r.band, r.width, cfg);
        let best: number | undefined;
        let least = Infinity;
        for (const c of candidates) {
          const heard = (ap.byBand[r.band] ?? []).filter((n) => spectrumOverlaps(r.band, coveredChannels(r.band, c, r.width), n.covered))
            .reduce((s, n) => s + 10 ** (n.signal / 10), 0);
          if (heard < least) { least = heard; best = c; }
        }
        if (best !== undefined) setPlan(plan, ap.serial, r.band, best);
      }
    }
    return sortedPlan(plan);
  },
};
