/**
 * A defensive, per-zone reading of the model for the optimizers: one pass that resolves bands,
 * widths, BSSIDs and neighbours, so the algorithms never touch raw documents and a missing field
 * drops one radio or entry instead of crashing (docs/rrm.md).
 */
import type { PhyCapabilities } from '../../protocol/capabilities.js';
import {
  blockOf, bandOfFrequency, frequencyToChannel, maxTxPowerDbm, type Band, type ChannelWidth,
} from '../../protocol/wifi-channels.js';
import { radioBand } from './band.js';
import { neighbourWidth } from './ie.js';
import type { RrmModel } from './types.js';

export interface ApRadio {
  /** Index in the state's `radios[]` (what `ssid.radio.$ref` points at). */
  index: number;
  band: Band;
  channel: number;
  width: ChannelWidth;
  txPower: number | undefined;
  /**
   * The most the radio can transmit on its channel (dBm): the configuration schema's 30, capped
   * by the regulatory limit of the AP's country on that channel (the AP clips anything above it).
   */
  maxTxPower: number;
  /** BSSIDs of the SSIDs served by this radio. */
  bssids: string[];
  /** RSSI (dBm) of the clients associated to those SSIDs. */
  clientRssis: number[];
}

export interface Neighbour {
  bssid: string;
  band: Band;
  channel: number;
  width: ChannelWidth;
  /** The 20 MHz channels the neighbour occupies. */
  covered: readonly number[];
  signal: number;
  /** Index in `ZoneView.aps` of the zone AP that owns this BSSID; -1 = unmanaged. */
  peer: number;
}

export interface ApView {
  serial: string;
  /** The AP's regulatory country (its configuration's `radios[].country`), when known. */
  country?: string;
  /**
   * Radios of the latest state with a band and a channel (channel 0 = no radio,
   * docs/upstream.md#rrm-algorithms).
   */
  radios: ApRadio[];
  phys: Record<string, PhyCapabilities>;
  /** The most recent scan, one entry per BSSID (the strongest) (docs/rrm.md). */
  neighbours: Neighbour[];
  /** The same neighbours split by band. */
  byBand: Partial<Record<Band, Neighbour[]>>;
  /** True when the device has reported at least one scan (channel optimizers need one). */
  scanned: boolean;
}

export interface ZoneView {
  aps: ApView[];
  /** managed BSSID -> serial (docs/upstream.md#rrm-data-model) */
  managed: Map<string, string>;
}

