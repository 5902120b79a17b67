import { isObject, type JsonObject } from './frame.js';

/**
 * The source text of a `state` document, so the ingest pipeline stores it without serialising
 * it again (JSON.stringify of a 4 KB state costs about as much as parsing it). A link that
 * parsed a frame from text finds the state's text with `stateSourceText` and puts it on the
 * frame's LinkEvent (`stateText`); the device actor carries it on its `state` event, and ingest
 * serialises only when there is none (docs/performance.md, "Hacks kept for speed").
 */

/** A state document's source: its text, or its UTF-8 bytes. */
export type StateText = string | Uint8Array;

function lastKey(o: JsonObject): string | undefined {
  let last: string | undefined;
  for (const k in o) last = k;
  return last;
}

/** Where the bytes of an ASCII `text` sit in a buffer (character and byte offsets agree). */
export interface SourceBytes {
  buf: Uint8Array;
  at: number;
}

/**
 * `text.slice(start, end)` is the text `frame` was parsed from. When that text is exactly what
 * JSON.stringify writes for the frame up to its `params.state` (our recordings, and firmware
 * that writes compact JSON with `state` as the last key of the last member), everything between
 * that prefix and the closing `}}` is the state's own text: returned, for `frame.params.state`.
 * With `bytes` (only for an ASCII `text`, whose UTF-8 bytes from `bytes.at` on are its
 * characters) it is returned as a view of `bytes.buf` instead of a string. Anything else (other
 * key orders, spaces, escapes) gives undefined, and ingest serialises.
 */
export function stateSourceText(frame: JsonObject, text: string, start = 0, end = text.length, bytes?: SourceBytes): StateText | undefined {
  const params = frame.params;
  if (!isObject(params) || !isObject(params.state) || lastKey(frame) !== 'params' || lastKey(params) !== 'state') return undefined;
  // `..."state":0}}` with everything before the state exactly as JSON.stringify writes it. The
  // state is set aside for the call (its key keeps its place) rather than copying two objects.
  const state = params.state;
  params.state = 0;
  let head: string;
  try {
    head = JSON.stringify(frame);
  } finally {
    params.state = state;
  }
  const prefix = head.length - 3;
  if (end - start < prefix + 4 || text.charCodeAt(end - 1) !== 125 || text.charCodeAt(end - 2) !== 125) return undefined;
  if (!text.startsWith(head.slice(0, prefix), start)) return undefined;
  const from = start + prefix;
  return bytes ? bytes.buf.subarray(bytes.at + from, bytes.at + end - 2) : text.slice(from, end - 2);
}
