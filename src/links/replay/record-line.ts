/**
 * One line of a recording (docs/record-replay.md#the-recording-format), checked on its own:
 * JSON object; `t` a finite number not smaller than the time of the last line kept (a file is
 * ordered by `t`); `serial` 12 hex digits (any case, ':'/'-' separators); then either
 * `dir: "up"|"down"` with an object `frame` (a `down` frame must be a command: method and id),
 * or `event: "connect"|"disconnect"`, or `upload: {uuid, type, data_64}` (a file the AP
 * uploaded). An `up` frame or an event may have `at`, when it happened if that is before `t` (a
 * frame the recorder got late: a NATS backlog, an edge's outage buffer): a time in epoch ms, not
 * after `t`. An `up` frame is not judged further: the device actor checks it as it checks a
 * live AP's. Whether a line that passes is kept is the ordering rule's call (line-order.ts).
 */
import { isCommand, isObject, type CommandFrame, type JsonObject } from '../../protocol/frame.js';
import { stateSourceText, type SourceBytes, type StateText } from '../../protocol/json-source.js';
import { parseSerial } from '../../protocol/serial.js';

/**
 * `t` places the line in the file's order; `at`, when present, is when the AP did it, earlier
 * than `t` (the recorder got it late: `t` may not go backwards, so it could not be the line's `t`).
 * An up line's `stateText`: the source text of its state (LinkEvent), when the line holds it.
 */
export type RecordLine =
  | { kind: 'up'; t: number; at?: number; serial: string; frame: JsonObject; bytes: number; stateText?: StateText }
  | { kind: 'down'; t: number; serial: string; frame: CommandFrame }
  | { kind: 'connect' | 'disconnect'; t: number; at?: number; serial: string }
  /** A file the AP uploaded for the recorded command `uuid` (the uuid in that command's `uri`). */
  | { kind: 'upload'; t: number; at?: undefined; serial: string; uuid: string; type: string; data: Buffer };

/**
 * `size`: the bytes of the file the line took, with its break (in a gzip file, its share of the
 * compressed bytes, a fraction), so the sizes of a file's lines add up to about the file's size,
 * for progress.
 */
export type ReadItem =
  | { ok: true; line: number; file: string; size: number; rec: RecordLine }
  | { ok: false; line: number; file: string; size: number; reason: string };
export type Accepted = Extract<ReadItem, { ok: true }>;

/** What the envelope adds around a frame written by our writers: `{"t":..,"serial":..,"dir":"up","frame":` ... `}`. */
const UP_FRAME_KEY = ',"dir":"up","frame":';

/** Whether `frame` is the last key of the line (a for-in stops after the envelope's few keys). */
function frameIsLast(line: JsonObject): boolean {
  let last: string | undefined;
  for (const k in line) last = k;
  return last === 'frame';
}

/**
 * Size of the frame as the AP sent it, for the device's rxBytes. Our writers put `frame` last,
 * so it is the rest of the line; other writers' lines are measured by serialising the frame.
 * A line with a key after `frame` (`"meta":{"src":{"host":"h1"}}` from another tool) is such a
 * line too: it also ends in `}}`, and its state was stored with the meta in it, not as JSON.
 */
function frameBytes(text: string, line: JsonObject, frame: JsonObject, bytes: SourceBytes | undefined): { size: number; stateText?: StateText } {
  const at = text.indexOf(UP_FRAME_KEY);
  if (at > 0 && text.endsWith('}}') && frameIsLast(line)) {
    const start = at + UP_FRAME_KEY.length;
    // The state's own text (its bytes, for an ASCII line), so ingest does not serialise it again.
    const stateText = frame.method === 'state' ? stateSourceText(frame, text, start, text.length - 1, bytes) : undefined;
    return { size: bytes ? text.length - start - 1 : Buffer.byteLength(text) - Buffer.byteLength(text.slice(0, start)) - 1, stateText };
  }
  return { size: Buffer.byteLength(JSON.stringify(frame)) };
}

/** The largest time a JavaScript Date holds, ms from the epoch either way. */
const MAX_TIME_MS = 8.64e15;

/** The longest line read (bytes, without its break): 64 MiB, ~1,000 times the biggest frame seen from an AP. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const REASON_CHARS = 200;

/**
 * `reason` as one printable line for a terminal: control characters (an ESC from a binary file
 * would drive the terminal) and U+FFFD as `\uXXXX`, at most REASON_CHARS characters.
 */
