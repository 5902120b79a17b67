/**
 * Streams a recording (docs/record-replay.md#the-recording-format) line by line, checking each
 * line. A bad line is yielded as `rejected` with its 1-based number and why, and reading goes on:
 * one corrupt line in a day of production traffic must not cost the rest of the day.
 *
 * Checks: JSON object; `t` a finite number not smaller than the previous accepted line's `t`
 * (a file is ordered by `t`); `serial` 12 hex digits (any case, ':'/'-' separators); then either
 * `dir: "up"|"down"` with an object `frame` (a `down` frame must be a command: method and id)
 * or `event: "connect"|"disconnect"`, or `upload: {uuid, type, data_64}` (a file the AP uploaded). An `up` frame or an event may have `at`, when it happened if
 * that is before `t` (a frame the recorder got late: a NATS backlog, an edge's outage buffer):
 * a time in epoch ms, not after `t`. Blank lines are not data and are passed over silently.
 * An `up` frame is not judged further: the device actor checks it as it checks a live AP's.
 * A line longer than `maxLineBytes` (64 MiB) is rejected unread: no frame is that big, and a
 * file with no line breaks (an image, a database) must not end in V8's string length limit.
 * The cap is measured between "\n" bytes: a file whose lines end in a lone "\r" only is one
 * line to it, rejected whole past 64 MiB (our writers, and NDJSON tools, end lines in "\n").
 * A UTF-8 byte order mark at the start of a file (some editors write one) is passed over.
 * A gzip file (first bytes 1f 8b, whatever its name) is read through gunzip; compressed data
 * that is cut off or corrupt ends that file with one rejected line saying so.
 */
import { isAscii } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { constants } from 'node:zlib';
import { isCommand, isObject, type CommandFrame, type JsonObject } from '../../protocol/frame.js';
import { stateSourceText, type SourceBytes, type StateText } from '../../protocol/json-source.js';
import { gzipText, TrailingData } from './gzip-text.js';
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
type Accepted = Extract<ReadItem, { ok: true }>;

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

export interface ReadOptions {
  /** Stop early (the replayer's `stop()`). */
  signal?: { aborted: boolean };
  /**
   * Only lines that hold this ASCII text are parsed and yielded; the others are counted and
   * skipped, most of them without being decoded (a scan for a few kinds of line, e.g. connects,
   * need not decode and parse every state document). A line over the length cap is reported
   * whatever it holds.
   */
  contains?: string;
  /** Bytes per read (default 1 MiB; tests make it tiny to cut lines and characters across reads). */
  chunkBytes?: number;
  /** Longer lines are rejected without being read (default MAX_LINE_BYTES). */
  maxLineBytes?: number;
}

/** Bytes read from the file at a time; each read's lines are checked in one synchronous pass. */
const CHUNK_BYTES = 1 << 20;

/** Where `value` next occurs in `data` from `from` on; data.length when nowhere. */
function at(data: Buffer, value: Buffer | number, from: number): number {
  const i = data.indexOf(value, from);
  return i < 0 ? data.length : i;
}

/** How many "\r" bytes are in data[from, end). */
function crs(data: Buffer, from: number, end: number): number {
  let n = 0;
  for (let i = data.indexOf(13, from); i >= 0 && i < end; i = data.indexOf(13, i + 1)) n++;
  return n;
}

/** The next bytes of a recording's text (a fresh buffer: ingest keeps views of it) and how many bytes of the file they took. */
interface SourceChunk {
  data: Buffer;
  fileBytes: number;
}

/** A gzip member starts with 1f 8b: such a file is read through gunzip, whatever its name. */
async function isGzip(fh: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await fh.read(head, 0, 2, 0);
  return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** The zlib code of an error of the gunzip stream (data cut off or corrupt), undefined for any other error (reading the file). */
function zlibCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_') ? code : undefined;
}

/**
 * A plain file's bytes, `size` at a time. The next read runs while this one's lines are checked
 * and played (a read waits a few ms for the thread pool; an hour of a 200-AP venue is ~100 reads).
 */
