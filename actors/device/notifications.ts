import { isObject, type JsonObject, type NotificationMethod } from '../../src/protocol/frame.js';
import type { StateText } from '../../src/protocol/json-source.js';
import type { DeviceEvent } from './device.events.js';
import type { DeviceStatus } from './device.types.js';

/**
 * Pure readings of notification params (docs/upstream.md#what-each-notification-does): what a `state`
 * means for DeviceStatus, and which typed event each notification becomes. No clock, no I/O.
 */

export function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

type Band = '2G' | '5G' | '6G';

function bandName(v: unknown): Band | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (typeof s !== 'string') return undefined;
  if (s === '2G' || s === '5G' || s === '6G') return s;
  const u = s.toUpperCase();
  return u === '2G' || u === '5G' || u === '6G' ? u : undefined;
}

function bandOfRadio(radio: JsonObject): Band {
  const named = bandName(radio.band);
  if (named) return named;
  const freq = num(arr(radio.frequency)[0]);
  if (freq > 5925) return '6G';
  // As the gateway counts associations: channel 1..16 is 2G, anything else 5G when the radio names no band.
  return num(radio.channel) >= 1 && num(radio.channel) <= 16 ? '2G' : '5G';
}

/** The radio an ssid's phy names; radio.phy may carry a ":<BAND>" suffix the ssid's phy lacks (docs/upstream.md#the-state-document). */
function radioOfPhy(radios: unknown, phy: unknown): JsonObject | undefined {
  if (!Array.isArray(radios)) return undefined;
  for (const r of radios) {
    if (!isObject(r)) continue;
    const p = r.phy;
    if (p === phy) return r;
    // Same as p.split(':')[0] === phy, without the array.
    if (typeof p === 'string' && typeof phy === 'string' && p.indexOf(':') === phy.length && p.startsWith(phy)) return r;
  }
  return undefined;
}

/** Associations per band: every ssid's associations, band from the ssid or its radio (by phy). */
export function countAssociations(state: JsonObject): Record<Band, number> {
  const counts: Record<Band, number> = { '2G': 0, '5G': 0, '6G': 0 };
  const interfaces = state.interfaces;
  if (!Array.isArray(interfaces)) return counts;
  for (const itf of interfaces) {
    if (!isObject(itf) || !Array.isArray(itf.ssids)) continue;
    for (const ssid of itf.ssids) {
      if (!isObject(ssid) || !Array.isArray(ssid.associations)) continue;
      let band = bandName(ssid.band);
      if (!band) {
        const radio = radioOfPhy(state.radios, ssid.phy);
        band = radio ? bandOfRadio(radio) : '2G';
      }
      counts[band] += ssid.associations.length;
    }
  }
  return counts;
}

/** The status fields a state document sets, written into `into` (a status the caller owns). */
export function writeStateStatus(into: Partial<DeviceStatus>, state: JsonObject, uuid: number): void {
  const unit = isObject(state.unit) ? state.unit : undefined;
  const memory = unit && isObject(unit.memory) ? unit.memory : undefined;
  const total = num(memory?.total);
  const a = countAssociations(state);
  into.UUID = uuid;
  into.associations_2G = a['2G'];
  into.associations_5G = a['5G'];
  into.associations_6G = a['6G'];
  into.memoryUsed = total > 0 ? Math.round((1000 * (total - num(memory?.free))) / total) / 10 : 0;
  // The 5-minute load average (unit.load is [1, 5, 15] minutes), as upstream's status shows it.
  into.load = num(Array.isArray(unit?.load) ? unit.load[1] : undefined);
  into.temperature = num(first(unit?.temperature));
  into.uptime = num(unit?.uptime);
}

function first(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : undefined;
}

/** Status fields a state document sets. `uptime` always (the gateway sets it only for states without radios and interfaces). */
export function statusFromState(state: JsonObject, uuid: number): Partial<DeviceStatus> {
  const out: Partial<DeviceStatus> = {};
  writeStateStatus(out, state, uuid);
  return out;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function requestUuid(params: JsonObject): string | undefined {
  return typeof params.request_uuid === 'string' && params.request_uuid !== '' ? params.request_uuid : undefined;
}

/**
 * The event a notification (other than connect) becomes. `nowMs` stamps it; `configUuid` is the
 * uuid the AP last reported, which logs are filed under; `stateText`, the source text of a
 * state's `params.state` (DecodedFrame).
 */
export function eventOf(serial: string, method: NotificationMethod, params: JsonObject, nowMs: number, configUuid: number, stateText?: StateText): DeviceEvent {
  switch (method) {
    case 'state': {
      const state = isObject(params.state) ? params.state : {};
      return { serial, at: nowMs, type: 'state', payload: { uuid: num(params.uuid), state, requestUuid: requestUuid(params), stateText: state === params.state ? stateText : undefined } };
    }
    case 'healthcheck':
      return { serial, at: nowMs, type: 'healthcheck', payload: { uuid: num(params.uuid), sanity: num(params.sanity), data: isObject(params.data) ? params.data : {}, requestUuid: requestUuid(params) } };
    case 'log':
      return { serial, at: nowMs, type: 'log', payload: { log: str(params.log), severity: num(params.severity), data: isObject(params.data) ? params.data : {}, logType: 0, uuid: configUuid, recorded: Math.floor(nowMs / 1000) } };
    case 'rebootLog':
      // The AP's own date is the record time (upstream stores rebootLog at its `date`).
      return { serial, at: nowMs, type: 'log', payload: { log: str(params.type), severity: 6, data: { info: arr(params.info) }, logType: 2, uuid: num(params.uuid), recorded: num(params.date) } };
    case 'crashlog':
      return { serial, at: nowMs, type: 'crashlog', payload: { uuid: num(params.uuid), loglines: arr(params.loglines).map(String), recovery: false } };
    case 'recovery':
      return { serial, at: nowMs, type: 'crashlog', payload: { uuid: num(params.uuid), loglines: arr(params.loglines).map(String), recovery: true, firmware: str(params.firmware) } };
    case 'telemetry':
      return { serial, at: nowMs, type: 'telemetry', payload: { data: isObject(params.data) ? params.data : {}, adhoc: params.adhoc !== undefined && params.adhoc !== false } };
    case 'event': {
      // data.event = [<timestamp>, {type, payload}] (docs/upstream.md#events-and-telemetry)
      const [timestamp, detail] = isObject(params.data) ? arr(params.data.event) : [];
      const body = isObject(detail) ? detail : {};
      return { serial, at: nowMs, type: 'event', payload: { eventType: str(body.type), timestamp: num(timestamp), payload: isObject(body.payload) ? body.payload : {} } };
    }
    case 'alarm':
      return { serial, at: nowMs, type: 'alarm', payload: { data: params.data } };
    case 'wifiscan':
      return { serial, at: nowMs, type: 'wifiscan-result', payload: { source: 'notification', entries: arr(params.data) } };
    case 'cfgpending':
      return { serial, at: nowMs, type: 'config-pending', payload: { source: 'device', deviceUuid: num(params.active), pendingUuid: num(params.uuid) } };
    default:
      return { serial, at: nowMs, type: 'notification', payload: { method, params } };
  }
}
