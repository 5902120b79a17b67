/**
 * What each file `airtwin record --from-states` reads holds (record-import.ts says which
 * documents are taken): a frame, a wrapped or raw document, or an API export's many reports.
 */
import { basename, dirname } from 'node:path';
import { isObject, type JsonObject } from '../protocol/frame.js';
import { normalizeSerial, parseSerial } from '../protocol/serial.js';

/** `log`: a device log entry of an API export, as the frame that made it (`body`: method and params). */
export type Kind = 'capabilities' | 'state' | 'healthcheck' | 'config' | 'log';
export interface Doc {
  file: string; kind: Kind; serial?: string; body: JsonObject; uuid?: number;
  /** Exported time, epoch ms. */ recordedMs?: number;
  /** The firmware a captured connect frame names. */ firmware?: string;
}

const SERIAL_IN_NAME = /(?:^|[^0-9a-f])([0-9a-f]{2}(?:[:-]?[0-9a-f]{2}){5})(?![0-9a-f])/gi;

/**
 * Whether 12 decimal digits read as a time stamp, as `date +%Y%m%d%H%M` (202404011200) or
 * `+%y%m%d%H%M%S` (240401120000) name captures: such a name is a time, not a serial.
 */
function looksLikeTime(digits: string): boolean {
  if (!/^\d{12}$/.test(digits)) return false;
  const n = (from: number, to: number) => Number(digits.slice(from, to));
  const clock = (month: number, day: number, hour: number, minute: number, second = 0) =>
    month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59;
  const year = n(0, 4);
  return (year >= 1970 && year <= 2099 && clock(n(4, 6), n(6, 8), n(8, 10), n(10, 12))) || clock(n(2, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12));
}

/** The first serial written in `name` (12 hex digits, maybe as a MAC), passing over time stamps. */
function serialInName(name: string): string | undefined {
  for (const m of name.matchAll(SERIAL_IN_NAME)) {
    const serial = normalizeSerial(m[1]!);
    if (!looksLikeTime(serial)) return serial;
  }
  return undefined;
}

export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function classifyRaw(d: JsonObject): Kind | undefined {
  if (typeof d.compatible === 'string' && (isObject(d.wifi) || typeof d.platform === 'string')) return 'capabilities';
  const hasRadio = d.radios !== undefined || d.interfaces !== undefined;
  if (num(d.uuid) !== undefined && hasRadio && (d.services !== undefined || d.metrics !== undefined || d.globals !== undefined)) return 'config';
  if (isObject(d.unit) && hasRadio) return 'state';
  if (num(d.sanity) !== undefined && isObject(d.data)) return 'healthcheck';
  return undefined;
}

