/**
 * Wi-Fi scan results as the fw reports them (`cmd_wifiscan.uc`, docs/upstream.md#wifi-scan-results):
 * one entry per BSS heard, with signal from the one path-loss function and the
 * transmitter's current tx power, so RRM's power control sees its changes dB for dB.
 * `ht_oper`/`vht_oper` are the base64 element bodies RRM decodes for the width
 * (docs/upstream.md#wifi-scan-results): HT byte1 carries the secondary offset (1 above, 3 below) and the
 * STA channel width bit (0x04) for >= 40 MHz; VHT byte0 = 1 for 80/160 MHz, byte1 = CCFS0 (the
 * 80 MHz segment centre), byte2 = CCFS1 (the 160 MHz centre, |CCFS0 - CCFS1| = 8, or 0).
 * 2.4 GHz BSSs carry HT only. 6 GHz BSSs carry neither: their width is in the HE Operation
 * element's 6 GHz Operation Information, reported like any other element in `ies[]` (type 255,
 * the body starting with the extension id 36).
 */
import { HE_OPERATION_EXT_ID, IE_EXTENSION, type WifiScanEntry } from '../../src/protocol/wifiscan.js';
import { blockOf, secondaryOffset, type Band, type ChannelWidth } from '../../src/protocol/wifi-channels.js';
import { frequencyTermDb } from '../world/radio-world.js';
import { radioFrequency, type SimNeighbour, type Venue } from '../venue.js';
import type { SimAp, SimRadio } from './ap-state.js';

/**
 * Weakest beacon a scan reports: 802.11ax MCS0 minimum sensitivity at 20 MHz is -82 dBm and
 * real receivers decode about 5 dB better (docs/upstream.md#radio-physics), so -87 dBm.
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

/**
 * A BSS within reach of a scanning AP's reading (its true signal no more than FAR_MARGIN_DB under
 * sensitivity), with what does not change until a radio of the venue changes: who sends it,
 * where, how loud. Load, station count and TSF are read when the scan runs.
 */
interface Beacon {
  bssid: string; ssid: string; band: Band; channel: number; width: ChannelWidth; frequency: number;
  /** dBm, before the reading noise. */
  signal: number;
  capability: number; ht: string | undefined; vht: string | undefined;
  /** The managed AP sending it (undefined for a neighbour), and which of its radio's SSIDs. */
  ap: SimAp | undefined; radio: SimRadio | undefined; ssidIndex: number;
  neighbour: SimNeighbour | undefined;
}

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

/** Per scanning AP, its beacons in reach for one radio epoch (radios move only on a configure). */
const inReach = new WeakMap<SimAp, { epoch: number; beacons: Beacon[] }>();

/**
 * The BSSs the AP's running radios can hear, managed APs in venue order then neighbours (down
 * or not: that is checked when the scan runs). Those further away cannot reach a scan whatever
 * the reading noise, and draw no noise.
 */
