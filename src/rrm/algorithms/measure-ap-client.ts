/**
 * `measure_ap_client` TPC (docs/upstream.md#rrm-algorithms, #rrms-radio-constants): the lowest
 * power that still gives the weakest client the SNR of `targetMcs` (default 8), lowering the MCS
 * when even the maximum cannot. Fixes (docs/rrm.md): clients are taken per radio (SSIDs pointing at
 * it), not across every band; a radio without clients keeps its current power (upstream dropped to
 * the minimum, a coverage hole); APs without usable radios get no entry; targetMcs is validated by
 * the registry (0..9).
 */
import { zoneView } from '../model/view.js';
import { setPlan, snapPower, sortedPlan, apTxChoices, type AlgorithmInput, type Plan } from './common.js';

export interface MeasureApClientArgs { targetMcs: number }

/** Minimum SNR (dB) per 802.11ac MCS 0..9. */
export const MCS_TO_SNR = [5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5] as const;
const NOISE_FIGURE_DB = 6;
const MARGIN_DB = 2;

/** Thermal noise power (dBm) over `widthMhz`: 10·log10(k·T·B·1000). */
export const noisePowerDbm = (widthMhz: number): number => 10 * Math.log10(1.38e-23 * 290 * widthMhz * 1e6 * 1000);

/** The power the weakest client needs, before snapping (docs/upstream.md#rrm-algorithms). */
export function clientTargetPower(current: number, minRssi: number, widthMhz: number, targetMcs: number, min: number, max: number): number {
  const np = noisePowerDbm(widthMhz);
  for (let mcs = targetMcs; mcs >= 0; mcs--) {
    const tx = Math.ceil(MCS_TO_SNR[mcs]! + current - minRssi + np + NOISE_FIGURE_DB - MARGIN_DB);
    if (tx <= max) return Math.max(tx, min);
  }
  return min;
}

export function measureApClient(input: AlgorithmInput<MeasureApClientArgs>): Plan {
  const { aps } = zoneView(input.model, input.zone.serials);
  const plan: Plan = {};
  for (const ap of aps) {
    const cfg = input.configs.get(ap.serial);
    for (const r of ap.radios) {
      const choices = apTxChoices(cfg, ap, r.band);
      if (choices.length === 0 || r.txPower === undefined) continue;
      const min = choices[0]!;
      const max = choices.at(-1)!;
      const value = r.clientRssis.length === 0
        ? snapPower(r.txPower, choices)
        : snapPower(clientTargetPower(r.txPower, Math.min(...r.clientRssis), r.width, input.args.targetMcs, min, max), choices);
      // Two radios in one band (e.g. two 5 GHz phys): the higher power, so neither loses clients.
      const prev = plan[ap.serial]?.[r.band];
      setPlan(plan, ap.serial, r.band, prev === undefined ? value : Math.max(prev, value));
    }
  }
  return sortedPlan(plan);
}