/** Parses a state `channel_width` ("80p80" counts as 80 for channel choice; 320 is capped). */
export function parseWidth(v: unknown): ChannelWidth {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
  if (n >= 160) return 160;
  if (n >= 80) return 80;
  if (n >= 40) return 40;
  return 20;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `{"$ref": "#/radios/<n>"}` -> n */
function refIndex(radio: unknown): number | undefined {
  const ref = obj(radio)?.$ref;
  const m = typeof ref === 'string' ? /^#\/radios\/(\d+)$/.exec(ref) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * Per-call memo of the channel arithmetic: a 1,000-AP zone has ~10^5 scan entries but only a
 * few hundred distinct (frequency, width) pairs (bench/rrm.ts). Numeric keys, no strings.
 */
interface Memo {
  freq: Map<number, { band: Band; channel: number } | null>;
  /** frequency * 1000 + width -> width actually used and covered channels */
  cover: Map<number, { width: ChannelWidth; covered: readonly number[] }>;
}

/**
 * Highest tx power of the configuration schema and of upstream RRM
 * (docs/upstream.md#rrm-algorithms).
 */
export const MAX_TX_POWER_DBM = 30;

/**
 * The country an AP runs under: every uCentral configuration names it per radio (`country`);
 * the radio of the band first, else any. Capabilities do not carry tx power limits
 * (docs/upstream.md#capabilities), so this is where the regulatory limit comes from.
 */
function countryOf(model: RrmModel, serial: string): string | undefined {
  for (const r of model.latestDeviceStatusRadios[serial] ?? []) {
    const c = obj(r)?.country;
    if (typeof c === 'string' && /^[A-Za-z]{2}$/.test(c)) return c.toUpperCase();
  }
  return undefined;
}

/** The radio's power limit: 30 dBm, or the country's limit on the channel when lower. */
export function radioPowerLimit(country: string | undefined, band: Band, channel: number): number {
  const reg = country === undefined ? undefined : maxTxPowerDbm(country, band, channel);
  return Math.min(MAX_TX_POWER_DBM, reg ?? MAX_TX_POWER_DBM);
}

function buildAp(model: RrmModel, serial: string, memo: Memo): ApView {
  const phys = model.latestDeviceCapabilitiesPhy[serial] ?? {};
  const country = countryOf(model, serial);
  const state = obj(model.latestStates[serial]?.at(-1));
  const raw = arr(state?.radios);
  const radios: ApRadio[] = [];
  const byIndex = new Map<number, ApRadio>();
  raw.forEach((r, index) => {
    const o = obj(r);
    if (!o) return;
    const band = radioBand(o, phys);
    const channel = num(o.channel);
    if (!band || !channel) return;
    const w = parseWidth(o.channel_width);
    const radio: ApRadio = {
      index, band, channel, width: band === '2G' ? 20 : w, txPower: num(o.tx_power),
      maxTxPower: radioPowerLimit(country, band, channel), bssids: [], clientRssis: [],
    };
    radios.push(radio);
    byIndex.set(index, radio);
  });
  // SSIDs on every interface (upstream only read interfaces[0], docs/rrm.md). A SSID without $ref
  // is matched to the only radio of its band, by its `band` string or its phy.
  for (const iface of arr(state?.interfaces)) {
    for (const s of arr(obj(iface)?.ssids)) {
      const ssid = obj(s);
      if (!ssid) continue;
      let radio = byIndex.get(refIndex(ssid.radio) ?? -1);
      if (!radio) {
        const same = radios.filter((r) => r.band === ssid.band);
        if (same.length === 1) radio = same[0];
      }
      if (!radio) continue;
      if (typeof ssid.bssid === 'string') radio.bssids.push(ssid.bssid.toLowerCase());
      for (const a of arr(ssid.associations)) {
        const rssi = num(obj(a)?.rssi);
        if (rssi !== undefined) radio.clientRssis.push(rssi);
      }
    }
  }
  const neighbours = neighboursOf(model, serial, memo);
  const byBand: Partial<Record<Band, Neighbour[]>> = {};
  for (const n of neighbours) (byBand[n.band] ??= []).push(n);
  return { serial, country, radios, phys, neighbours, byBand, scanned: (model.latestWifiScans[serial]?.length ?? 0) > 0 };
}

function neighboursOf(model: RrmModel, serial: string, memo: Memo): Neighbour[] {
  const scan = arr(model.latestWifiScans[serial]?.at(-1));
  const best = new Map<string, Neighbour>();
  for (const e of scan) {
    const o = obj(e);
    const freq = num(o?.frequency);
    const signal = num(o?.signal);
    if (!o || typeof o.bssid !== 'string' || freq === undefined || signal === undefined) continue;
    let known = memo.freq.get(freq);
    if (known === undefined) { known = frequencyToChannel(freq) ?? null; memo.freq.set(freq, known); }
    // An off-grid frequency still has a band; then the entry's own channel is used, unmemoised.
    const band = known?.band ?? bandOfFrequency(freq);
    const channel = known?.channel ?? num(o.channel);
    if (!band || !channel) continue;
    const wanted = neighbourWidth(band === '2G', o.ht_oper, o.vht_oper, band === '6G' ? o.he_oper : undefined);
    const key = freq * 1000 + wanted;
    let cover = known ? memo.cover.get(key) : undefined;
    if (!cover) {
      let width = wanted;
      let block = blockOf(band, channel, width);
      if (!block) { width = 20; block = blockOf(band, channel, 20); }
      cover = { width, covered: block?.channels ?? [channel] };
      if (known) memo.cover.set(key, cover);
    }
    const bssid = o.bssid.toLowerCase();
    const prev = best.get(bssid);
    if (!prev || prev.signal < signal) {
      best.set(bssid, { bssid, band, channel, width: cover.width, covered: cover.covered, signal, peer: -1 });
    }
  }
  return [...best.values()];
}

/** Views built inside `sharingZoneViews`, per model and zone; undefined outside it. */
let shared: Map<RrmModel, Map<string, ZoneView>> | undefined;

/**
 * Runs `fn` with every zoneView of one model and zone built once: a request runs the optimizer
 * and then scores its plan on the same model, and a 200-AP view costs tens of ms. The views are
 * read-only for their users, and the model must not change while `fn` runs (it is synchronous).
 */
export function sharingZoneViews<T>(fn: () => T): T {
  const outer = shared;
  shared = new Map();
  try {
    return fn();
  } finally {
    shared = outer;
  }
}

/** The view of the zone's APs (serials in the given order; devices without data included). */
export function zoneView(model: RrmModel, serials: readonly string[]): ZoneView {
  if (!shared) return buildZoneView(model, serials);
  let views = shared.get(model);
  if (!views) shared.set(model, (views = new Map()));
  const key = serials.join('\u0000');
  let view = views.get(key);
  if (!view) views.set(key, (view = buildZoneView(model, serials)));
  return view;
}

function buildZoneView(model: RrmModel, serials: readonly string[]): ZoneView {
  const memo: Memo = { freq: new Map(), cover: new Map() };
  const aps = serials.map((s) => buildAp(model, s, memo));
  const managed = new Map<string, string>();
  const owner = new Map<string, number>();
  aps.forEach((ap, i) => { for (const r of ap.radios) for (const b of r.bssids) { managed.set(b, ap.serial); owner.set(b, i); } });
  for (const ap of aps) for (const n of ap.neighbours) n.peer = owner.get(n.bssid) ?? -1;
  return { aps, managed };
}
