/**
 * The recorder: one per process, shared by every link it wraps (it wraps any link). Every frame in
 * both directions and every connect/disconnect goes to one NDJSON file in the recording format
 * (docs/record-replay.md#the-recording-format):
 *   {"t":<ms>,"serial":"<12 hex>","dir":"up"|"down","frame":{...}}
 *   {"t":<ms>,"serial":"<12 hex>","event":"connect"|"disconnect"}
 *   {"t":<ms>,"serial":"<12 hex>","upload":{"uuid":"<command uuid>","type":"pcap"|...,"data_64":"<base64>"}}
 *   (a file the AP uploaded for a command: not a frame, it came over HTTP to the uploader)
 *
 *   const recorder = createRecorder({ path: 'traffic.ndjson', maxBytes: 64e6, clock });
 *   fleet.attach(recorder.wrap(link));
 *   recorder.tap.up(serial, rawJsonText);   // a producer that is not a link (the edge)
 *   ...
 *   await recorder.close();            // on SIGTERM, after the fleet stopped
 *
 * - Order: lines go out in the order the process saw them, `t` from the process clock, never
 *   decreasing (a replay rejects a line whose `t` goes backwards). An up frame or event that
 *   happened before the last line's `t` (a link delivers it late: a NATS backlog, an edge's
 *   outage buffer) is written at that `t` with `"at"`, when it happened, so a replay dates it so.
 * - Memory is bounded: lines gather in chunks (NdjsonWriter) and wait for the disk; when more
 *   than `maxBufferedBytes` are waiting (the disk cannot keep up) new lines are dropped and
 *   counted in `stats().droppedLines` rather than growing without bound. Links never wait on it.
 * - Rotation: with `maxBytes`, the file is cut at a line boundary once the next line would pass
 *   the limit: FILE, then FILE.1, FILE.2, ... in time order (replay reads them in that order).
 *   Stale FILE.N parts of an earlier recording to the same path are removed at start, so the set
 *   on disk is always one recording.
 * - `close()` writes what is buffered and ends every file: each file ends with a whole line.
 * - A failed write (disk full, ...) stops the recording, never the links: `onError` gets one
 *   RecordingError naming the file, `stats().error` says why, and later lines are not written.
 * - A `malformed` link event (bytes that were not a JSON object) has no frame to write: counted.
 * - A down frame is written when handed to the link, before `send` resolves: if the AP answers
 *   at once, its result still comes after the command in the file.
 */
import { wallClock, type Clock } from '../../protocol/clock.js';
import type { DeviceLink, LinkEvent } from '../../protocol/device-link.js';
import type { DownFrame } from '../../protocol/frame.js';
import { earlierParts, NdjsonParts, RecordingError, regularFileBytes } from './ndjson-writer.js';
import { serialKey } from '../../protocol/serial.js';

