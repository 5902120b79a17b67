/**
 * PHY rate from SNR.
 * Required SNR per MCS: OpenWiFi RRM's 802.11ac table (MeasurementBasedApClientTPC,
 * docs/upstream.md#rrms-radio-constants): MCS0..9 need 5, 7.5, 10, ... 27.5 dB (2.5 dB steps).
 * The SNR is measured against the radio's own noise floor (world/noise.ts), which already grows
 * 3 dB per doubling of width, so wide channels need more signal for the same MCS.
 * Data rates: IEEE 802.11-2020 VHT MCS tables (Mb/s, 1 spatial stream, 800 ns GI); HT MCS0-7
 * equals VHT MCS0-7 at 20/40 MHz. Short GI multiplies by 10/9 (e.g. HT20 MCS7 65 -> 72.2 Mb/s,
 * the rate seen in the real capture state-2-9).
 */
export const MCS_MIN_SNR_DB: readonly number[] = [5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5];

const RATE_MBPS: Readonly<Record<20 | 40 | 80 | 160, readonly number[]>> = {
  20: [6.5, 13, 19.5, 26, 39, 52, 58.5, 65, 78, 86.7],
  40: [13.5, 27, 40.5, 54, 81, 108, 121.5, 135, 162, 180],
  80: [29.3, 58.5, 87.8, 117, 175.5, 234, 263.3, 292.5, 351, 390],
  160: [58.5, 117, 175.5, 234, 351, 468, 526.5, 585, 702, 780],
};

export interface PhyRate {
  /** kbit/s, as the state's rx_rate/tx_rate `bitrate`. */
  bitrateKbps: number;
  mcs: number;
  nss: number;
  width: 20 | 40 | 80 | 160;
  sgi: boolean;
  /** 2.4 GHz clients speak HT (802.11n), 5 GHz VHT, 6 GHz HE. */
  mode: 'ht' | 'vht' | 'he';
}

/**
 * Best MCS the SNR supports. 2.4 GHz stops at MCS7 (HT). VHT20 MCS9 is not defined for 1-2
 * streams, so 20 MHz on 5 GHz stops at MCS8. Below MCS0's floor the link still runs at MCS0.
 */
export function phyRate(snrDb: number, width: 20 | 40 | 80 | 160, nss: number, band: '2G' | '5G' | '6G'): PhyRate {
  const maxMcs = band === '2G' ? 7 : width === 20 && band === '5G' ? 8 : 9;
  let mcs = 0;
  for (let m = maxMcs; m >= 0; m--) {
    if (snrDb >= MCS_MIN_SNR_DB[m]!) { mcs = m; break; }
  }
  const sgi = snrDb >= MCS_MIN_SNR_DB[mcs]! + 3; // short GI needs a little margin (multipath)
  const base = RATE_MBPS[width][mcs]! * nss * (sgi ? 10 / 9 : 1);
  return { bitrateKbps: Math.round(base * 10) * 100, mcs, nss, width, sgi, mode: band === '2G' ? 'ht' : band === '5G' ? 'vht' : 'he' };
}

/** The state document's rate object for a PhyRate (fw `station.uc` shape). */
export function rateObject(r: PhyRate): Record<string, unknown> {
  const o: Record<string, unknown> = { bitrate: r.bitrateKbps, chwidth: r.width };
  if (r.mode === 'ht') {
    o.ht = true;
    o.mcs = r.mcs + 8 * (r.nss - 1); // HT numbers MCS across streams (MCS15 = 2 streams, 64-QAM 5/6)
  } else {
    o[r.mode] = true;
    o.mcs = r.mcs;
    o.nss = r.nss;
  }
  if (r.sgi) o.sgi = true;
  return o;
}