async function* plainChunks(fh: FileHandle, size: number): AsyncGenerator<SourceChunk> {
  // A failed read settles as a value: it waits unawaited while lines are played (a paced replay
  // may wait minutes), and a rejection nobody handles yet would end the process.
  type Read = { bytesRead: number } | { error: unknown };
  const read = (buf: Buffer): Promise<Read> => fh.read(buf, 0, size, null).then((r) => r, (error: unknown) => ({ error }));
  let buf = Buffer.allocUnsafeSlow(size);
  let next: Promise<Read> | undefined = read(buf);
  try {
    while (next) {
      const done: Read = await next;
      next = undefined;
      if ('error' in done) throw done.error;
      if (done.bytesRead === 0) return;
      const filled = buf;
      // Reads are sequential (position null): the next starts only once this one is done.
      buf = Buffer.allocUnsafeSlow(size);
      next = read(buf);
      yield { data: filled.subarray(0, done.bytesRead), fileBytes: done.bytesRead };
    }
  } finally {
    // A read still in flight (stopped early) must end before the file closes.
    await next;
  }
}

/** Text out of inflate per chunk: what inflate produced in the step that hits damaged data is lost with it, so this bounds the loss. */
const GUNZIP_CHUNK = 64 * 1024;

/**
 * A gzip file's text, read `size` bytes of the file at a time (gzip-text.ts). Each output chunk
 * of inflate is its own region of memory, never written again, so views of it stay valid.
 */
function gzipChunks(fh: FileHandle, size: number): AsyncGenerator<SourceChunk> {
  return gzipText(plainChunks(fh, size), Math.max(constants.Z_MIN_CHUNK, Math.min(size, GUNZIP_CHUNK)));
}

/**
 * Rejected lines held behind a line whose look-ahead is not settled yet, at most: a thousand
 * lines of garbage between two lines is no clock glitch the look-ahead could tell.
 */
const MAX_HELD = 1024;

/**
 * Every line of `files`, in order, as accepted records or rejections, a read's worth at a time
 * (one await per MiB instead of one per line: ~45,000 lines per hour of a 200-AP venue). Several
 * files are one recording split by rotation (FILE, FILE.1, ...): `t` must keep rising across
 * them, and a single line whose `t` jumps ahead of the lines around it is rejected alone (two
 * lines of look-ahead, see `held`). Lines end at "\n", "\r\n" or a lone "\r", as node's readline
 * splits them.
 */
