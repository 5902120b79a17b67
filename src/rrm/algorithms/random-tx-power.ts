/**
 * `random` tx power initializer (docs/upstream.md#rrm-algorithms): one random power for every radio
 * of the zone, or one per AP and band with `setDifferentTxPowerPerAp=true`. Fixes (docs/rrm.md):
 * the shared power is drawn from the powers every AP allows (per-AP picks when they share none),
 * userTxPowers win, and a band whose constraints leave no power is left alone.
 */
import { zoneView } from '../model/view.js';
import { pick, setPlan, sortedPlan, apTxChoices, type AlgorithmInput, type Plan } from './common.js';
import { tpcGroups } from './tpc-groups.js';

export interface RandomTxPowerArgs { setDifferentTxPowerPerAp: boolean }

export function randomTxPower(input: AlgorithmInput<RandomTxPowerArgs>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  const slots: { serial: string; band: '2G' | '5G' | '6G'; choices: number[] }[] = [];
  const seen = new Set<string>();
  for (const g of tpcGroups(aps)) {
    for (const m of g.members) {
      const key = `${m.ap.serial}/${g.band}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const choices = apTxChoices(input.configs.get(m.ap.serial), m.ap, g.band);
      if (choices.length > 0) slots.push({ serial: m.ap.serial, band: g.band, choices });
    }
  }
  if (slots.length === 0) return plan;
  const free = slots.filter((s) => s.choices.length > 1);
  const shared = free.length === 0 ? [] : free.slice(1).reduce((acc, s) => acc.filter((p) => s.choices.includes(p)), free[0]!.choices);
  const common = !input.args.setDifferentTxPowerPerAp && shared.length > 0 ? pick(input.rng, shared) : undefined;
  for (const s of slots) {
    const value = s.choices.length === 1 ? s.choices[0]! : common ?? pick(input.rng, s.choices);
    setPlan(plan, s.serial, s.band, value);
  }
  return sortedPlan(plan);
}
