/**
 * What the edge checks in each text frame before it goes on NATS (docs/upstream.md#device-sessions,
 * #notifications): JSON, a JSON-RPC 2.0 object that is a device event (`method` + `params`) or a
 * reply (`result` + `id`), a known method, and `compress_64` inflated so `.up` carries plain
 * params. Deeper checks (required params, session rules) stay in the device actor, which sees every
 * link.
 */
import { inflateParams, isCompressed } from '../../protocol/compress.js';
import { NOTIFICATION_METHODS, isObject, type JsonObject, type UpFrame } from '../../protocol/frame.js';

export type FrameCheck =
  | { ok: true; frame: UpFrame; text: string; serial?: string; isConnect: boolean }
  /** `radius` payloads: the gateway proxies them; the twin has no RADIUS proxy, so they are ignored (not an error). */
  | { ok: false; ignored: true; reason: string }
  /** `object`: the text is a JSON object (a frame the recorder can write as it came). */
  | { ok: false; ignored?: false; reason: string; object?: boolean };

const METHODS: ReadonlySet<string> = new Set(NOTIFICATION_METHODS);

/** `maxInflatedBytes`: the most a `compress_64` document may inflate to (what the frame's next hop accepts). */
export function checkFrame(text: string, maxInflatedBytes?: number): FrameCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (!isObject(parsed)) return { ok: false, reason: 'not a JSON object' };
  const check = checkObject(parsed, text, maxInflatedBytes);
  return check.ok || check.ignored ? check : { ...check, object: true };
}

function checkObject(parsed: JsonObject, text: string, maxInflatedBytes?: number): FrameCheck {
  if (parsed.jsonrpc === undefined && parsed.radius !== undefined) return { ok: false, ignored: true, reason: 'radius payload (no RADIUS proxy)' };
  if (parsed.jsonrpc !== '2.0') return { ok: false, reason: 'jsonrpc is not "2.0"' };
  if (parsed.method !== undefined) return checkEvent(parsed, text, maxInflatedBytes);
  if (parsed.result !== undefined && parsed.id !== undefined) {
    if (typeof parsed.id !== 'number' || !Number.isInteger(parsed.id)) return { ok: false, reason: 'result id is not an integer' };
    if (!isObject(parsed.result)) return { ok: false, reason: 'result is not an object' };
    return { ok: true, frame: parsed as unknown as UpFrame, text, isConnect: false };
  }
  return { ok: false, reason: 'neither a device event nor a command result' };
}

function checkEvent(frame: JsonObject, text: string, maxInflatedBytes?: number): FrameCheck {
  const method = frame.method;
  if (typeof method !== 'string' || !METHODS.has(method)) return { ok: false, reason: `unknown method ${JSON.stringify(method).slice(0, 40)}` };
  if (!isObject(frame.params)) return { ok: false, reason: `params of ${method} is not an object` };
  let out = frame;
  let outText = text;
  if (isCompressed(frame.params)) {
    const inflated = inflateParams(frame.params, maxInflatedBytes);
    if (!inflated.ok) return { ok: false, reason: `${method}: ${inflated.reason}` };
    out = { ...frame, params: inflated.params };
    outText = JSON.stringify(out);
  }
  const params = out.params as JsonObject;
  const serial = typeof params.serial === 'string' ? params.serial : undefined;
  return { ok: true, frame: out as unknown as UpFrame, text: outText, serial, isConnect: method === 'connect' };
}