function beaconsInReach(v: Venue, ap: SimAp): Beacon[] {
  const known = inReach.get(ap);
  if (known && known.epoch === v.radioEpoch) return known.beacons;
  const scanChannels = new Map(ap.radios.filter((r) => r.enabled).map((r) => [r.band, r.hwChannels]));
  const floor = SCAN_SENSITIVITY_DBM - FAR_MARGIN_DB;
  const beacons: Beacon[] = [];
  // Every beacon gets every field, in one order: one object shape for the scan loop.
  const add = (bssid: string, ssid: string, tx: { band: Band; channel: number; width: ChannelWidth }, frequency: number, signal: number,
    from: { ap: SimAp; radio: SimRadio; ssidIndex: number } | SimNeighbour): void => {
    const op = operationsOf(tx.band, tx.channel, tx.width);
    const managed = 'radio' in from ? from : undefined;
    beacons.push({
      bssid, ssid, band: tx.band, channel: tx.channel, width: tx.width, frequency, signal,
      capability: tx.band === '2G' ? 0x0431 : 0x0411, // ESS, privacy, short slot (+ short preamble on 2.4 GHz)
      ht: op.ht, vht: op.vht, ap: managed?.ap, radio: managed?.radio, ssidIndex: managed?.ssidIndex ?? 0,
      neighbour: managed ? undefined : (from as SimNeighbour),
    });
  };
  for (const other of v.aps) {
    if (other === ap) continue;
    for (const r of other.radios) {
      if (!r.enabled || !(scanChannels.get(r.band)?.includes(r.channel) ?? false)) continue;
      const frequency = radioFrequency(r);
      const fTerm = frequencyTermDb(frequency);
      if (r.txPower - v.losses.lowerBound(ap.index, other.index) - fTerm < floor) continue;
      const signal = r.txPower - v.losses.geometric(ap.index, other.index) - fTerm;
      if (signal < floor) continue;
      r.bssids.forEach((bssid, i) => add(bssid, r.ssids[i]!, r, frequency, signal, { ap: other, radio: r, ssidIndex: i }));
    }
  }
  for (const n of v.neighbours) {
    if (!(scanChannels.get(n.band)?.includes(n.channel) ?? false)) continue;
    const frequency = radioFrequency(n);
    const signal = n.txPower - v.losses.geometric(ap.index, n.index) - frequencyTermDb(frequency);
    if (signal >= floor) add(n.bssid, n.ssid, n, frequency, signal, n);
  }
  inReach.set(ap, { epoch: v.radioEpoch, beacons });
  return beacons;
}

/** Stations per SSID of a radio, counted once per scan. */
function stationCounts(r: SimRadio, counts: Map<SimRadio, number[]>): number[] {
  let n = counts.get(r);
  if (!n) {
    n = r.bssids.map(() => 0);
    for (const c of r.stations) n[c.ssidIndex]!++;
    counts.set(r, n);
  }
  return n;
}

/**
 * Every BSS the AP hears right now, on the bands of its running radios and the selected
 * bands/channels. `verbose` adds TSF, capability and the HT/VHT operation; `withIes` the
 * `ies[]` list (BSS load, and the HE operation of 6 GHz BSSs).
 */
export function scanEntries(v: Venue, ap: SimAp, sel: ScanSelector = {}, verbose = true, withIes = verbose): WifiScanEntry[] {
  const t = v.clock.now();
  const counts = new Map<SimRadio, number[]>();
  const out: WifiScanEntry[] = [];
  for (const b of beaconsInReach(v, ap)) {
    if ((b.ap && !b.ap.up) || (sel.bands && !sel.bands.includes(b.band)) || (sel.channels && !sel.channels.includes(b.channel))) continue;
    // Measurement noise of one beacon reading: +-1 dB, reported as integer dBm like RRM reads it.
    const signal = Math.round(b.signal + ap.rng.normal());
    if (signal < SCAN_SENSITIVITY_DBM) continue;
    const r = b.radio;
    const n = b.neighbour;
    const staCount = r ? stationCounts(r, counts)[b.ssidIndex]! : Math.round(n!.load * 20);
    const util = r ? Math.round(Math.min(1, r.airtime + 0.02) * 255) : Math.round(n!.load * 255);
    const e: WifiScanEntry = { bssid: b.bssid, ssid: b.ssid, frequency: b.frequency, channel: b.channel, signal, sta_count: staCount, ch_util: util };
    if (verbose) {
      e.last_seen = ap.rng.int(0, 400);
      e.tsf = Math.max(0, Math.round((t - (b.ap ?? n!).bootAt) * 1000));
      e.capability = b.capability;
      if (b.ht) e.ht_oper = b.ht;
      if (b.vht) e.vht_oper = b.vht;
      if (b.ap) e.tip_serial = b.ap.serial;
    }
    if (withIes) {
      e.ies = [{ type: 11, data: bssLoad(staCount, util) }];
      if (b.band === '6G') e.ies.push({ type: IE_EXTENSION, data: heOperation6g(b.channel, b.width) });
    }
    out.push(e);
  }
  return out;
}
