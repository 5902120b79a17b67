/**
 * A buffered, ordered NDJSON line writer with bounded memory. Lines are joined into chunks of
 * about `chunkBytes` and written in order; when the stream's buffer is full the writer waits
 * for 'drain' (so memory stays bounded whatever the producer's pace). `close()` flushes and
 * ends the stream and resolves once the data is on disk (the 'finish'/'close' of the stream).
 */
import { once } from 'node:events';
import { constants as fsConstants, createWriteStream, existsSync, fstatSync, openSync, readdirSync, rmSync, statSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';

/**
 * Writing a recording failed (disk full, no permission, the file's folder removed): names the
 * file and keeps the system error (`code`, e.g. ENOSPC) as its cause. The lines written before
 * it stay in the file.
 */
export class RecordingError extends Error {
  readonly code: string | undefined;

  constructor(readonly file: string, cause: unknown) {
    const err = cause instanceof Error ? cause : new Error(String(cause));
    super(`recording ${file}: ${err.message}`, { cause: err });
    this.name = 'RecordingError';
    this.code = (err as NodeJS.ErrnoException).code;
  }
}

export interface NdjsonWriterOptions {
  /** Bytes to gather before a write (default 256 KiB). */
  chunkBytes?: number;
  /** Called after each write of gathered lines (a compressor ends its block there). */
  afterWrite?: () => void;
  /** Settles when everything written has reached its file (the end of a pipeline behind `out`). */
  done?: Promise<void>;
  /**
   * A regular file that `out` writes from its start. After a failed write it is cut back to the
   * last chunk the stream confirmed, so it ends with a whole line: a disk that fills mid-write
   * leaves part of a chunk behind, which a replay would report as a broken line.
   */
  cutBackOnFailure?: string;
}

/** Lines and their bytes (UTF-8, newlines included). */
export interface LineCount {
  lines: number;
  bytes: number;
}

export class NdjsonWriter {
  private parts: string[] = [];
  private size = 0;
  private lines = 0;
  private closed = false;
  private readonly chunkBytes: number;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private readonly afterWrite: (() => void) | undefined;
  private readonly done: Promise<void> | undefined;
  private readonly cutBack: string | undefined;
  private readonly confirmed: LineCount = { lines: 0, bytes: 0 };

  /** Keeps the first failure (of the stream, its pipeline, or a flush). */
  private readonly failed = (e: unknown): void => {
    this.failure ??= e instanceof Error ? e : new Error(String(e));
  };

  constructor(private readonly out: NodeJS.WritableStream, opts: NdjsonWriterOptions = {}) {
    this.chunkBytes = opts.chunkBytes ?? 256 * 1024;
    this.afterWrite = opts.afterWrite;
    this.cutBack = opts.cutBackOnFailure;
    out.on('error', (e: Error) => { this.failure ??= e; });
    this.done = opts.done?.catch(this.failed);
  }

  /** Number of lines accepted so far. */
  get count(): number {
    return this.lines;
  }

  /**
   * Lines the stream has confirmed (its write callbacks): for a file, lines in the file; for a
   * compressor, lines it took (its file may end before the last of them when that failed).
   */
  get written(): LineCount {
    return { ...this.confirmed };
  }

  /** Queue one line (without its newline). Returns a promise only when the caller should wait. */
  write(line: string): Promise<void> | undefined {
    if (this.closed) throw new Error('NdjsonWriter: write after close');
    if (this.failure) throw this.failure;
    this.parts.push(line);
    this.size += line.length + 1;
    this.lines++;
    return this.size >= this.chunkBytes ? this.flush() : undefined;
  }

  /** Write what is buffered; resolves when the stream accepted it (after 'drain' if needed). */
  flush(): Promise<void> {
    if (this.parts.length === 0) return this.chain;
    const text = `${this.parts.join('\n')}\n`;
    const lines = this.parts.length;
    this.parts = [];
    this.size = 0;
    this.chain = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      const wait = !this.out.write(text, (e?: Error | null) => {
        if (e) return;
        this.confirmed.lines += lines;
        this.confirmed.bytes += Buffer.byteLength(text);
      });
      this.afterWrite?.();
      if (wait) await once(this.out as NodeJS.EventEmitter, 'drain');
    });
    return this.chain;
  }

  /** Flush, end the stream and wait until it has finished; rejects with the stream's failure. */
  async close(): Promise<void> {
    if (this.closed) return this.chain;
    this.closed = true;
    // A failed flush is the stream's failure: the stream is still ended and the file cut back.
    await this.flush().catch(this.failed);
    // `finished`, not a wait for 'finish': a stream that failed after it accepted the last write
    // is destroyed and never finishes, and close() must not wait for it forever.
    const done = finished(this.out);
    this.out.end();
    await done.catch(this.failed);
    await this.done;
    if (this.failure) {
      // Best effort: a file that cannot be cut back keeps its torn tail, which a replay reports.
      if (this.cutBack !== undefined) {
        const kept = await cutToWholeLine(this.cutBack, this.confirmed.bytes).catch(() => undefined);
        if (kept) {
          this.confirmed.lines += kept.lines;
          this.confirmed.bytes += kept.bytes;
        }
      }
      throw this.failure;
    }
  }
}

