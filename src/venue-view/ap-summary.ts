/**
 * What the venue view shows of one AP, read from what the gateway knows (the fleet's live status
 * and the AP's last state document), never from the simulator: the map then shows the channels
 * the API reports, the same whatever link an AP has.
 */
import type { DeviceDetails } from '../../actors/fleet.js';
import { isObject, type JsonObject } from '../protocol/frame.js';
import { bandOfFrequency, isBand, type Band } from '../protocol/wifi-channels.js';

export interface RadioSummary {
  band: Band;
  channel: number;
  width: number;
  txPower: number;
  /** Channel utilisation the AP reported, percent (null when it did not). */
  chanUtil: number | null;
  clients: number;
}

export interface ApSummary {
  serial: string;
  model: string;
  connected: boolean;
  /** The device actor's state, e.g. `online.idle`, `rebooting`. */
  state: string;
  /** Epoch seconds of the last frame from the AP (0: never). */
  lastContact: number;
  radios: RadioSummary[];
  /** BSSIDs the AP serves (from its state), for naming it in other APs' scans. */
  bssids: string[];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Band of a state radio: its `band` (current firmware), else its primary frequency, else its channel. */
function bandOf(r: JsonObject): Band | undefined {
  const b = Array.isArray(r.band) ? r.band[0] : r.band;
  if (typeof b === 'string' && isBand(b.toUpperCase())) return b.toUpperCase() as Band;
  const f = Array.isArray(r.frequency) ? num(r.frequency[0]) : num(r.frequency);
  if (f !== null) return bandOfFrequency(f);
  const ch = num(r.channel);
  return ch === null ? undefined : ch <= 14 ? '2G' : '5G';
}

/** Radios and BSSIDs of a state document; parts that are not what firmware sends are skipped. */
export function radiosOfState(state: JsonObject | undefined): { radios: RadioSummary[]; bssids: string[] } {
  if (!state) return { radios: [], bssids: [] };
  const list = Array.isArray(state.radios) ? state.radios.filter(isObject) : [];
  const clients = new Array<number>(list.length).fill(0);
  const bssids: string[] = [];
  for (const iface of Array.isArray(state.interfaces) ? state.interfaces.filter(isObject) : []) {
    for (const ssid of Array.isArray(iface.ssids) ? iface.ssids.filter(isObject) : []) {
      if (typeof ssid.bssid === 'string') bssids.push(ssid.bssid.toLowerCase());
      const ref = isObject(ssid.radio) && typeof ssid.radio.$ref === 'string' ? /(\d+)$/.exec(ssid.radio.$ref) : null;
      const i = ref ? Number(ref[1]) : -1;
      if (i >= 0 && i < clients.length) clients[i]! += Array.isArray(ssid.associations) ? ssid.associations.length : 0;
    }
  }
  const radios: RadioSummary[] = [];
  list.forEach((r, i) => {
    const band = bandOf(r);
    const channel = num(r.channel);
    if (!band || channel === null) return;
    radios.push({
      band, channel, width: num(r.channel_width) ?? (Number(r.channel_width) || 20), txPower: num(r.tx_power) ?? 0,
      chanUtil: num(r.chanUtil), clients: clients[i]!,
    });
  });
  return { radios, bssids };
}

/** The summary of one AP from the fleet's details (undefined: no actor yet) and its record's model. */
export function apSummary(serial: string, details: DeviceDetails | undefined, model: string): ApSummary {
  const { radios, bssids } = radiosOfState(details?.lastState);
  return {
    serial, model, connected: details?.status.connected ?? false, state: details?.state ?? 'offline',
    lastContact: details?.status.lastContact ?? 0, radios, bssids,
  };
}
