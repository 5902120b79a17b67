import { deflateSync, inflateSync } from 'node:zlib';
import { isObject, type JsonObject } from './frame.js';

/**
 * The uCentral `compress_64` codec (docs/upstream.md#notifications):
 * `params` becomes `{compress_64: base64(zlib(JSON text)), compress_sz: <uncompressed bytes>}`.
 * zlib format (not raw deflate, not gzip), as the gateway's `uncompress` expects.
 */

/**
 * Default upper bound for an inflated document; the gateway's websocket payload limit is 512,000
 * bytes. Whoever forwards the document passes a lower one that fits where it goes (the edge: the
 * NATS server's max_payload).
 */
export const MAX_INFLATED_BYTES = 8 * 1024 * 1024;

export type InflateResult = { ok: true; params: JsonObject } | { ok: false; reason: string };

/** True when `params` carries a compressed document that replaces it entirely. */
export function isCompressed(params: JsonObject): boolean {
  return params.compress_64 !== undefined;
}

/** Inflate `params.compress_64` into the params object it stands for, at most `maxBytes` of text. Never throws. */
export function inflateParams(params: JsonObject, maxBytes = MAX_INFLATED_BYTES): InflateResult {
  const b64 = params.compress_64;
  if (typeof b64 !== 'string' || b64.length === 0) return { ok: false, reason: 'compress_64 is not a base64 string' };
  let text: string;
  try {
    text = inflateSync(Buffer.from(b64, 'base64'), { maxOutputLength: maxBytes }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, reason: `compress_64 inflates past ${maxBytes} bytes` };
    return { ok: false, reason: 'compress_64 could not be inflated (zlib)' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'compress_64 does not hold JSON' };
  }
  if (!isObject(parsed)) return { ok: false, reason: 'compress_64 does not hold a JSON object' };
  return { ok: true, params: parsed };
}

/** Compress params for an AP that announced `compress_cmd` (and for tests and the simulator). */
export function deflateParams(params: JsonObject): { compress_64: string; compress_sz: number } {
  const text = JSON.stringify(params);
  return { compress_64: deflateSync(Buffer.from(text, 'utf8')).toString('base64'), compress_sz: Buffer.byteLength(text) };
}
