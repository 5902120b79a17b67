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
 * - Memory is bounded (recording-output.ts): lines gather in chunks (NdjsonWriter) and wait for
 *   the disk; when more than `maxBufferedBytes` are waiting (the disk cannot keep up) new lines
 *   are dropped and counted in `stats().droppedLines` rather than growing without bound. Links
 *   never wait on it.
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
import { serialKey } from '../../protocol/serial.js';
import { RecordingOutput, type OutputOptions, type RecorderStats, type Replaced } from './recording-output.js';

export type { RecorderStats, Replaced } from './recording-output.js';

export interface RecorderOptions extends OutputOptions {
  /** The process clock: stamps down frames (link events carry their own `at`). */
  clock: Clock;
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

export interface Recorder {
  /**
   * A recorder made with `openLater` starts writing (removing the parts of an earlier recording,
   * truncating the file); says what it replaced, if anything. Nothing for any other recorder.
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

/** Frame text for one line: raw text is used as is unless it spans lines (pretty-printed) or is no object. */
function frameText(frame: object | string): string | undefined {
  if (typeof frame !== 'string') return JSON.stringify(frame);
  const text = frame.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  if (!/[\r\n]/.test(text)) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * `inner`, with each of its events passed to `record` once (one subscription to it however many
 * listen) and each frame sent down passed to `recordDown` before `send`: if the AP answers at
 * once, its result still comes after the command in the file.
 */
function recordedLink(inner: DeviceLink, record: (serial: string, e: LinkEvent) => void, recordDown: (serial: string, frame: DownFrame) => void): DeviceLink {
  const serial = serialKey(inner.serial);
  const listeners: ((e: LinkEvent) => void)[] = [];
  let unsubscribe: (() => void) | undefined;
  const onEvent = (e: LinkEvent) => {
    record(serial, e);
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
      recordDown(serial, frame);
      return inner.send(frame);
    },
    close(reason?: string) {
      return inner.close(reason);
    },
  };
}

export function createRecorder(opts: RecorderOptions): Recorder {
  const { clock } = opts;
  const output = new RecordingOutput(opts);
  let lastT = -Infinity;
  const stamp = (t: number): number => {
    lastT = t > lastT ? t : lastT;
    return lastT;
  };
  /** `"t":..` of a line that happened at `at`, and its `"at"` when that is before `t`. */
  const when = (at: number): string => {
    const t = stamp(at);
    return at < t ? `"t":${t},"at":${at}` : `"t":${t}`;
  };
  const frameLine = (serial: string, dir: 'up' | 'down', frame: object | string, at: number) => {
    const text = frameText(frame);
    if (text === undefined) output.skipMalformed();
    // A command is sent when it is replayed: when it went down the first time says nothing then.
    else output.write(`{${dir === 'up' ? when(at) : `"t":${stamp(at)}`},"serial":"${serial}","dir":"${dir}","frame":${text}}`);
  };
  const eventLine = (serial: string, event: 'connect' | 'disconnect', at: number) => {
    output.write(`{${when(at)},"serial":"${serial}","event":"${event}"}`);
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
        output.skipMalformed();
    }
  };
  const tap: RecorderTap = {
    up: (serial, frame, at = clock.now()) => frameLine(serialKey(serial), 'up', frame, at),
    down: (serial, frame, at = clock.now()) => frameLine(serialKey(serial), 'down', frame, at),
    connect: (serial, at = clock.now()) => eventLine(serialKey(serial), 'connect', at),
    disconnect: (serial, at = clock.now()) => eventLine(serialKey(serial), 'disconnect', at),
    upload: (serial, u, at = clock.now()) => output.write(
      `{"t":${stamp(at)},"serial":"${serialKey(serial)}","upload":${JSON.stringify({ uuid: u.uuid, type: u.type, data_64: u.bytes.toString('base64') })}}`,
    ),
  };
  return {
    open: () => output.open(),
    wrap: (inner) => recordedLink(inner, recordEvent, (serial, frame) => frameLine(serial, 'down', frame, clock.now())),
    tap,
    drained: () => output.flushNow(),
    stats: () => output.stats(),
    close: () => output.close(),
  };
}
