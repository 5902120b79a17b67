import { inflateParams, isCompressed } from '../../src/protocol/compress.js';
import { NOTIFICATION_METHODS, isObject, type JsonObject, type NotificationMethod } from '../../src/protocol/frame.js';

/**
 * Turns whatever a link delivered into one of three shapes the machine's guards can read,
 * following reference/gateway-behaviour.md §1.1-1.2. Decoding happens once, at the edge of the
 * machine (the link actor), so guards stay cheap and pure.
 */
export type DecodedFrame =
  | { kind: 'notification'; method: NotificationMethod; params: JsonObject }
  | { kind: 'result'; id: number; result: JsonObject }
  | { kind: 'invalid'; reason: string };

/** Params each notification must carry (missing -> protocol error), per §1.3. */
const REQUIRED_PARAMS: Record<NotificationMethod, readonly string[]> = {
  connect: ['serial', 'uuid', 'firmware', 'capabilities'],
  state: ['uuid', 'state'],
  healthcheck: ['uuid', 'sanity', 'data'],
  log: ['log', 'severity'],
  crashlog: ['uuid', 'loglines'],
  rebootLog: ['uuid', 'info', 'type', 'date'],
  ping: ['uuid'],
  cfgpending: ['uuid', 'active'],
  recovery: ['serial', 'firmware', 'uuid', 'reboot', 'loglines'],
  deviceupdate: [],
  telemetry: ['data'],
  venue_broadcast: ['data', 'serial', 'timestamp'],
  event: ['data'],
  alarm: ['data'],
  wifiscan: ['data'],
};

/** Events accepted before `connect` (§1.2); everything else needs an open session. */
const ALLOWED_BEFORE_CONNECT: ReadonlySet<NotificationMethod> = new Set([
  'connect', 'crashlog', 'rebootLog', 'ping', 'recovery', 'venue_broadcast',
]);

const KNOWN_METHODS: ReadonlySet<string> = new Set(NOTIFICATION_METHODS);

export function needsSession(method: NotificationMethod): boolean {
  return !ALLOWED_BEFORE_CONNECT.has(method);
}

export function decodeFrame(frame: unknown): DecodedFrame {
  if (!isObject(frame)) return { kind: 'invalid', reason: 'frame is not a JSON object' };
  if (frame.jsonrpc !== '2.0') return { kind: 'invalid', reason: 'jsonrpc is not "2.0"' };
  if (frame.method !== undefined) return decodeNotification(frame);
  if (frame.result !== undefined || frame.id !== undefined) {
    if (typeof frame.id !== 'number' || !Number.isInteger(frame.id)) return { kind: 'invalid', reason: 'result id is not an integer' };
    if (!isObject(frame.result)) return { kind: 'invalid', reason: `result of id ${frame.id} is not an object` };
    return { kind: 'result', id: frame.id, result: frame.result };
  }
  return { kind: 'invalid', reason: 'frame has neither method nor result' };
}

function decodeNotification(frame: JsonObject): DecodedFrame {
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
  for (const k of REQUIRED_PARAMS[m]) {
    if (params[k] !== undefined) continue;
    const missing = REQUIRED_PARAMS[m].filter((r) => params[r] === undefined);
    return { kind: 'invalid', reason: `${method}: missing ${missing.join(', ')}` };
  }
  return { kind: 'notification', method: m, params };
}