export interface RecorderOptions {
  /** The recording file (FILE; rotated parts are FILE.1, FILE.2, ...). */
  path: string;
  /** Rotate once a file would pass this size in bytes. Absent: one file. */
  maxBytes?: number;
  /** The process clock: stamps down frames (link events carry their own `at`). */
  clock: Clock;
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

/**
 * Direct writes for producers that are not DeviceLinks (the websocket edge sees raw frames per
 * serial). `frame` may be the JSON text as received, so it is not serialised twice; it must be
 * one JSON object. `at` defaults to the clock's now.
 */
export interface RecorderTap {
  /**
   * A frame as an object, or as the text of a JSON object (checked by the caller: the text is
   * written into the line as it is, so other text could make a line of another serial).
   */
  up(serial: string, frame: object | string, at?: number): void;
  down(serial: string, frame: object | string, at?: number): void;
  connect(serial: string, at?: number): void;
  disconnect(serial: string, at?: number): void;
  /** A file the AP uploaded for command `uuid` (trace capture, script output). */
  upload(serial: string, upload: { uuid: string; type: string; bytes: Buffer }, at?: number): void;
}

/** What a recording that starts replaces: the earlier file at its path and its parts (`FILE.N`). */
export interface Replaced {
  file: string;
  bytes: number;
  parts: number;
}

export interface Recorder {
  /**
   * A held recorder starts writing (removing the parts of an earlier recording, truncating the
   * file); says what it replaced, if anything. Nothing for a recorder that is not held.
   */
  open(): Replaced | undefined;
  /** The same link, recorded. Wrap each link once. */
  wrap(link: DeviceLink): DeviceLink;
  tap: RecorderTap;
  /** Resolves when buffered lines have reached the disk (for drivers that can wait, e.g. --speed max). */
  drained(): Promise<void>;
  stats(): RecorderStats;
  /** Flush and end every file. Later frames are no longer recorded. Safe to call twice. */
  close(): Promise<void>;
}

/** At most one onDropped call per this much wall time. */
const DROP_REPORT_MS = 60_000;

/** How long a shutdown waits for the recording's last lines to reach the file (serve, edge). */
export const CLOSE_WAIT_MS = 10_000;

/**
 * Closes `recorder` and logs what it holds: a warning when it dropped lines, an error when a
 * write failed (serve, edge). Waits at most `waitMs` for the file: a recording to a stalled
 * target (a pipe nobody reads, a hung network mount) must not hold the shutdown forever; the
 * lines still waiting are then lost, and the log says so. `clock` is wall time in a process (a
 * shutdown waits on the disk, not on a replay's or a simulation's time).
 */
export async function closeRecorder(recorder: Recorder, logger: RecorderLogger, waitMs = CLOSE_WAIT_MS, clock: Clock = wallClock): Promise<void> {
  let timer: unknown;
  const gaveUp = new Promise<true>((resolve) => { timer = clock.setTimeout(() => resolve(true), waitMs); });
  const closed = await Promise.race([recorder.close().then(() => false as const), gaveUp]);
  clock.clearTimeout(timer);
  const { lines, bytes, droppedLines, files, error, unwritten } = recorder.stats();
  if (closed === true) logger.error({ lines, bytes, droppedLines, files, waitedMs: waitMs }, 'recording not finished: the file took no more lines; the lines still waiting are lost');
  else if (error !== undefined) logger.error({ lines, bytes, unwritten, droppedLines, files, error }, 'recording closed after a failed write');
  else logger[droppedLines > 0 ? 'warn' : 'info']({ lines, bytes, droppedLines, files }, 'recording closed');
}

export interface RecorderLogger {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export function createRecorder(opts: RecorderOptions): Recorder {
  const { path, maxBytes, clock } = opts;
  const maxBuffered = opts.maxBufferedBytes ?? 64 * 1024 * 1024;
  const wallNow = opts.wallNow ?? (() => performance.now());
  let parts = opts.openLater ? undefined : new NdjsonParts(path, maxBytes);
  /** Lines written while held, for open(). */
  const waiting: string[] = [];
  /** Bytes handed to the writer since its last flush, and bytes flushed but not yet on disk. */
  let unflushed = 0;
  let inFlight = 0;
  let lastT = -Infinity;
  let closed = false;
  let closing: Promise<void> | undefined;
  const st = { lines: 0, bytes: 0, droppedLines: 0, malformedSkipped: 0 };
  let lastDropReport = -Infinity;

  /** Set by the first failed write; recording has stopped. */
  let failure: RecordingError | undefined;
  const fail = (e: unknown) => {
    if (failure) return;
    failure = e instanceof RecordingError ? e : new RecordingError(parts?.files.at(-1) ?? path, e);
    opts.onError?.(failure);
  };

  const write = (line: string): void => {
    if (closed || failure) return;
    if (inFlight > maxBuffered || (!parts && unflushed > maxBuffered)) {
      st.droppedLines++;
      const now = wallNow();
      if (now - lastDropReport >= DROP_REPORT_MS) {
        lastDropReport = now;
        opts.onDropped?.(st.droppedLines);
      }
      return;
    }
    // Bytes, not characters: SSIDs and log text may be UTF-8, and the size limit is in bytes.
    const size = Buffer.byteLength(line) + 1;
    unflushed += size;
    st.lines++;
    st.bytes += size;
    if (parts) toParts(parts, line, size);
    else waiting.push(line);
  };
  const toParts = (into: NdjsonParts, line: string, size?: number): void => {
    try {
      const flushed = into.write(line, size);
      if (flushed) void track(flushed);
    } catch (e) {
      fail(e);
    }
  };

  /** Counts the bytes handed over since the last flush as waiting for the disk until `flushed` settles. */
  const track = (flushed: Promise<void>): Promise<void> => {
    const chunk = unflushed;
    unflushed = 0;
    inFlight += chunk;
    return flushed.then(() => { inFlight -= chunk; }, fail);
  };
  /** Writes what is buffered now. */
  const flushNow = (): Promise<void> => (closed || failure || !parts ? Promise.resolve() : track(parts.flush()));
  // Wall time, not the process clock: a virtual clock may stand still between replayed lines.
  const flushTimer = setInterval(() => { if (unflushed > 0) void flushNow(); }, opts.flushEveryMs ?? 1000);
  flushTimer.unref();

