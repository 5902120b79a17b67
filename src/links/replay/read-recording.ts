/**
 * Streams a recording (docs/record-replay.md#the-recording-format) line by line, checking each
 * line. A bad line is yielded as `rejected` with its 1-based number and why, and reading goes on:
 * one corrupt line in a day of production traffic must not cost the rest of the day.
 *
 * The stages, each in its module: the file's text a read at a time (recording-source.ts: plain,
 * or through gunzip when it starts with 1f 8b, whatever its name), cut into lines
 * (file-lines.ts), each line checked on its own (record-line.ts), then kept or rejected by the
 * one ordering rule (line-order.ts). Compressed data that is cut off or corrupt ends that file
 * with one rejected line saying so.
 */
import { open } from 'node:fs/promises';
import { isObject, type JsonObject } from '../../protocol/frame.js';
import { FileLines } from './file-lines.js';
import { TrailingData } from './gzip-text.js';
import { lastKeptTime, LineOrder } from './line-order.js';
import { MAX_LINE_BYTES, parseLine, type ReadItem } from './record-line.js';
import { CHUNK_BYTES, gzipChunks, isGzip, nextChunk, plainChunks, zlibCode, type SourceChunk, type SourceEnd } from './recording-source.js';

export { lastKeptTime } from './line-order.js';
export { MAX_LINE_BYTES, parseLine, printable, type ReadItem, type RecordLine } from './record-line.js';

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

/** The text a scan looks for, as bytes; a RangeError when it is not ASCII text without line breaks. */
function needleOf(contains: string | undefined): Buffer | undefined {
  if (contains === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  if (contains === '' || !/^[\x00-\x7f]*$/.test(contains) || /[\r\n]/.test(contains)) {
    throw new RangeError(`readRecording: contains must be ASCII text without line breaks, got ${JSON.stringify(contains)}`);
  }
  return Buffer.from(contains, 'latin1');
}

/**
 * Every line of `files`, in order, as accepted records or rejections, a read's worth at a time
 * (one await per MiB instead of one per line: ~45,000 lines per hour of a 200-AP venue). Several
 * files are one recording split by rotation (FILE, FILE.1, ...): one ordering rule
 * (line-order.ts) runs across them, so `t` must keep rising from one to the next.
 */
export async function* readRecordingChunks(files: string | readonly string[], opts: ReadOptions = {}): AsyncGenerator<ReadItem[]> {
  const needle = needleOf(opts.contains);
  const order = new LineOrder(opts.contains === undefined);
  for (const file of typeof files === 'string' ? [files] : files) {
    yield* fileChunks(file, order, needle, opts);
    if (opts.signal?.aborted) return;
  }
  // The last lines have none after them to be judged by.
  if (order.waiting) yield order.release();
}

/** The lines of one file, a read's worth at a time; the rejection for an early end of its text after them. */
async function* fileChunks(file: string, order: LineOrder, needle: Buffer | undefined, opts: ReadOptions): AsyncGenerator<ReadItem[]> {
  const fh = await open(file, 'r');
  let source: AsyncGenerator<SourceChunk> | undefined;
  try {
    const size = opts.chunkBytes ?? CHUNK_BYTES;
    const compressed = await isGzip(fh);
    source = compressed ? gzipChunks(fh, size) : plainChunks(fh, size);
    const lines = new FileLines(file, order, { maxLine: opts.maxLineBytes ?? MAX_LINE_BYTES, contains: opts.contains, needle, compressed });
    let ended: SourceEnd | undefined;
    for (;;) {
      if (opts.signal?.aborted) return;
      const next = await nextChunk(source);
      if (next === undefined) break;
      if (!('data' in next)) {
        ended = next;
        break;
      }
      const out = lines.read(next);
      if (out.length > 0) yield lines.sized(out);
    }
    // Damage: the line it cut (or the next one) is reported once, with what is lost. Bytes after
    // the compressed data: every line before them is read, then they are reported (gzip itself
    // warns "trailing garbage ignored").
    const last = ended && 'broken' in ended ? lines.endedEarly(ended.broken, true) : lines.end();
    if (last.length > 0) yield lines.sized(last);
    if (ended && 'trailing' in ended) {
      const out = lines.endedEarly(ended.trailing, false);
      if (out.length > 0) yield lines.sized(out);
    }
  } finally {
    // Ends a read still in flight (stopped early) before the file closes.
    await source?.return(undefined);
    await fh.close();
  }
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
