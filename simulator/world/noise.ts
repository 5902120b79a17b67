/**
 * Thermal noise floor: -174 dBm/Hz + 10 log10(B) + receiver noise figure (docs/upstream.md#radio-physics:
 * 20 MHz -> -101 dBm thermal; with NF 5-7 dB -> -96...-94 dBm; each doubling of width adds 3 dB).
 * NF = 5 dB here, so 20/40/80/160 MHz give about -96/-93/-90/-87 dBm.
 */
export const THERMAL_DBM_PER_HZ = -174;
export const NOISE_FIGURE_DB = 5;

export function noiseFloorDbm(widthMHz: number, noiseFigureDb = NOISE_FIGURE_DB): number {
  return THERMAL_DBM_PER_HZ + 10 * Math.log10(widthMHz * 1e6) + noiseFigureDb;
}

/** Power sum of dBm values (linear mW addition), e.g. noise plus interference. */
export function sumDbm(values: readonly number[]): number {
  let mw = 0;
  for (const v of values) mw += 10 ** (v / 10);
  return mw > 0 ? 10 * Math.log10(mw) : -Infinity;
}
