import { isObject, type JsonObject, type NotificationMethod } from '../../src/protocol/frame.js';
import type { DeviceEvent } from './device.events.js';
import type { DeviceStatus } from './device.types.js';

/**
 * Pure readings of notification params (reference/gateway-behaviour.md §1.3): what a `state`
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
  const u = s.toUpperCase();
  return u === '2G' || u === '5G' || u === '6G' ? u : undefined;
}

function bandOfRadio(radio: JsonObject): Band {
  const named = bandName(radio.band);
  if (named) return named;
  const freq = num(arr(radio.frequency)[0]);
  if (freq > 5925) return '6G';
  // spec §1.3: channel 1..16 is 2G, anything else 5G when the radio names no band.
  return num(radio.channel) >= 1 && num(radio.channel) <= 16 ? '2G' : '5G';
}

/** Associations per band: every ssid's associations, band from the ssid or its radio (by phy). */
export function countAssociations(state: JsonObject): Record<Band, number> {
  const counts: Record<Band, number> = { '2G': 0, '5G': 0, '6G': 0 };
  const radios = arr(state.radios).filter(isObject);
  for (const itf of arr(state.interfaces).filter(isObject)) {
    for (const ssid of arr(itf.ssids).filter(isObject)) {
      if (!Array.isArray(ssid.associations)) continue;
      let band = bandName(ssid.band);
      if (!band) {
        // radio.phy may carry a ":<BAND>" suffix the ssid's phy lacks (device-protocol §2.2).
        const radio = radios.find((r) => r.phy === ssid.phy || (typeof r.phy === 'string' && r.phy.split(':')[0] === ssid.phy));
        band = radio ? bandOfRadio(radio) : '2G';
      }
      counts[band] += ssid.associations.length;
    }
  }
  return counts;
}

/** Status fields a state document sets. `uptime` always (the gateway only sets it sometimes: bug §8.17). */
export function statusFromState(state: JsonObject, uuid: number): Partial<DeviceStatus> {
  const unit = isObject(state.unit) ? state.unit : {};
  const memory = isObject(unit.memory) ? unit.memory : {};
  const total = num(memory.total);
  const a = countAssociations(state);
  const temps = arr(unit.temperature);
  return {
    UUID: uuid,
    associations_2G: a['2G'],
    associations_5G: a['5G'],
    associations_6G: a['6G'],
    memoryUsed: total > 0 ? Math.round((1000 * (total - num(memory.free))) / total) / 10 : 0,
    // The 1-minute load average (unit.load is [1, 5, 15] minutes).
    load: num(arr(unit.load)[0]),
    temperature: num(temps[0]),
    uptime: num(unit.uptime),
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function requestUuid(params: JsonObject): string | undefined {
  return typeof params.request_uuid === 'string' && params.request_uuid !== '' ? params.request_uuid : undefined;
}

/**
 * The event a notification (other than connect) becomes. `nowMs` stamps it; `configUuid` is the
 * uuid the AP last reported, which logs are filed under.
 */
export function eventOf(serial: string, method: NotificationMethod, params: JsonObject, nowMs: number, configUuid: number): DeviceEvent {
  const base = { serial, at: nowMs };
  switch (method) {
    case 'state':
      return { ...base, type: 'state', payload: { uuid: num(params.uuid), state: isObject(params.state) ? params.state : {}, requestUuid: requestUuid(params) } };
    case 'healthcheck':
      return { ...base, type: 'healthcheck', payload: { uuid: num(params.uuid), sanity: num(params.sanity), data: isObject(params.data) ? params.data : {}, requestUuid: requestUuid(params) } };
    case 'log':
      return { ...base, type: 'log', payload: { log: str(params.log), severity: num(params.severity), data: isObject(params.data) ? params.data : {}, logType: 0, uuid: configUuid, recorded: Math.floor(nowMs / 1000) } };
    case 'rebootLog':
      // The AP's own date is the record time (§1.3 rebootLog).
      return { ...base, type: 'log', payload: { log: str(params.type), severity: 6, data: { info: arr(params.info) }, logType: 2, uuid: num(params.uuid), recorded: num(params.date) } };
    case 'crashlog':
      return { ...base, type: 'crashlog', payload: { uuid: num(params.uuid), loglines: arr(params.loglines).map(String), recovery: false } };
    case 'recovery':
      return { ...base, type: 'crashlog', payload: { uuid: num(params.uuid), loglines: arr(params.loglines).map(String), recovery: true, firmware: str(params.firmware) } };
    case 'telemetry':
      return { ...base, type: 'telemetry', payload: { data: isObject(params.data) ? params.data : {}, adhoc: params.adhoc !== undefined && params.adhoc !== false } };
    case 'event': {
      // data.event = [<timestamp>, {type, payload}] (device-protocol §6.1)
      const ev = isObject(params.data) ? arr(params.data.event) : [];
      const body = isObject(ev[1]) ? ev[1] : {};
      return { ...base, type: 'event', payload: { eventType: str(body.type), timestamp: num(ev[0]), payload: isObject(body.payload) ? body.payload : {} } };
    }
    case 'alarm':
      return { ...base, type: 'alarm', payload: { data: params.data } };
    case 'wifiscan':
      return { ...base, type: 'wifiscan-result', payload: { source: 'notification', entries: arr(params.data) } };
    case 'cfgpending':
      return { ...base, type: 'config-pending', payload: { source: 'device', deviceUuid: num(params.active), pendingUuid: num(params.uuid) } };
    default:
      return { ...base, type: 'notification', payload: { method, params } };
  }
}
