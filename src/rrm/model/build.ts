/**
 * Pure builder of the RRM data model from raw documents: what the store's queries
 * return (states, scans, capabilities, active configuration per device) becomes the model of
 * docs/upstream.md#rrm-data-model. Works the same whatever link a device has, with or without a
 * stored configuration.
 */
import type { Capabilities, PhyCapabilities } from '../../protocol/capabilities.js';
import type { WifiScanEntry } from '../../protocol/wifiscan.js';
import { radioBand } from './band.js';
import { heOperationOf } from './ie.js';
import { MODEL_BUFFER_SIZE, type ModelScanEntry, type ModelState, type RadioConfig, type RrmModel, emptyModel } from './types.js';

export interface DeviceDocuments {
  serial: string;
  /** States with the time they were recorded (ms), any order. */
  states: { recorded: number; state: unknown }[];
  /** Scan results with the time they were recorded (ms), any order. */
  scans: { recorded: number; entries: unknown[] }[];
  /** The device's capabilities (connect), or just its `wifi` map; null when unknown. */
  capabilities?: Capabilities | { wifi?: Record<string, PhyCapabilities> } | null;
  /** The configuration the device runs, when the gateway knows it. */
  activeConfig?: { radios?: unknown[] } | null;
}

export interface BuildOptions {
  /**
   * Keep only devices for which this is true (e.g. effective enableRRM,
   * docs/upstream.md#rrm-data-model).
   */
  include?: (serial: string) => boolean;
  /** Per-device buffer of states and scans (default 10, docs/upstream.md#rrm-data-collection). */
  bufferSize?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Scan entries that carry what RRM reads (bssid, frequency, channel, signal); others dropped. */
export function usableEntry(e: unknown): e is WifiScanEntry {
  return isObject(e) && typeof e.bssid === 'string' && typeof e.frequency === 'number'
    && typeof e.channel === 'number' && typeof e.signal === 'number';
}

/**
 * RRM's model of a scan entry (docs/upstream.md#rrm-data-model WifiScanEntryResult + unixTimeMs),
 * always built with the same keys in the same order: entries from different firmware and bands then
 * share one object shape, which keeps the optimizers' hot loops fast (bench/rrm.ts). Fields outside
 * RRM's model (ies, sta_count, tip_*) are not kept, as upstream, except the HE Operation element
 * from `ies[]` as `he_oper` (6 GHz widths).
 */
function scanEntry(e: WifiScanEntry, recorded: number): ModelScanEntry {
  return {
    channel: e.channel, last_seen: e.last_seen, signal: e.signal, bssid: e.bssid, ssid: e.ssid, tsf: e.tsf,
    ht_oper: e.ht_oper, vht_oper: e.vht_oper, he_oper: heOperationOf(e.ies), capability: e.capability, frequency: e.frequency,
    unixTimeMs: recorded,
  };
}

/** The radio list from a state when no configuration is known. */
export function radiosFromState(state: ModelState | undefined, phys: Record<string, PhyCapabilities> | undefined): RadioConfig[] {
  const out: RadioConfig[] = [];
  for (const r of Array.isArray(state?.radios) ? state.radios : []) {
    if (!isObject(r)) continue;
    const band = radioBand(r, phys);
    if (!band) continue;
    const cfg: RadioConfig = { band };
    if (typeof r.channel === 'number' && r.channel > 0) cfg.channel = r.channel;
    const w = typeof r.channel_width === 'number' ? r.channel_width : Number.parseInt(String(r.channel_width), 10);
    if (Number.isFinite(w)) cfg['channel-width'] = w;
    if (typeof r.tx_power === 'number') cfg['tx-power'] = Math.round(r.tx_power);
    out.push(cfg);
  }
  return out;
}

export function buildModel(devices: readonly DeviceDocuments[], opts: BuildOptions = {}): RrmModel {
  const size = Math.max(1, opts.bufferSize ?? MODEL_BUFFER_SIZE);
  const model = emptyModel();
  for (const d of devices) {
    if (opts.include && !opts.include(d.serial)) continue;
    const wifi = isObject(d.capabilities) && isObject(d.capabilities.wifi)
      ? (d.capabilities.wifi as Record<string, PhyCapabilities>) : undefined;
    if (wifi) model.latestDeviceCapabilitiesPhy[d.serial] = wifi;

    const states = d.states
      .filter((s) => isObject(s.state))
      .sort((a, b) => a.recorded - b.recorded)
      .slice(-size)
      .map((s) => ({ ...(s.state as ModelState), timestamp: s.recorded }));
    if (states.length > 0) model.latestStates[d.serial] = states;

    // A scan without one usable entry is skipped, so a device never gets an empty list
    // (docs/rrm.md).
    const scans = d.scans
      .map((s) => ({ recorded: s.recorded, entries: (Array.isArray(s.entries) ? s.entries : []).filter(usableEntry) }))
      .filter((s) => s.entries.length > 0)
      .sort((a, b) => a.recorded - b.recorded)
      .slice(-size)
      .map((s) => s.entries.map((e) => scanEntry(e, s.recorded)));
    if (scans.length > 0) model.latestWifiScans[d.serial] = scans;

    const configured = Array.isArray(d.activeConfig?.radios)
      ? d.activeConfig.radios.filter(isObject).map((r) => ({ ...r }) as RadioConfig) : undefined;
    const radios = configured && configured.length > 0 ? configured : radiosFromState(states.at(-1), wifi);
    if (radios.length > 0) model.latestDeviceStatusRadios[d.serial] = radios;
  }
  return model;
}

/**
 * The model restricted to some serials (optimizers only see their zone,
 * docs/upstream.md#rrm-data-model).
 */
export function modelForSerials(model: RrmModel, serials: Iterable<string>): RrmModel {
  const keep = new Set(serials);
  const pick = <T>(m: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(m).filter(([s]) => keep.has(s)));
  return {
    latestWifiScans: pick(model.latestWifiScans),
    latestStates: pick(model.latestStates),
    latestDeviceStatusRadios: pick(model.latestDeviceStatusRadios),
    latestDeviceCapabilitiesPhy: pick(model.latestDeviceCapabilitiesPhy),
  };
}