export function printable(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = reason.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return clean.length > REASON_CHARS ? `${clean.slice(0, REASON_CHARS - 1)}…` : clean;
}

/**
 * Check one line. `lastT` is the time of the last accepted line (-Infinity before the first).
 * `bytes`, only for an ASCII line: where its bytes are, so a state is kept as its bytes.
 * A reason is printable (it may quote the line).
 */
export function parseLine(text: string, lastT: number, bytes?: SourceBytes): { rec: RecordLine } | { reason: string } {
  const r = checkLine(text, lastT, bytes);
  return 'reason' in r ? { reason: printable(r.reason) } : r;
}

function checkLine(text: string, lastT: number, bytes?: SourceBytes): { rec: RecordLine } | { reason: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { reason: `not JSON (${(e as Error).message})` };
  }
  if (!isObject(v)) return { reason: 'not a JSON object' };
  const { t, serial } = v;
  if (t === undefined) return { reason: 'missing field t' };
  if (typeof t !== 'number' || !Number.isFinite(t)) return { reason: `t is not a number: ${JSON.stringify(t)}` };
  // Past 8.64e15 ms (year 275760) a Date cannot hold it: no clock, API time or printed date could.
  if (Math.abs(t) > MAX_TIME_MS) return { reason: `t is not a time in epoch ms: ${t}` };
  if (t < lastT) return { reason: `t goes backwards (${t} after ${lastT})` };
  if (serial === undefined) return { reason: 'missing field serial' };
  const s = parseSerial(serial);
  if (s === undefined) return { reason: `serial ${JSON.stringify(serial)} is not 12 hex digits` };
  if (v.event !== undefined) {
    if (v.event === 'connect' || v.event === 'disconnect') {
      const at = lateAt(v.at, t);
      if (typeof at === 'string') return { reason: at };
      return { rec: at === undefined ? { kind: v.event, t, serial: s } : { kind: v.event, t, at, serial: s } };
    }
    return { reason: `event must be connect or disconnect, got ${JSON.stringify(v.event)}` };
  }
  if (v.upload !== undefined) {
    const u = v.upload;
    if (!isObject(u) || typeof u.uuid !== 'string' || !/^[0-9a-f-]{36}$/i.test(u.uuid) || typeof u.type !== 'string' || typeof u.data_64 !== 'string') {
      return { reason: 'upload must be an object with uuid (a command UUID), type and data_64 (base64)' };
    }
    return { rec: { kind: 'upload', t, serial: s, uuid: u.uuid.toLowerCase(), type: u.type, data: Buffer.from(u.data_64, 'base64') } };
  }
  if (v.dir === undefined) return { reason: 'missing field dir (or event)' };
  if (v.dir !== 'up' && v.dir !== 'down') return { reason: `dir must be up or down, got ${JSON.stringify(v.dir)}` };
  if (v.frame === undefined) return { reason: 'missing field frame' };
  if (!isObject(v.frame)) return { reason: 'frame is not a JSON object' };
  if (v.dir === 'down') {
    if (!isCommand(v.frame)) return { reason: 'down frame is not a command (jsonrpc 2.0, known method, numeric id, params)' };
    return { rec: { kind: 'down', t, serial: s, frame: v.frame } };
  }
  const at = lateAt(v.at, t);
  if (typeof at === 'string') return { reason: at };
  const { size, stateText } = frameBytes(text, v, v.frame, bytes);
  const rec: Extract<RecordLine, { kind: 'up' }> = at === undefined ? { kind: 'up', t, serial: s, frame: v.frame, bytes: size } : { kind: 'up', t, at, serial: s, frame: v.frame, bytes: size };
  if (stateText !== undefined) rec.stateText = stateText;
  return { rec };
}

/** A line's `at`: absent, a time not after `t`, or why it is neither. A down frame's is not read (a command is sent when replayed). */
function lateAt(at: unknown, t: number): number | string | undefined {
  if (at === undefined) return undefined;
  if (typeof at !== 'number' || !Number.isFinite(at)) return `at is not a number: ${JSON.stringify(at)}`;
  if (Math.abs(at) > MAX_TIME_MS) return `at is not a time in epoch ms: ${at}`;
  if (at > t) return `at is after t (${at} after ${t}): at says when a line recorded late happened`;
  return at;
}
