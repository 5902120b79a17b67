/**
 * Where a recorder's lines go: the recording's files (ndjson-writer.ts), through a bounded
 * buffer. Lines gather in chunks and wait for the disk; when more than `maxBufferedBytes` wait
 * (the disk cannot keep up) new lines are dropped and counted rather than growing without bound,
 * so a link never waits on it. An output made with `openLater` touches no file until `open()`:
 * its lines wait in memory (bounded as ever). The first failed write stops the output, never
 * the links.
 */
import { earlierParts, NdjsonParts, RecordingError, regularFileBytes } from './ndjson-writer.js';

export interface OutputOptions {
  /** The recording file (FILE; rotated parts are FILE.1, FILE.2, ...). */
  path: string;
  /** Rotate once a file would pass this size in bytes. Absent: one file. */
  maxBytes?: number;
  /** Bound of bytes waiting for the disk before lines are dropped (default 64 MiB). */
  maxBufferedBytes?: number;
  /**
   * Wall-clock ms after which buffered lines are written even if the chunk is not full (default
   * 1000): a quiet link's lines reach the file within a second, so `tail -f` shows them and a
   * crash loses at most that much.
   */
  flushEveryMs?: number;
  /** A write failed (disk full, ...): recording stops, the links go on. Called once. */
  onError?: (error: RecordingError) => void;
  /**
   * Lines are being dropped because the disk is behind (`droppedLines` so far): called on the
   * first dropped line, then at most once a minute of wall time while drops go on (a replay's
   * clock may race), so the owner can log it.
   */
  onDropped?: (droppedLines: number) => void;
  /** Wall time in ms for onDropped's pace (default performance.now; tests pass their own). */
  wallNow?: () => number;
  /**
   * Touch no file until `open()`: lines wait in memory until then (bounded as ever). A server
   * opens its recording once its ports are bound, so a start that fails (a port in use) leaves
   * an earlier recording at the path as it was instead of truncating it.
   */
  openLater?: boolean;
}

export interface RecorderStats {
  lines: number;
  bytes: number;
  /** Files written so far (FILE, FILE.1, ...). */
  files: string[];
  droppedLines: number;
  malformedSkipped: number;
  /**
   * Why recording stopped early (a failed write), if it did. `lines` and `bytes` then count what
   * reached the file (a plain file is cut back to its last whole line; for a `.gz` recording,
   * what the compressor took), and `unwritten` the lines accepted after that, which are lost.
   */
  error?: string;
  unwritten?: number;
}

/** What a recording that starts replaces: the earlier file at its path and its parts (`FILE.N`). */
export interface Replaced {
  file: string;
  bytes: number;
  parts: number;
}

/** At most one onDropped call per this much wall time. */
const DROP_REPORT_MS = 60_000;

export class RecordingOutput {
  private parts: NdjsonParts | undefined;
  /** Lines written before open(), for it. */
  private readonly waiting: string[] = [];
  /** Bytes handed to the writer since its last flush, and bytes flushed but not yet on disk. */
  private unflushed = 0;
  private inFlight = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly st = { lines: 0, bytes: 0, droppedLines: 0, malformedSkipped: 0 };
  private lastDropReport = -Infinity;
  /** Set by the first failed write; recording has stopped. */
  private failure: RecordingError | undefined;
  private readonly maxBuffered: number;
  private readonly wallNow: () => number;
  private readonly flushTimer: NodeJS.Timeout;

  constructor(private readonly opts: OutputOptions) {
    this.maxBuffered = opts.maxBufferedBytes ?? 64 * 1024 * 1024;
    this.wallNow = opts.wallNow ?? (() => performance.now());
    this.parts = opts.openLater ? undefined : new NdjsonParts(opts.path, opts.maxBytes);
    // Wall time, not the process clock: a virtual clock may stand still between replayed lines.
    this.flushTimer = setInterval(() => { if (this.unflushed > 0) void this.flushNow(); }, opts.flushEveryMs ?? 1000);
    this.flushTimer.unref();
  }

  /** One line (without its break); dropped and counted when too much waits for the disk. */
  write(line: string): void {
    if (this.closed || this.failure) return;
    if (this.inFlight > this.maxBuffered || (!this.parts && this.unflushed > this.maxBuffered)) return this.drop();
    // Bytes, not characters: SSIDs and log text may be UTF-8, and the size limit is in bytes.
    const size = Buffer.byteLength(line) + 1;
    this.unflushed += size;
    this.st.lines++;
    this.st.bytes += size;
    if (this.parts) this.toParts(this.parts, line, size);
    else this.waiting.push(line);
  }

  /** An event with no frame to write (bytes that were not a JSON object): counted. */
  skipMalformed(): void {
    this.st.malformedSkipped++;
  }

  /** An output opened later starts writing (removing the parts of an earlier recording, truncating the file); says what it replaced. */
  open(): Replaced | undefined {
    const { path, maxBytes } = this.opts;
    if (this.parts || this.closed) return undefined;
    const bytes = regularFileBytes(path);
    const later = earlierParts(path).length;
    const parts = (this.parts = new NdjsonParts(path, maxBytes));
    for (const line of this.waiting.splice(0)) this.toParts(parts, line);
    return bytes > 0 || later > 0 ? { file: path, bytes, parts: later } : undefined;
  }

  /** Writes what is buffered now. */
  flushNow(): Promise<void> {
    return this.closed || this.failure || !this.parts ? Promise.resolve() : this.track(this.parts.flush());
  }

  stats(): RecorderStats {
    const { parts, failure, st } = this;
    const files = parts ? [...parts.files] : [];
    if (!failure) return { ...st, files };
    const written = parts?.written ?? { lines: 0, bytes: 0 };
    return { ...st, ...written, files, error: failure.message, unwritten: st.lines - written.lines };
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      clearInterval(this.flushTimer);
      this.closed = true;
      if (this.parts) await this.parts.close().catch((e: unknown) => this.fail(e));
      else {
        // Never opened (the server did not start): nothing was written, and nothing is counted.
        this.waiting.length = 0;
        this.st.lines = 0;
        this.st.bytes = 0;
      }
    })());
  }

  private drop(): void {
    this.st.droppedLines++;
    const now = this.wallNow();
    if (now - this.lastDropReport >= DROP_REPORT_MS) {
      this.lastDropReport = now;
      this.opts.onDropped?.(this.st.droppedLines);
    }
  }

  private toParts(into: NdjsonParts, line: string, size?: number): void {
    try {
      const flushed = into.write(line, size);
      if (flushed) void this.track(flushed);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Counts the bytes handed over since the last flush as waiting for the disk until `flushed` settles. */
  private track(flushed: Promise<void>): Promise<void> {
    const chunk = this.unflushed;
    this.unflushed = 0;
    this.inFlight += chunk;
    return flushed.then(() => { this.inFlight -= chunk; }, (e: unknown) => this.fail(e));
  }

  private fail(e: unknown): void {
    if (this.failure) return;
    this.failure = e instanceof RecordingError ? e : new RecordingError(this.parts?.files.at(-1) ?? this.opts.path, e);
    this.opts.onError?.(this.failure);
  }
}
