/**
 * Path loss: IEEE 802.11ax (TGax) enterprise indoor model, doc IEEE 802.11-14/0980r16
 * (docs/upstream.md#radio-physics; also ml4wifi-devs/mapc-optimal `utils.py`):
 *
 *   PL(d) = 40.05 + 20 log10(fc / 2.4 GHz) + 20 log10(min(d, dBP))
 *           + [d > dBP] 35 log10(d / dBP) + wall and floor loss,   dBP = 10 m, d >= 1 m
 *
 * The wall term is the venue's own walls (geometry.ts) rather than TGax's flat 7 dB x walls.
 * One function serves AP->AP (scan `signal`) and AP->client (`rssi`), so the two
 * agree and RRM's power control sees a transmitter's change dB for dB.
 */
export const TGAX_ENTERPRISE = { constantDb: 40.05, breakpointM: 10, nearExponent: 2, farExponent: 3.5 } as const;

/** Distance-and-frequency part of the loss, in dB (positive). */
export function tgaxEnterpriseDb(distanceM: number, frequencyMHz: number): number {
  const d = distanceM < 1 ? 1 : distanceM;
  const { constantDb, breakpointM, nearExponent, farExponent } = TGAX_ENTERPRISE;
  let pl = constantDb + 20 * Math.log10(frequencyMHz / 2400) + 10 * nearExponent * Math.log10(Math.min(d, breakpointM));
  if (d > breakpointM) pl += 10 * farExponent * Math.log10(d / breakpointM);
  return pl;
}

/** Received power in dBm: tx power plus antenna gains minus the total loss. */
export function receivedDbm(txPowerDbm: number, lossDb: number, antennaGainsDb = 0): number {
  return txPowerDbm + antennaGainsDb - lossDb;
}