export async function* readRecordingChunks(files: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<ReadItem[]> {
  // The time of the last line that is played: no later line may go back before it.
  let lastT = -Infinity;
  // Look-ahead (not for a `contains` scan): an accepted line P waits, with the rejections read
  // after it, for the next accepted one. Not earlier than P: P is played. Earlier (N): the line
  // after decides which of the two is out of order. Not earlier than P again: N came late and
  // is rejected ("goes backwards", as before). Earlier: P jumped ahead (a clock glitch, a line
  // edited in) and it alone is rejected; taken as is, it made every later line "go backwards"
  // and cost the rest of the file. A file in order never has such lines, so loses none.
  const held: ReadItem[] = [];
  let suspect = -1; // index in `held` of N, when there is one
  const lookAhead = opts.contains === undefined;
  // A rejection goes after a line still held, so items stay in line order. Past MAX_HELD of
  // them (`cat new.ndjson old.ndjson`: every old line goes backwards) the held lines are settled
  // as the end of the file settles them (release), so memory stays bounded: 130,000 rejections
  // waited in memory for the next accepted line, and their spread into `out` overflowed the stack.
  const reject = (item: ReadItem, out: ReadItem[]): void => {
    if (held.length === 0) {
      out.push(item);
      return;
    }
    held.push(item);
    if (held.length > MAX_HELD) {
      lastT = (held[0] as Accepted).rec.t;
      for (const settled of release()) out.push(settled);
    }
  };
  const rejected = (item: Accepted, reason: string): ReadItem => ({ ok: false, line: item.line, file: item.file, size: item.size, reason });
  const late = (n: Accepted, tP: number): ReadItem => rejected(n, `t goes backwards (${n.rec.t} after ${tP})`);
  const accept = (item: Accepted, out: ReadItem[]): void => {
    if (!lookAhead) {
      lastT = item.rec.t;
      out.push(item);
      return;
    }
    // held[0], when there is one, is always the accepted line P.
    const p = held[0] as Accepted | undefined;
    if (!p) {
      held.push(item);
      return;
    }
    const tP = p.rec.t;
    if (suspect < 0) {
      if (item.rec.t < tP) suspect = held.length;
      else {
        lastT = tP;
        out.push(...held.splice(0));
      }
      held.push(item);
      return;
    }
    const n = held[suspect] as Accepted;
    if (item.rec.t >= tP) {
      held[suspect] = late(n, tP);
      lastT = tP;
      out.push(...held.splice(0));
      suspect = -1;
      held.push(item);
      return;
    }
    held[0] = rejected(p, `t jumps ahead of the lines around it (${tP}, the next two have ${n.rec.t} and ${item.rec.t}): out of order`);
    out.push(...held.splice(0, suspect));
    suspect = -1;
    // N is now the line held: the new one is judged against it.
    accept(item, out);
  };
  /** At the end: a suspect with no line after it is taken as late, as a line going backwards always was. */
  const release = (): ReadItem[] => {
    if (suspect >= 0) held[suspect] = late(held[suspect] as Accepted, (held[0] as Accepted).rec.t);
    suspect = -1;
    return held.splice(0);
  };

  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const { contains } = opts;
  // eslint-disable-next-line no-control-regex
  if (contains !== undefined && (contains === '' || !/^[\x00-\x7f]*$/.test(contains) || /[\r\n]/.test(contains))) {
    throw new RangeError(`readRecording: contains must be ASCII text without line breaks, got ${JSON.stringify(contains)}`);
  }
  const needle = contains === undefined ? undefined : Buffer.from(contains, 'latin1');
  for (const file of typeof files === 'string' ? [files] : files) {
    const fh = await open(file, 'r');
    let line = 0;
    const take = (text: string, out: ReadItem[], bytes?: SourceBytes): void => {
      line++;
      const size = text.length + 1;
      if (text.trim() === '') return;
      if (contains !== undefined && !text.includes(contains)) return;
      const r = parseLine(text, lastT, bytes);
      if ('reason' in r) return reject({ ok: false, line, file, size, reason: r.reason }, out);
      accept({ ok: true, line, file, size, rec: r.rec }, out);
    };
    // A line of `length` bytes over the cap: counted and rejected, never decoded.
    const tooLong = (length: number, out: ReadItem[]): void => {
      line++;
      reject({ ok: false, line, file, size: length + 1, reason: `line longer than ${maxLine} bytes (${length} bytes), not read` }, out);
    };
    // `text` ended at "\n" (terminated) or at the end of the file. A "\r" inside it is a line
    // break of its own (JSON text cannot hold a raw CR); at the end of the file an empty last part is no line.
    const takeText = (text: string, out: ReadItem[], terminated: boolean, bytes?: SourceBytes): void => {
      if (text.indexOf('\r') < 0) return take(text, out, bytes);
      const parts = text.split('\r');
      parts.forEach((p, i) => { if (terminated || i < parts.length - 1 || p !== '') take(p, out); });
    };
    // The lines of `data` that end in it, decoded and checked into `out`; returns where the rest
    // starts. "\n" is one byte that never occurs inside a UTF-8 sequence: split on bytes, decode
    // lines. "\r\n" is one break; the carry keeps such a pair together across reads.
    const takeLines = (data: Buffer, out: ReadItem[]): number => {
      // An ASCII line keeps where its bytes are (ingest stores a state's bytes as they are). One
      // check per read; lines of a read that is not all ASCII are checked one by one. (A line as
      // long in characters as in bytes is not enough: an invalid byte decodes to one U+FFFD.)
      const ascii = isAscii(data);
      let from = 0;
      // With `contains`: where it and a "\r" next occur at or after `from` (data.length: nowhere).
      let hit = -1;
      let cr = -1;
      for (let nl = data.indexOf(10, from); nl >= 0; nl = data.indexOf(10, from)) {
        const end = nl > from && data[nl - 1] === 13 ? nl - 1 : nl;
        if (end - from > maxLine) tooLong(end - from, out);
        else if (needle && (hit = hit < from ? at(data, needle, from) : hit) >= end) {
          // Not in this line's bytes, so in none of its parts: counted, not decoded. (The
          // needle holds no line break, so a match that starts in the line ends in it.) A lone
          // "\r" in it would have made it several lines.
          if (cr < from) cr = at(data, 13, from);
          line += cr < end ? 1 + crs(data, from, end) : 1;
        } else if (ascii || isAscii(data.subarray(from, end))) {
          // ASCII bytes are their characters: latin1 copies them without UTF-8 decoding.
          takeText(data.toString('latin1', from, end), out, true, { buf: data, at: from });
        } else takeText(data.toString('utf8', from, end), out, true);
        from = nl + 1;
      }
      return from;
    };
    const size = opts.chunkBytes ?? CHUNK_BYTES;
    let source: AsyncGenerator<SourceChunk> | undefined;
    try {
      const compressed = await isGzip(fh);
      source = compressed ? gzipChunks(fh, size) : plainChunks(fh, size);
      // The start of a line cut by the last read(s): its parts (copied, so the views of their
      // buffers can end), its length and whether it ends in "\r" (half of a "\r\n" that the
      // next read may complete). Past the cap the parts are dropped and only counted; a "\r" at
      // the end does not count against the cap.
      let carry: Buffer[] = [];
      let carried = 0;
      let carryEndsInCr = false;
      const keep = maxLine + 1;
      let atStart = true;
      // Why a compressed file ends before its end (cut off, corrupt): the rest of it is unreadable.
      let broken: string | undefined;
      // Bytes after the last whole gzip member that are not gzip data: every line before them
      // is read, then they are reported (gzip itself warns "trailing garbage ignored").
      let trailing: string | undefined;
      // Bytes of the file and of its (decompressed) text since the last lines were yielded: a
      // compressed file's lines are sized by their share of the file, for progress.
      let srcBytes = 0;
      let rawBytes = 0;
      const sized = (out: ReadItem[]): ReadItem[] => {
        if (compressed) for (const item of out) item.size = rawBytes > 0 ? (item.size * srcBytes) / rawBytes : 0;
        srcBytes = 0;
        rawBytes = 0;
        return out;
      };
      for (;;) {
        if (opts.signal?.aborted) return;
        let next: IteratorResult<SourceChunk>;
        try {
          next = await source.next();
        } catch (e) {
          if (e instanceof TrailingData) {
            trailing = `${e.message}: ignored`;
            break;
          }
          const code = zlibCode(e);
          if (!code) throw e;
          const what = code === 'Z_BUF_ERROR' ? 'compressed data cut off' : 'compressed data corrupt';
          broken = `${what} (${(e as Error).message}): the rest of this file is not read`;
          break;
        }
        if (next.done) break;
        let data = next.value.data;
        srcBytes += next.value.fileBytes;
        rawBytes += data.length;
        if (atStart) {
          atStart = false;
          if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3);
        }
        const out: ReadItem[] = [];
        if (carried > 0) {
          // Only the line cut by the last read needs its parts joined, not the whole read.
          const nl = data.indexOf(10);
          if (nl < 0) {
            if (carried <= keep) carry.push(Buffer.from(data));
            carried += data.length;
            carryEndsInCr = data.length > 0 && data[data.length - 1] === 13;
            if (carried > keep) carry = [];
            continue;
          }
          // The line's length without its break ("\r\n" may straddle the reads).
          const length = carried + nl - ((nl > 0 ? data[nl - 1] === 13 : carryEndsInCr) ? 1 : 0);
          if (length > maxLine) tooLong(length, out);
          else takeLines(Buffer.concat([...carry, data.subarray(0, nl + 1)]), out);
          carry = [];
          carried = 0;
          data = data.subarray(nl + 1);
        }
        const from = takeLines(data, out);
        // The rest has no "\n" yet: keep it for the next read.
        if (from < data.length) {
          carried = data.length - from;
          carryEndsInCr = data[data.length - 1] === 13;
          carry = carried <= keep ? [Buffer.from(data.subarray(from))] : [];
        }
        if (out.length > 0) yield sized(out);
      }
      if (broken !== undefined) {
        // The line the damage cut (or the next one): reported once, with what is lost.
        const out: ReadItem[] = [];
        reject({ ok: false, line: line + 1, file, size: carried, reason: broken }, out);
        if (out.length > 0) yield sized(out);
      } else if (carried > 0) {
        const out: ReadItem[] = [];
        // At the end of the file a last "\r" ends the line (it is no line of its own).
        const length = carried - (carryEndsInCr ? 1 : 0);
        if (length > maxLine) tooLong(length, out);
        else takeText(Buffer.concat(carry).toString('utf8'), out, false);
        if (out.length > 0) yield sized(out);
      }
      if (trailing !== undefined) {
        const out: ReadItem[] = [];
        reject({ ok: false, line: line + 1, file, size: 0, reason: trailing }, out);
        if (out.length > 0) yield sized(out);
      }
    } finally {
      // Ends a read still in flight (stopped early) before the file closes.
      await source?.return(undefined);
      await fh.close();
    }
  }
  // The last lines have none after them to be judged by.
  if (held.length > 0 && !opts.signal?.aborted) yield release();
}

