/**
 * `measure_ap_ap` TPC, the default (docs/upstream.md#rrm-algorithms, #rrms-radio-constants): move
 * each radio's power so that the n-th weakest managed neighbour hears it at `coverageThreshold`
 * (default −70 dBm): new = current + (threshold − rssi), clamped and snapped to the allowed powers;
 * no neighbour hears it -> maximum. Fixes (docs/rrm.md): the result is always an allowed power;
 * SSIDs on every interface count; SSIDs without BSSID or radio ref are skipped, not fatal; all
 * BSSIDs of a radio pool their RSSIs (one value per hearing AP, its strongest) instead of "last
 * SSID wins"; only scans of the radio's band count; an empty scan list cannot crash.
 */
import { zoneView } from '../model/view.js';
import { setPlan, snapPower, sortedPlan, apTxChoices, type AlgorithmInput, type Plan } from './common.js';
import { tpcGroups } from './tpc-groups.js';

export interface MeasureApApArgs { coverageThreshold: number; nthSmallestRssi: number }

/** computeTxPower with the upstream formula, clamped then snapped (never outside `choices`). */
export function apApPower(current: number, rssis: readonly number[], threshold: number, nth: number, choices: readonly number[]): number {
  const max = choices.at(-1)!;
  if (rssis.length === 0) return max;
  const sorted = [...rssis].sort((a, b) => a - b);
  const target = sorted[Math.min(sorted.length - 1, nth)]!;
  const wanted = Math.min(max, Math.max(choices[0]!, current + threshold - target));
  return snapPower(wanted, choices);
}

export function measureApAp(input: AlgorithmInput<MeasureApApArgs>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  // managed BSSID -> its band and, per hearing AP (index), the strongest signal
  const heard = new Map<string, { band: string; by: Map<number, number> }>();
  aps.forEach((other, i) => {
    for (const n of other.neighbours) {
      if (n.peer < 0 || n.peer === i) continue;
      let h = heard.get(n.bssid);
      if (!h) { h = { band: n.band, by: new Map() }; heard.set(n.bssid, h); }
      h.by.set(i, Math.max(h.by.get(i) ?? -Infinity, n.signal));
    }
  });
  const plan: Plan = {};
  for (const g of tpcGroups(aps)) {
    for (const { ap, radios } of g.members) {
      const choices = apTxChoices(input.configs.get(ap.serial), ap, g.band);
      if (choices.length === 0) continue;
      for (const r of radios) {
        if (r.txPower === undefined || r.bssids.length === 0) continue;
        const perAp = new Map<number, number>();
        for (const b of r.bssids) {
          const h = heard.get(b);
          if (!h || h.band !== g.band) continue;
          for (const [scanner, signal] of h.by) {
            if (aps[scanner] !== ap) perAp.set(scanner, Math.max(perAp.get(scanner) ?? -Infinity, signal));
          }
        }
        const value = apApPower(r.txPower, [...perAp.values()], input.args.coverageThreshold, input.args.nthSmallestRssi, choices);
        const prev = plan[ap.serial]?.[g.band];
        setPlan(plan, ap.serial, g.band, prev === undefined ? value : Math.max(prev, value));
      }
    }
  }
  return sortedPlan(plan);
}