  const stamp = (t: number): number => {
    lastT = t > lastT ? t : lastT;
    return lastT;
  };
  /** `"t":..` of a line that happened at `at`, and its `"at"` when that is before `t`. */
  const when = (at: number): string => {
    const t = stamp(at);
    return at < t ? `"t":${t},"at":${at}` : `"t":${t}`;
  };

  /** Frame text for one line: raw text is used as is unless it spans lines (pretty-printed) or is no object. */
  const frameText = (frame: object | string): string | undefined => {
    if (typeof frame !== 'string') return JSON.stringify(frame);
    const text = frame.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
    if (!/[\r\n]/.test(text)) return text;
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      return undefined;
    }
  };
  const frameLine = (serial: string, dir: 'up' | 'down', frame: object | string, at: number) => {
    const text = frameText(frame);
    if (text === undefined) st.malformedSkipped++;
    // A command is sent when it is replayed: when it went down the first time says nothing then.
    else write(`{${dir === 'up' ? when(at) : `"t":${stamp(at)}`},"serial":"${serial}","dir":"${dir}","frame":${text}}`);
  };
  const eventLine = (serial: string, event: 'connect' | 'disconnect', at: number) => {
    write(`{${when(at)},"serial":"${serial}","event":"${event}"}`);
  };

  const recordEvent = (serial: string, e: LinkEvent): void => {
    switch (e.type) {
      case 'frame':
        frameLine(serial, 'up', e.frame, e.at);
        return;
      case 'connected':
        eventLine(serial, 'connect', e.at);
        return;
      case 'disconnected':
        eventLine(serial, 'disconnect', e.at);
        return;
      case 'malformed':
        st.malformedSkipped++;
    }
  };

  const tap: RecorderTap = {
    up: (serial, frame, at = clock.now()) => frameLine(serialKey(serial), 'up', frame, at),
    down: (serial, frame, at = clock.now()) => frameLine(serialKey(serial), 'down', frame, at),
    connect: (serial, at = clock.now()) => eventLine(serialKey(serial), 'connect', at),
    disconnect: (serial, at = clock.now()) => eventLine(serialKey(serial), 'disconnect', at),
    upload: (serial, u, at = clock.now()) => write(
      `{"t":${stamp(at)},"serial":"${serialKey(serial)}","upload":${JSON.stringify({ uuid: u.uuid, type: u.type, data_64: u.bytes.toString('base64') })}}`,
    ),
  };

  const wrap = (inner: DeviceLink): DeviceLink => {
    const serial = serialKey(inner.serial);
    const listeners: ((e: LinkEvent) => void)[] = [];
    let unsubscribe: (() => void) | undefined;
    // One subscription to the inner link however many listen, so each event is written once.
    const onEvent = (e: LinkEvent) => {
      recordEvent(serial, e);
      for (const l of [...listeners]) l(e);
    };
    return {
      serial: inner.serial,
      ...(inner.refusesNewCommands !== undefined ? { refusesNewCommands: inner.refusesNewCommands } : {}),
      subscribe(listener) {
        listeners.push(listener);
        unsubscribe ??= inner.subscribe(onEvent);
        return () => {
          const i = listeners.indexOf(listener);
          if (i >= 0) listeners.splice(i, 1);
          if (listeners.length === 0 && unsubscribe) {
            unsubscribe();
            unsubscribe = undefined;
          }
        };
      },
      send(frame: DownFrame) {
        frameLine(serial, 'down', frame, clock.now());
        return inner.send(frame);
      },
      close(reason?: string) {
        return inner.close(reason);
      },
    };
  };

  const open = (): Replaced | undefined => {
    if (parts || closed) return undefined;
    const bytes = regularFileBytes(path);
    const later = earlierParts(path).length;
    parts = new NdjsonParts(path, maxBytes);
    for (const line of waiting.splice(0)) toParts(parts, line);
    return bytes > 0 || later > 0 ? { file: path, bytes, parts: later } : undefined;
  };

  return {
    open,
    wrap,
    tap,
    drained: () => flushNow(),
    stats: () => {
      const files = parts ? [...parts.files] : [];
      if (!failure) return { ...st, files };
      const written = parts?.written ?? { lines: 0, bytes: 0 };
      return { ...st, ...written, files, error: failure.message, unwritten: st.lines - written.lines };
    },
    close: () => (closing ??= (async () => {
      clearInterval(flushTimer);
      closed = true;
      if (parts) await parts.close().catch(fail);
      else {
        // Never opened (the server did not start): nothing was written, and nothing is counted.
        waiting.length = 0;
        st.lines = 0;
        st.bytes = 0;
      }
    })()),
  };
}