/**
 * Cuts `file` back to its last whole line after `from` (a line boundary: the end of the last
 * confirmed chunk). A write that failed part-way (a disk that filled) leaves the start of a chunk
 * behind: its whole lines stay, the torn one goes. Returns the lines kept after `from`.
 */
async function cutToWholeLine(file: string, from: number): Promise<LineCount> {
  const handle = await open(file, 'r+');
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(Math.max(0, size - from));
    const { bytesRead } = await handle.read(tail, 0, tail.length, from);
    const end = tail.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
    let lines = 0;
    for (let i = tail.indexOf(0x0a); i >= 0 && i < end; i = tail.indexOf(0x0a, i + 1)) lines++;
    await handle.truncate(from + end);
    return { lines, bytes: end };
  } finally {
    await handle.close();
  }
}

const GZ = '.gz';

/** Whether `path` is this process's standard output (/dev/stdout, /dev/fd/1, or the file or pipe it was redirected to). */
export function isStdout(path: string): boolean {
  try {
    const [a, b] = [fstatSync(1), statSync(path)];
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/**
 * An NdjsonWriter into `file`. A name ending in `.gz` is written gzip-compressed; each write of
 * gathered lines ends a deflate block (Z_SYNC_FLUSH), so what was written can be read back from a
 * file whose process died before the gzip trailer (the replay reads it up to the cut).
 */
export function ndjsonFileWriter(file: string, opts: Pick<NdjsonWriterOptions, 'chunkBytes'> = {}): NdjsonWriter {
  const { stream, regularFile } = openTarget(file);
  if (!file.endsWith(GZ)) return new NdjsonWriter(stream, { ...opts, ...(regularFile ? { cutBackOnFailure: file } : {}) });
  const gzip = createGzip();
  // A failed file write destroys the compressor with that error: the writer sees it either way.
  const done = pipeline(gzip, stream);
  return new NdjsonWriter(gzip, { ...opts, done, afterWrite: () => gzip.flush(constants.Z_SYNC_FLUSH) });
}

/**
 * The stream a recording file is written through.
 * - This process's standard output goes through fd 1: opening /dev/stdout again fails when it is
 *   a socket (ENXIO: a parent process's pipe often is one) and truncates a redirected file.
 * - A pipe or socket (a FIFO by path, or fd 1) is written from the event loop, never blocking:
 *   fs writes to a pipe whose reader stalls hold a pool thread for good, and exiting joins those
 *   threads, so the process could not end. Waiting lines are bounded by the recorder, and its
 *   close gives up on them (closeRecorder). A FIFO is opened read-write, so the open does not
 *   wait for a reader either (what is written before one comes waits in the pipe).
 */
function openTarget(file: string): { stream: NodeJS.WritableStream; regularFile: boolean } {
  const stdout = isStdout(file);
  const st = stdout ? fstatSync(1) : statOrUndefined(file);
  if (st && (st.isFIFO() || st.isSocket())) {
    const fd = stdout ? 1 : openSync(file, fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
    return { stream: new Socket({ fd, readable: false, writable: true }), regularFile: false };
  }
  if (stdout) return { stream: createWriteStream('', { fd: 1, autoClose: false }), regularFile: false };
  // Written from its start (truncated at open): a file, not a device such as /dev/full.
  return { stream: createWriteStream(file), regularFile: st === undefined || st.isFile() };
}

/** Size of the regular file at `path`, 0 when there is none (a new path, a pipe, a device). */
export function regularFileBytes(path: string): number {
  const st = statOrUndefined(path);
  return st?.isFile() ? st.size : 0;
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

const stemOf = (path: string): string => (path.endsWith(GZ) ? path.slice(0, -GZ.length) : path);

/** Part `index` of a recording: FILE, then FILE.1, FILE.2, ...; after FILE.gz, FILE.1.gz, FILE.2.gz, ... */
export function partPath(path: string, index: number): string {
  if (index === 0) return path;
  return path.endsWith(GZ) ? `${stemOf(path)}.${index}${GZ}` : `${path}.${index}`;
}

/**
 * Part `index` (>= 1) of the recording at `path` as it is on disk, compressed or not (parts
 * may be gzipped once written, as logrotate does): FILE.1 or FILE.1.gz. Undefined when neither exists.
 */
export function foundPart(path: string, index: number): string | undefined {
  const plain = `${stemOf(path)}.${index}`;
  return existsSync(plain) ? plain : existsSync(plain + GZ) ? plain + GZ : undefined;
}

/** What follows `FILE.` in a later part's name: N (a positive integer, no leading zero), plain or gzipped. */
const PART_SUFFIX = /^([1-9]\d*)(\.gz)?$/;

/** Whether `file` is named as a later part (FILE.N or FILE.N.gz, N >= 1) of the recording at `path`: one a recording to `path` may delete or write. */
export function isPartName(path: string, file: string): boolean {
  const stem = stemOf(path);
  return file.startsWith(`${stem}.`) && PART_SUFFIX.test(file.slice(stem.length + 1));
}

/** The parts after the first of the recording at `path` that are on disk (foundPart 1, 2, ... up to the first missing). */
export function laterParts(path: string): string[] {
  const parts: string[] = [];
  for (let i = 1, part = foundPart(path, i); part; part = foundPart(path, ++i)) parts.push(part);
  return parts;
}

/**
 * Every later part of the recording at `path` on its folder's list, whatever the gaps between
 * them, both forms of an index (FILE.3 and FILE.3.gz), by index. Not FILE.bak, FILE.1x, FILE.01.
 * A folder that cannot be listed (search permission only) is probed part by part instead, up to
 * the first missing.
 */
function partsOnDisk(path: string): { index: number; file: string }[] {
  const stem = stemOf(path);
  const folder = dirname(stem);
  const prefix = `${basename(stem)}.`;
  const found: { index: number; file: string }[] = [];
  try {
    for (const e of readdirSync(folder, { withFileTypes: true })) {
      const m = e.name.startsWith(prefix) && !e.isDirectory() ? PART_SUFFIX.exec(e.name.slice(prefix.length)) : null;
      if (m) found.push({ index: Number(m[1]), file: join(folder, e.name) });
    }
  } catch {
    for (let i = 1; foundPart(path, i); i++) {
      for (const file of [`${stem}.${i}`, `${stem}.${i}${GZ}`]) if (existsSync(file)) found.push({ index: i, file });
    }
  }
  // Plain before gzipped within an index, as foundPart picks them.
  return found.sort((a, b) => a.index - b.index || a.file.length - b.file.length);
}

/**
 * The parts of the recording at `path` after the first missing one (FILE, FILE.1, FILE.3:
 * FILE.3), by index. A replay reads up to the gap only (what follows is not known to be of
 * this recording: a part removed by hand, a copy made in pieces); this names what it leaves.
 */
export function partsAfterGap(path: string): string[] {
  const parts = partsOnDisk(path);
  let gap = 1;
  for (const p of parts) if (p.index === gap) gap++;
  return parts.filter((p) => p.index > gap).map((p) => p.file);
}

/**
 * Removes every later part of the recording at `path` (FILE.N, FILE.N.gz), gaps or not: a
 * recording starting there must not have an earlier one's parts read as its own (after
 * `rm FILE.1`, FILE.2 was left and replayed with the new FILE).
 */
export function removeParts(path: string): void {
  for (const file of earlierParts(path)) rmSync(file, { force: true });
}

/** The later parts of the recording at `path` that a recording starting there removes (removeParts): every FILE.N and FILE.N.gz. */
export function earlierParts(path: string): string[] {
  return partsOnDisk(path).map((p) => p.file);
}

/**
 * NDJSON lines into FILE, cut at a line boundary into FILE.1, FILE.2, ... once a part would pass
 * `maxBytes` (no limit: one file). Parts of an earlier recording to the same path are removed
 * first (removeParts: all of them, gaps or not), so the parts on disk are always one recording.
 * Writes wait as NdjsonWriter's do; a failed write makes the next write, flush or close throw
 * it, as a RecordingError naming the part.
 */
export class NdjsonParts {
  readonly files: string[] = [];
  private writer!: NdjsonWriter;
  private readonly writers: NdjsonWriter[] = [];
  private fileBytes = 0;
  private readonly ending: Promise<void>[] = [];
  private failure: RecordingError | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly path: string, private readonly maxBytes?: number) {
    if (maxBytes !== undefined && !(maxBytes > 0)) throw new RangeError(`maxBytes must be > 0, got ${maxBytes}`);
    removeParts(path);
    this.open();
  }

  private open(): void {
    const file = partPath(this.path, this.files.length);
    this.files.push(file);
    this.writer = ndjsonFileWriter(file);
    this.writers.push(this.writer);
    this.fileBytes = 0;
  }

  /** Lines the parts' streams confirmed, over all parts (NdjsonWriter.written). */
  get written(): LineCount {
    const sum = { lines: 0, bytes: 0 };
    for (const w of this.writers) {
      const { lines, bytes } = w.written;
      sum.lines += lines;
      sum.bytes += bytes;
    }
    return sum;
  }

  /** The first failure, named after the part it happened in. */
  private failed(file: string, e: unknown): RecordingError {
    this.failure ??= e instanceof RecordingError ? e : new RecordingError(file, e);
    return this.failure;
  }

  private endPart(): void {
    // Held until flush or close reports it: a part that fails while nobody waits is not lost.
    const file = this.files.at(-1)!;
    this.ending.push(this.writer.close().catch((e: unknown) => { this.failed(file, e); }));
  }

  /** Queue one line (no newline); `size` its bytes with the newline. A promise when the caller should wait. */
  write(line: string, size = Buffer.byteLength(line) + 1): Promise<void> | undefined {
    if (this.failure) throw this.failure;
    if (this.maxBytes !== undefined && this.fileBytes > 0 && this.fileBytes + size > this.maxBytes) {
      this.endPart();
      this.open();
    }
    this.fileBytes += size;
    const file = this.files.at(-1)!;
    try {
      return this.writer.write(line)?.catch((e: unknown) => { throw this.failed(file, e); });
    } catch (e) {
      throw this.failed(file, e);
    }
  }

  /** Resolves when every line so far is handed to the disk (every earlier part ended). */
  async flush(): Promise<void> {
    const file = this.files.at(-1)!;
    await Promise.all([...this.ending, this.writer.flush().catch((e: unknown) => { throw this.failed(file, e); })]);
    if (this.failure) throw this.failure;
  }

  /** Flush and end every part. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.endPart();
      await Promise.all(this.ending);
      if (this.failure) throw this.failure;
    })();
    return this.closing;
  }
}
