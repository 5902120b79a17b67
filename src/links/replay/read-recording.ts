/**
 * Streams a recording (architecture.md, "Recording format") line by line, checking each line.
 * A bad line is yielded as `rejected` with its 1-based number and why, and reading goes on:
 * one corrupt line in a day of production traffic must not cost the rest of the day.
 *
 * Checks: JSON object; `t` a finite number not smaller than the previous accepted line's `t`
 * (a file is ordered by `t`); `serial` 12 hex digits (any case, ':'/'-' separators); then either
 * `dir: "up"|"down"` with an object `frame` (a `down` frame must be a command: method and id)
 * or `event: "connect"|"disconnect"`. Blank lines are not data and are passed over silently.
 * An `up` frame is not judged further: the device actor checks it as it checks a live AP's.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isCommand, isObject, type CommandFrame, type JsonObject } from '../../protocol/frame.js';
import { rememberStateText } from '../../protocol/json-source.js';
import { isSerial, normalizeSerial } from '../../protocol/serial.js';

export type RecordLine =
  | { kind: 'up'; t: number; serial: string; frame: JsonObject; bytes: number }
  | { kind: 'down'; t: number; serial: string; frame: CommandFrame }
  | { kind: 'connect' | 'disconnect'; t: number; serial: string };

export type ReadItem =
  | { ok: true; line: number; file: string; size: number; rec: RecordLine }
  | { ok: false; line: number; file: string; size: number; reason: string };

/** What the envelope adds around a frame written by our writers: `{"t":..,"serial":..,"dir":"up","frame":` ... `}`. */
const UP_FRAME_KEY = ',"dir":"up","frame":';

/**
 * Size of the frame as the AP sent it, for the device's rxBytes. Our writers put `frame` last,
 * so it is the rest of the line; other writers' lines are measured by serialising the frame.
 */
function frameBytes(text: string, frame: JsonObject): number {
  const at = text.indexOf(UP_FRAME_KEY);
  if (at > 0 && text.endsWith('}}')) {
    const start = at + UP_FRAME_KEY.length;
    // The state's own text, so ingest does not serialise it again.
    if (frame.method === 'state') rememberStateText(frame, text, start, text.length - 1);
    return Buffer.byteLength(text) - Buffer.byteLength(text.slice(0, start)) - 1;
  }
  return Buffer.byteLength(JSON.stringify(frame));
}

/** Check one line. `lastT` is the time of the last accepted line (-Infinity before the first). */
export function parseLine(text: string, lastT: number): { rec: RecordLine } | { reason: string } {
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
  if (t < lastT) return { reason: `t goes backwards (${t} after ${lastT})` };
  if (serial === undefined) return { reason: 'missing field serial' };
  if (!isSerial(serial)) return { reason: `serial ${JSON.stringify(serial)} is not 12 hex digits` };
  const s = normalizeSerial(serial);
  if (v.event !== undefined) {
    if (v.event === 'connect' || v.event === 'disconnect') return { rec: { kind: v.event, t, serial: s } };
    return { reason: `event must be connect or disconnect, got ${JSON.stringify(v.event)}` };
  }
  if (v.dir === undefined) return { reason: 'missing field dir (or event)' };
  if (v.dir !== 'up' && v.dir !== 'down') return { reason: `dir must be up or down, got ${JSON.stringify(v.dir)}` };
  if (v.frame === undefined) return { reason: 'missing field frame' };
  if (!isObject(v.frame)) return { reason: 'frame is not a JSON object' };
  if (v.dir === 'down') {
    if (!isCommand(v.frame)) return { reason: 'down frame is not a command (jsonrpc 2.0, known method, numeric id, params)' };
    return { rec: { kind: 'down', t, serial: s, frame: v.frame } };
  }
  return { rec: { kind: 'up', t, serial: s, frame: v.frame, bytes: frameBytes(text, v.frame) } };
}

export interface ReadOptions {
  /** Stop early (the replayer's `stop()`). */
  signal?: { aborted: boolean };
}

/**
 * Every line of `files`, in order, as accepted records or rejections. Several files are one
 * recording split by rotation (FILE, FILE.1, ...): `t` must keep rising across them.
 */
export async function* readRecording(files: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<ReadItem> {
  let lastT = -Infinity;
  for (const file of typeof files === 'string' ? [files] : files) {
    const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    let line = 0;
    try {
      for await (const text of rl) {
        line++;
        if (opts.signal?.aborted) return;
        const size = text.length + 1;
        if (text.trim() === '') continue;
        const r = parseLine(text, lastT);
        if ('reason' in r) {
          yield { ok: false, line, file, size, reason: r.reason };
        } else {
          lastT = r.rec.t;
          yield { ok: true, line, file, size, rec: r.rec };
        }
      }
    } finally {
      rl.close();
    }
  }
}

/** Time of the first valid line of a recording, or undefined when it has none. */
export async function firstTime(files: string | readonly string[]): Promise<number | undefined> {
  const signal = { aborted: false };
  for await (const item of readRecording(files, { signal })) {
    if (item.ok) {
      signal.aborted = true;
      return item.rec.t;
    }
  }
  return undefined;
}
