/**
 * Wi-Fi scan results as the fw reports them (`cmd_wifiscan.uc`, device-protocol-and-state.md
 * §3.2): one entry per BSS heard, with signal from the one path-loss function and the
 * transmitter's current tx power, so RRM's TPC sees its changes dB for dB (§8.2).
 * `ht_oper`/`vht_oper` are the base64 element bodies RRM decodes for the width
 * (rrm-behaviour.md §4.2 H1): HT byte1 carries the secondary offset (1 above, 3 below) and the
 * STA channel width bit (0x04) for >= 40 MHz; VHT byte0 = 1 for 80/160 MHz, byte1 = CCFS0 (the
 * 80 MHz segment centre), byte2 = CCFS1 (the 160 MHz centre, |CCFS0 - CCFS1| = 8, or 0).
 * 2.4 GHz BSSs carry HT only. 6 GHz BSSs carry neither: their width is in the HE Operation
 * element's 6 GHz Operation Information, reported like any other element in `ies[]` (type 255,
 * the body starting with the extension id 36).
 */
import { HE_OPERATION_EXT_ID, IE_EXTENSION, type WifiScanEntry } from '../../src/protocol/wifiscan.js';
import { blockOf, secondaryOffset, type Band, type ChannelWidth } from '../../src/protocol/wifi-channels.js';
import { frequencyTermDb } from '../world/radio-world.js';
import { radioFrequency, type Venue } from '../venue.js';
import type { SimAp } from './ap-state.js';

/**
 * Weakest beacon a scan reports: 802.11ax MCS0 minimum sensitivity at 20 MHz is -82 dBm and
 * real receivers decode about 5 dB better (field-anchors.md §4), so -87 dBm.
 */
export const SCAN_SENSITIVITY_DBM = -87;
/** dB below sensitivity beyond which no reading noise can lift a beacon into a scan. */
const FAR_MARGIN_DB = 10;

export function htOperation(band: Band, channel: number, width: ChannelWidth): string {
  const body = new Uint8Array(22);
  body[0] = channel;
  const off = secondaryOffset(band, channel, width);
  if (width >= 40 && off !== 'none') body[1] = (off === 'above' ? 1 : 3) | 0x04;
  body[2] = 0x04; // non-greenfield STAs present, as most real BSSs report
  body[6] = 0xff; body[7] = 0xff; // basic MCS set: MCS0-15
  return Buffer.from(body).toString('base64');
}

export function vhtOperation(band: Band, channel: number, width: ChannelWidth): string {
  const body = new Uint8Array(5);
  if (width >= 80) {
    body[0] = 1;
    body[1] = blockOf(band, channel, 80)?.centre ?? channel;
    body[2] = width === 160 ? blockOf(band, channel, 160)?.centre ?? 0 : 0;
  } else {
    body[1] = width === 40 ? blockOf(band, channel, 40)?.centre ?? channel : channel;
  }
  body[3] = 0xfa; body[4] = 0xff; // basic VHT-MCS/NSS map: MCS0-9 for 1-2 streams, others unsupported
  return Buffer.from(body).toString('base64');
}

/**
 * HE Operation element body (IE 255, extension id first) of a 6 GHz BSS: parameters with the
 * "6 GHz Operation Information present" bit (17) and RTS threshold disabled (1023), BSS colour,
 * basic HE-MCS/NSS set (MCS0-7 on one stream), then the 6 GHz Operation Information: primary
 * channel, control (width code 0/1/2/3 = 20/40/80/160 MHz), CCFS0 and CCFS1 (for 160 MHz the
 * primary 80 MHz segment's centre and the 160 MHz centre, as 802.11ax-2021 writes them) and
 * the minimum rate (6 Mb/s).
 */
export function heOperation6g(channel: number, width: ChannelWidth): string {
  const params = (1023 << 4) | (1 << 17);
  const code = width >= 160 ? 3 : width >= 80 ? 2 : width >= 40 ? 1 : 0;
  const centre = (w: ChannelWidth) => blockOf('6G', channel, w)?.centre ?? channel;
  const ccfs0 = width >= 160 ? centre(80) : width >= 40 ? centre(width) : channel;
  const ccfs1 = width >= 160 ? centre(160) : 0;
  return Buffer.from([
    HE_OPERATION_EXT_ID, params & 0xff, (params >> 8) & 0xff, (params >> 16) & 0xff,
    1 + (channel % 63), 0xfc, 0xff,
    channel, code, ccfs0, ccfs1, 6,
  ]).toString('base64');
}

/** BSS Load element body (IE 11): station count (LE16), utilisation (0-255), admission capacity. */
function bssLoad(staCount: number, util: number): string {
  return Buffer.from([staCount & 0xff, staCount >> 8, util, 0, 0]).toString('base64');
}

export interface ScanSelector { bands?: readonly string[]; channels?: readonly number[] }

/** One BSS as a scan reports it, before the reading noise: what the AP heard and from whom. */
interface Heard { bssid: string; ssid: string; band: Band; channel: number; width: ChannelWidth; frequency: number; signal: number; staCount: number; util: number; tsfUs: number; serial?: string }