/**
 * The params of each recorded AP's first `connect` frame that `accept` takes (the one its actor
 * would accept), by serial, in the order they connect.
 * Only lines that contain `"connect"` are decoded and parsed: a state's `"connected"` does not
 * match, so a scan of an hour of a 200-AP venue parses a few hundred lines, not every state
 * document (~85 ms for the hour's 104 MB, ~30 of them the reads; decoding every line to look
 * for it took ~115).
 */
export async function recordedConnects(files: string | readonly string[], accept: (frame: JsonObject) => boolean = () => true): Promise<Map<string, JsonObject>> {
  const found = new Map<string, JsonObject>();
  for await (const item of readRecording(files, { contains: '"connect"' })) {
    if (!item.ok || item.rec.kind !== 'up' || item.rec.frame.method !== 'connect' || found.has(item.rec.serial)) continue;
    // One its actor will refuse (a uuid out of range) is passed over for the AP's next connect.
    if (!accept(item.rec.frame)) continue;
    const params = item.rec.frame.params;
    found.set(item.rec.serial, isObject(params) ? params : {});
  }
  return found;
}

/** Every line of `files`, in order, one at a time (see readRecordingChunks). */
export async function* readRecording(files: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<ReadItem> {
  for await (const chunk of readRecordingChunks(files, opts)) {
    for (const item of chunk) {
      if (opts.signal?.aborted) return;
      yield item;
    }
  }
}

/**
 * Lines read from the start of a recording, none of them a recording line, after which a replay
 * gives up on the file as not a recording (an image, a video, a tarball passed by mistake): a
 * 4 GB binary file holds ~16 million "lines", and rejecting each of them would take minutes.
 * A real recording's first line is a recording line; a damaged head (a zeroed block, a cut
 * line) is a few lines, not a thousand.
 */
export const HEAD_LINES = 1000;

/**
 * A file whose first HEAD_LINES lines, or all its lines when it has fewer, are not one recording
 * line: nothing is played.
 */
export class NotARecordingError extends Error {
  override name = 'NotARecordingError';
  constructor(readonly file: string, readonly first: { line: number; reason: string }, readonly lines = HEAD_LINES) {
    super(`${file} does not look like a recording: none of its ${lines < HEAD_LINES ? '' : 'first '}${lines} lines is a recording line (line ${first.line}: ${first.reason})`);
  }
}

/**
 * Time of the first valid line of a recording, or undefined when it has no line at all (an
 * empty file, blank lines). Throws NotARecordingError when its first HEAD_LINES lines, or all of
 * them in a shorter file (a small image, say, which would otherwise replay as 0 frames into a
 * data dir that `serve` then kept serving), hold no valid one.
 */
export async function firstTime(files: string | readonly string[]): Promise<number | undefined> {
  const signal = { aborted: false };
  let lines = 0;
  let first: { line: number; file: string; reason: string } | undefined;
  // Small reads: only the first valid line is wanted, not a MiB of checked lines.
  for await (const item of readRecording(files, { signal, chunkBytes: 64 * 1024 })) {
    if (item.ok) {
      signal.aborted = true;
      return item.rec.t;
    }
    first ??= item;
    if (++lines >= HEAD_LINES) {
      signal.aborted = true;
      throw new NotARecordingError(first.file, first);
    }
  }
  if (first) throw new NotARecordingError(first.file, first, lines);
  return undefined;
}

/** Text at the end of a recording's last part that lastTime looks through. */
const TAIL_BYTES = 1024 * 1024;

/**
 * Time of the last line a replay of the recording would play, read from the end of its last
 * part with a valid line there (its last MiB of text; a rotation that had just begun leaves an
 * empty last part); undefined when there is none. A plain part's end is read directly; a gzip
 * part's only by inflating all of it (~0.3 s for an hour of a 200-AP venue, 12 MB). For placing
 * a replay and for notes about the span a recording covers.
 */
export async function lastTime(files: string | readonly string[]): Promise<number | undefined> {
  const list = typeof files === 'string' ? [files] : files;
  for (let part = list.length - 1; part >= 0; part--) {
    const t = lastKeptTime(await tailTimes(list[part]!));
    if (t !== undefined) return t;
  }
  return undefined;
}

/** The times of the valid lines in the last MiB of text of `file`, in order. */
async function tailTimes(file: string): Promise<number[]> {
  const fh = await open(file, 'r');
  try {
    let tail: Buffer;
    if (await isGzip(fh)) {
      // The last chunks of text that hold at least TAIL_BYTES; damage or junk ends the text early.
      const kept: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const { data } of gzipChunks(fh, CHUNK_BYTES)) {
          kept.push(data);
          bytes += data.length;
          while (kept.length > 1 && bytes - kept[0]!.length >= TAIL_BYTES) bytes -= kept.shift()!.length;
        }
      } catch (e) {
        if (!(e instanceof TrailingData) && zlibCode(e) === undefined) throw e;
      }
      tail = Buffer.concat(kept);
    } else {
      const { size } = await fh.stat();
      tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
      const { bytesRead } = await fh.read(tail, 0, tail.length, size - tail.length);
      tail = tail.subarray(0, bytesRead);
    }
    const times: number[] = [];
    // The first piece may be the end of a line cut by the read: if it parses, it is a line.
    for (const line of tail.toString('utf8').split('\n')) {
      const parsed = line.trim() === '' ? undefined : parseLine(line.replace(/\r$/, ''), -Infinity);
      if (parsed && 'rec' in parsed) times.push(parsed.rec.t);
    }
    return times;
  } finally {
    await fh.close();
  }
}

/**
 * The last of `times` that the reader's ordering keeps: a time earlier than the one kept before
 * it is rejected (`t goes backwards`), and a time P followed by an earlier N is settled by the one
 * after N, as the reader settles it (not earlier than P: N came late; earlier: P jumped ahead and
 * is dropped). A last time that jumps ahead has nothing after it to judge it and is kept, as the
 * replay plays it.
 */
export function lastKeptTime(times: readonly number[]): number | undefined {
  let last: number | undefined;
  for (let i = 0; i < times.length; i++) {
    const p = times[i]!;
    if (last !== undefined && p < last) continue;
    const n = times[i + 1];
    const after = times[i + 2];
    if (n !== undefined && n < p && after !== undefined && after < p) continue;
    last = p;
  }
  return last;
}