/** A JSON object, or JSON text of one (an API export's `data`, `capabilities`). */
function objectOf(v: unknown): JsonObject | undefined {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A frame that makes a log entry of `GET /device/{serial}/logs` again
 * (docs/upstream.md#what-each-notification-does), by its logType: 0 `log`, 1 `crashlog` (its lines,
 * each stored with CRLF after it), 2 `rebootLog` (the entry's time is the AP's date). Or why it
 * cannot be one.
 */
function logFrame(e: JsonObject, log: string, recorded: number | undefined): JsonObject | string {
  const data = objectOf(e.data) ?? {};
  const uuid = num(e.UUID) ?? 0;
  const lines = () => (log.endsWith('\r\n') ? log.slice(0, -2) : log).split('\r\n');
  switch (e.logType ?? 0) {
    case 0:
      return { method: 'log', params: { log, severity: num(e.severity) ?? 6, data } };
    case 1:
      // A recovery log ("Firmware: ..." first, uuid 0) is stored exactly so too.
      return { method: 'crashlog', params: { uuid, loglines: log === '' ? [] : lines() } };
    case 2:
      if (recorded === undefined) return 'a reboot log without its recorded time';
      return { method: 'rebootLog', params: { uuid, type: log, date: recorded, info: Array.isArray(data.info) ? data.info : [] } };
    default:
      return `logType ${JSON.stringify(e.logType)} is not 0, 1 or 2`;
  }
}

/**
 * The reports of a statistics, health check or log export (`{serialNumber, values}`), or why the file
 * is not one; a value that cannot be used goes into `skip` with its index.
 */
function exportedReports(file: string, serial: string, values: unknown[], skip: (reason: string) => void): Doc[] | string {
  const docs: Doc[] = [];
  values.forEach((e, i) => {
    if (!isObject(e)) return skip(`values[${i}]: not a JSON object`);
    const recorded = num(e.recorded);
    // Seconds, as the API gives them; a time a Date cannot hold is no time.
    const recordedMs = recorded !== undefined && recorded > 0 && recorded < 8.64e12 ? recorded * 1000 : undefined;
    if (typeof e.log === 'string') {
      const frame = logFrame(e, e.log, recorded);
      return typeof frame === 'string' ? skip(`values[${i}]: ${frame}`) : void docs.push({ file, kind: 'log', serial, body: frame, recordedMs });
    }
    const body = objectOf(e.data);
    if (!body) return skip(`values[${i}]: data is not a JSON object (or JSON text of one)`);
    const uuid = num(e.UUID);
    const sanity = num(e.sanity);
    if (sanity !== undefined) docs.push({ file, kind: 'healthcheck', serial, body: { sanity, data: body }, uuid, recordedMs });
    else docs.push({ file, kind: 'state', serial, body, uuid, recordedMs });
  });
  if (docs.length > 0) return docs;
  return values.length === 0 ? 'an API export with no values' : 'an API export with no usable value';
}

/** What a parsed file holds (one document, or an API export's many), or why it is not used. */
export function classify(file: string, rel: string, v: unknown, skip: (reason: string) => void): Doc | Doc[] | string {
  if (!isObject(v)) return 'not a JSON object';
  if (v.jsonrpc === '2.0' && isObject(v.params)) {
    const p = v.params;
    const serial = parseSerial(p.serial);
    if (!serial) return 'frame without a valid params.serial';
    if (v.method === 'connect' && isObject(p.capabilities)) {
      return { file, kind: 'capabilities', serial, body: p.capabilities, uuid: num(p.uuid), ...(typeof p.firmware === 'string' && p.firmware !== '' ? { firmware: p.firmware } : {}) };
    }
    if (v.method === 'state' && isObject(p.state)) return { file, kind: 'state', serial, body: p.state, uuid: num(p.uuid) };
    if (v.method === 'healthcheck') return { file, kind: 'healthcheck', serial, body: p, uuid: num(p.uuid) };
    // A log as the AP sent it, played as sent (as a log export's entries are).
    if (v.method === 'log' || v.method === 'crashlog' || v.method === 'rebootLog') {
      const { serial: _serial, ...params } = p;
      return { file, kind: 'log', serial, body: { method: v.method, params } };
    }
    return `frame method ${JSON.stringify(v.method)} is not connect, state, healthcheck, log, crashlog or rebootLog`;
  }
  const wrapped = parseSerial(v.serial) ?? parseSerial(v.serialNumber);
  if (wrapped && isObject(v.state)) return { file, kind: 'state', serial: wrapped, body: v.state, uuid: num(v.uuid) };
  if (wrapped && v.capabilities !== undefined) {
    const capabilities = objectOf(v.capabilities);
    return capabilities ? { file, kind: 'capabilities', serial: wrapped, body: capabilities } : 'capabilities is not a JSON object (or JSON text of one)';
  }
  if (wrapped && Array.isArray(v.values)) return exportedReports(file, wrapped, v.values, skip);
  const kind = classifyRaw(v);
  if (!kind) return 'not a state, healthcheck, capabilities or configuration document';
  const named = serialInName(basename(rel, '.json')) ?? serialInName(dirname(rel));
  return { file, kind, serial: wrapped ?? named, body: v, uuid: kind === 'config' ? num(v.uuid) : undefined };
}