/** ht_oper / vht_oper bodies depend on (band, channel, width) only: built once each. */
const operations = new Map<number, { ht?: string; vht?: string }>();
const BAND_KEY: Record<Band, number> = { '2G': 0, '5G': 1, '6G': 2 };
function operationsOf(band: Band, channel: number, width: ChannelWidth): { ht?: string; vht?: string } {
  const key = (BAND_KEY[band] * 256 + channel) * 256 + width;
  let o = operations.get(key);
  if (!o) {
    o = {};
    if (band !== '6G') o.ht = htOperation(band, channel, width);
    if (band === '5G') o.vht = vhtOperation(band, channel, width);
    operations.set(key, o);
  }
  return o;
}

/**
 * Every BSS the AP hears right now, on the bands of its running radios and the selected
 * bands/channels. `verbose` adds TSF, capability and the HT/VHT operation; `withIes` the
 * `ies[]` list (BSS load, and the HE operation of 6 GHz BSSs).
 */
export function scanEntries(v: Venue, ap: SimAp, sel: ScanSelector = {}, verbose = true, withIes = verbose): WifiScanEntry[] {
  const out: WifiScanEntry[] = [];
  for (const h of heardBss(v, ap, sel)) {
    // Measurement noise of one beacon reading: +-1 dB, reported as integer dBm like RRM reads it.
    const signal = Math.round(h.signal + ap.rng.normal());
    if (signal < SCAN_SENSITIVITY_DBM) continue;
    const e: WifiScanEntry = { bssid: h.bssid, ssid: h.ssid, frequency: h.frequency, channel: h.channel, signal, sta_count: h.staCount, ch_util: h.util };
    if (verbose) {
      e.last_seen = ap.rng.int(0, 400);
      e.tsf = Math.max(0, Math.round(h.tsfUs));
      e.capability = h.band === '2G' ? 0x0431 : 0x0411; // ESS, privacy, short slot (+ short preamble on 2.4)
      const op = operationsOf(h.band, h.channel, h.width);
      if (op.ht) e.ht_oper = op.ht;
      if (op.vht) e.vht_oper = op.vht;
      if (h.serial) e.tip_serial = h.serial;
    }
    if (withIes) {
      e.ies = [{ type: 11, data: bssLoad(h.staCount, h.util) }];
      if (h.band === '6G') e.ies.push({ type: IE_EXTENSION, data: heOperation6g(h.channel, h.width) });
    }
    out.push(e);
  }
  return out;
}

/**
 * The BSSs within reach of a reading (true signal no more than FAR_MARGIN_DB under
 * sensitivity), managed APs in venue order then neighbours. Those further away cannot reach
 * a scan whatever the reading noise, and draw no noise.
 */
function heardBss(v: Venue, ap: SimAp, sel: ScanSelector): Heard[] {
  const t = v.clock.now();
  const running = ap.radios.filter((r) => r.enabled);
  const bands = new Set(running.map((r) => r.band).filter((b) => !sel.bands || sel.bands.includes(b)));
  const scanChannels = new Map(running.map((r) => [r.band, r.hwChannels]));
  const consider = (band: Band, channel: number): boolean => bands.has(band)
    && (scanChannels.get(band)?.includes(channel) ?? false) && (!sel.channels || sel.channels.includes(channel));
  const floor = SCAN_SENSITIVITY_DBM - FAR_MARGIN_DB;
  const heard: Heard[] = [];
  for (const other of v.aps) {
    if (other === ap || !other.up) continue;
    for (const r of other.radios) {
      if (!r.enabled || !consider(r.band, r.channel)) continue;
      const frequency = radioFrequency(r);
      const fTerm = frequencyTermDb(frequency);
      if (r.txPower - v.losses.lowerBound(ap.index, other.index) - fTerm < floor) continue;
      const signal = r.txPower - v.losses.geometric(ap.index, other.index) - fTerm;
      if (signal < floor) continue;
      const util = Math.round(Math.min(1, r.airtime + 0.02) * 255);
      const staCount = r.bssids.map(() => 0);
      for (const c of r.stations) staCount[c.ssidIndex]!++;
      r.bssids.forEach((bssid, i) => heard.push({ bssid, ssid: r.ssids[i]!, band: r.band, channel: r.channel, width: r.width, frequency, signal, staCount: staCount[i]!, util, tsfUs: (t - other.bootAt) * 1000, serial: other.serial }));
    }
  }
  for (const n of v.neighbours) {
    if (!consider(n.band, n.channel)) continue;
    const frequency = radioFrequency(n);
    const signal = n.txPower - v.losses.geometric(ap.index, n.index) - frequencyTermDb(frequency);
    if (signal < floor) continue;
    heard.push({ bssid: n.bssid, ssid: n.ssid, band: n.band, channel: n.channel, width: n.width, frequency, signal, staCount: Math.round(n.load * 20), util: Math.round(n.load * 255), tsfUs: (t - n.bootAt) * 1000 });
  }
  return heard;
}
