import { inflateParams, isCompressed } from '../../src/protocol/compress.js';
import { NOTIFICATION_METHODS, isObject, type JsonObject, type NotificationMethod } from '../../src/protocol/frame.js';
import type { StateText } from '../../src/protocol/json-source.js';

/**
 * Turns whatever a link delivered into one of the shapes the machine's guards can read,
 * following the gateway (docs/upstream.md#device-sessions, #notifications). Decoding happens once, at the edge of the
 * machine (the link actor), so guards stay cheap and pure: they read `kind` only.
 *
 * - `ignored`: a notification without `params.serial` (ignored upstream, not an error). The
 *   actor counts it (`frame-ignored`), it is not a protocol error.
 * - `bad-serial`: a notification whose `params.serial` is not a string of 1-29 hex digits once
 *   trimmed and lowercased (upstream drops the connection). The actor drops the AP.
 */
export type DecodedFrame =
  /** `stateText`: the source text of `params.state`, as the link found it (LinkEvent). */
  | { kind: 'notification'; method: NotificationMethod; params: JsonObject; stateText?: StateText }
  | { kind: 'result'; id: number; result: JsonObject }
  | { kind: 'invalid'; reason: string }
  | { kind: 'ignored'; method: NotificationMethod; reason: string }
  | { kind: 'bad-serial'; method: NotificationMethod; reason: string };

/**
 * docs/upstream.md#notifications (upstream `ValidSerialNumber` after trim + lowercase): hex digits only, fewer than 30.
 * Case and surrounding white space are allowed here instead of building a trimmed copy per frame.
 * An empty serial is refused too (upstream lets it through).
 */
const PER_MESSAGE_SERIAL = /^\s*[0-9a-f]{1,29}\s*$/i;

/** A bad serial as the drop reason shows it: strings cut to 40 characters, other values by type. */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  return v === null ? 'null' : `of type ${Array.isArray(v) ? 'array' : typeof v}`;
}

/**
 * Params each notification must carry (missing -> protocol error), docs/upstream.md#what-each-notification-does. `serial` is not
 * listed: every notification needs it and a missing one is ignored, not an error, for
 * connect, recovery and venue_broadcast too; decodeNotification checks it before this table.
 */
const REQUIRED_PARAMS: Record<NotificationMethod, readonly string[]> = {
  connect: ['uuid', 'firmware', 'capabilities'],
  state: ['uuid', 'state'],
  healthcheck: ['uuid', 'sanity', 'data'],
  log: ['log', 'severity'],
  crashlog: ['uuid', 'loglines'],
  rebootLog: ['uuid', 'info', 'type', 'date'],
  ping: ['uuid'],
  cfgpending: ['uuid', 'active'],
  recovery: ['firmware', 'uuid', 'reboot', 'loglines'],
  deviceupdate: [],
  telemetry: ['data'],
  venue_broadcast: ['data', 'timestamp'],
  event: ['data'],
  alarm: ['data'],
  wifiscan: ['data'],
};

/**
 * Params stored as 64-bit integers (config uuids, sanity, severity, dates). A JSON number past
 * that range (`"uuid": 1e30`) cannot be stored: such a frame is refused here, as the gateway's
 * parser refuses a number that does not fit, instead of failing a whole batch of the store.
 */
const INTEGER_PARAMS: Partial<Record<NotificationMethod, readonly string[]>> = {
  connect: ['uuid'],
  state: ['uuid'],
  healthcheck: ['uuid', 'sanity'],
  log: ['severity'],
  crashlog: ['uuid'],
  rebootLog: ['uuid', 'date'],
  ping: ['uuid'],
  cfgpending: ['uuid', 'active'],
  recovery: ['uuid'],
};
const INT64_LIMIT = 2 ** 63;

/** Why `params` of `method` cannot be stored (an integer param past 64 bits), if so. */
export function paramOutOfRange(method: NotificationMethod, params: JsonObject): string | undefined {
  for (const k of INTEGER_PARAMS[method] ?? []) {
    const v = params[k];
    if (typeof v === 'number' && !(Math.abs(v) < INT64_LIMIT)) return `${method}: params.${k} ${v} is out of the range of a 64-bit integer`;
  }
  return undefined;
}

/** Events accepted before `connect` (the gateway takes these without a session); everything else needs an open session. */
const ALLOWED_BEFORE_CONNECT: ReadonlySet<NotificationMethod> = new Set([
  'connect', 'crashlog', 'rebootLog', 'ping', 'recovery', 'venue_broadcast',
]);

const KNOWN_METHODS: ReadonlySet<string> = new Set(NOTIFICATION_METHODS);

export function needsSession(method: NotificationMethod): boolean {
  return !ALLOWED_BEFORE_CONNECT.has(method);
}

export function decodeFrame(frame: unknown, stateText?: StateText): DecodedFrame {
  if (!isObject(frame)) return { kind: 'invalid', reason: 'frame is not a JSON object' };
  if (frame.jsonrpc !== '2.0') return { kind: 'invalid', reason: 'jsonrpc is not "2.0"' };
  if (frame.method !== undefined) return decodeNotification(frame, stateText);
  if (frame.result !== undefined || frame.id !== undefined) {
    if (typeof frame.id !== 'number' || !Number.isInteger(frame.id)) return { kind: 'invalid', reason: 'result id is not an integer' };
    if (!isObject(frame.result)) return { kind: 'invalid', reason: `result of id ${frame.id} is not an object` };
    return { kind: 'result', id: frame.id, result: frame.result };
  }
  return { kind: 'invalid', reason: 'frame has neither method nor result' };
}

function decodeNotification(frame: JsonObject, stateText: StateText | undefined): DecodedFrame {
  const method = frame.method;
  if (typeof method !== 'string' || !KNOWN_METHODS.has(method)) {
    return { kind: 'invalid', reason: `unknown method ${JSON.stringify(method)}` };
  }
  if (frame.id !== undefined) return { kind: 'invalid', reason: `notification ${method} carries an id` };
  if (!isObject(frame.params)) return { kind: 'invalid', reason: `params of ${method} is not an object` };
  let params = frame.params;
  if (isCompressed(params)) {
    const inflated = inflateParams(params);
    if (!inflated.ok) return { kind: 'invalid', reason: `${method}: ${inflated.reason}` };
    params = inflated.params;
  }
  const m = method as NotificationMethod;
  // docs/upstream.md#notifications, on the inflated params: no serial -> ignored; a serial that is not hex -> drop. The
  // value is not kept: after connect the actor's serial is the one everything is filed under.
  const serial = params.serial;
  if (serial === undefined) return { kind: 'ignored', method: m, reason: `${method}: params.serial is missing` };
  if (typeof serial !== 'string' || !PER_MESSAGE_SERIAL.test(serial)) {
    return { kind: 'bad-serial', method: m, reason: `${method}: params.serial ${shown(serial)} is not 1-29 hex digits` };
  }
  for (const k of REQUIRED_PARAMS[m]) {
    if (params[k] !== undefined) continue;
    const missing = REQUIRED_PARAMS[m].filter((r) => params[r] === undefined);
    return { kind: 'invalid', reason: `${method}: missing ${missing.join(', ')}` };
  }
  const outOfRange = paramOutOfRange(m, params);
  if (outOfRange) return { kind: 'invalid', reason: outOfRange };
  // Inflated params were not parsed from the link's text: no source text describes their state.
  return { kind: 'notification', method: m, params, stateText: params === frame.params ? stateText : undefined };
}
