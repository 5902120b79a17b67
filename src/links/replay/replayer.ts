/**
 * The replayer: reads a recording and plays it into a fleet, one ReplayLink per recorded serial
 * (docs/record-replay.md).
 *
 *   const r = startReplay({ file, fleet, clock, speed: 'max', keepTime: false });
 *   const summary = await r.done;   // { frames, devices, rejected, durationMs, ... }
 *
 * Time. A recorded time t plays at t + offset on the process clock, where offset makes the
 * first line "now" (or is 0 with keepTime). The process clock already runs at `speed`:
 * - 'max': `clock` must be discrete-event (a VirtualClock: `runUntil`). The replayer advances
 *   it to each line's time, so actor timers (command timeouts, reboot waits) fire in between
 *   exactly where they fell in the recording, and nothing waits on the wall.
 * - a number: `clock` is the composition root's clock running at that factor (ScaledClock over
 *   wall time, so actor delays scale too); the replayer waits on it for each line's time.
 * Same file + same start time => the same link events in the same order at the same times, so
 * the same end state per device (what the RRM `currentModel` comparison relies on).
 *
 * Commands: a `down` line is submitted to the device actor as a command (see replay-link.ts for
 * how its recorded result is matched). Command UUIDs derive from the recording's head, the part
 * and the line, so a replay is repeatable and a second replay of the same recording into the
 * same data dir updates the same records.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Observable } from 'rxjs';
import type { DeviceEvent } from '../../../actors/device/device.events.js';
import { commandTimeoutMs } from '../../../actors/device/commands.js';
import { STARTS_NO_COMMAND, type Command, type CommandSubmission, type DevicePolicy, type RestartKind } from '../../../actors/device/device.types.js';
import type { Clock } from '../../protocol/clock.js';
import type { DeviceLink } from '../../protocol/device-link.js';
import { inflateParams, isCompressed } from '../../protocol/compress.js';
import type { CommandFrame, JsonObject } from '../../protocol/frame.js';
import { readRecordingChunks, type RecordLine } from './read-recording.js';
import { ReplayLink } from './replay-link.js';

/** What the replayer needs of the fleet (actors/fleet.ts `Fleet` has it). */
export interface ReplayFleet {
  attach(link: DeviceLink, policy?: DevicePolicy): unknown;
  submit(serial: string, submission: CommandSubmission): void;
  readonly events$: Observable<DeviceEvent>;
}

/** A clock the replayer can step (simulator/clock.ts VirtualClock). */
export interface DiscreteClock extends Clock {
  runUntil(t: number): number;
}

/** A paced clock the replayer holds at the next line's time (simulator/clock.ts ScaledClock). */
export interface HoldableClock extends Clock {
  holdAt(ms: number | undefined): void;
  advanceTo(ms: number): void;
  goOnFromHere(): void;
  setTimeoutAt(fn: () => void, at: number): unknown;
}

export interface ReplayProgress {
  /** Characters of the recording read so far (about bytes for JSON text). */
  read: number;
  lines: number;
  frames: number;
  devices: number;
  /** Recorded time of the last line played. */
  t: number;
}

export interface ReplayOptions {
  /** The recording, or its parts in order (FILE, FILE.1, ... of a rotated recording). */
  file: string | readonly string[];
  fleet: ReplayFleet;
  clock: Clock | DiscreteClock;
  speed: number | 'max';
  /** Keep the recorded times instead of shifting the first line to now. */
  keepTime?: boolean;
  /** Called every `progressEvery` lines and at the end. */
  onProgress?: (p: ReplayProgress) => void;
  progressEvery?: number;
  /**
   * At 'max', asked every `yieldEvery` lines (default 256): a promise means "the consumer is
   * behind, wait for it" (e.g. an ingest buffer over its bound). The event loop is given a
   * turn there in any case, so batched DuckDB writes can run.
   */
  backpressure?: () => Promise<void> | undefined;
  yieldEvery?: number;
  /** The recording's `recordingTag`, when the caller has it already (default: read from the file). */
  tag?: string;
  /** Decorates each replay link before the fleet gets it (`recorder.wrap` to record a replay). */
  wrapLink?: (link: DeviceLink) => DeviceLink;
  /**
   * Takes a recorded upload for the replayed command `uuid` (serve's uploader). With it, a
   * recorded trace or deferred script that carried an upload `uri` waits for its file as it did
   * live; without it, such a command completes with the AP's reply.
   */
  onUpload?: (u: { serial: string; uuid: string; type: string; data: Buffer }) => Promise<void>;
}

export interface RejectedLine {
  line: number;
  reason: string;
  /** Set when the recording has several parts. */
  file?: string;
}

export interface ReplaySummary {
  /**
   * Frames played: `up` frames the device actor took plus recorded commands it ran (not the
   * `dropped`, `refused` or `unmatched` ones).
   */
  frames: number;
  /** Distinct recorded serials. */
  devices: number;
  /** Lines that passed the checks (frames, commands, connects and disconnects), played or not. */
  accepted: number;
  /** Malformed lines, skipped (the first 1,000; `rejectedCount` has them all). */
  rejected: RejectedLine[];
  rejectedCount: number;
  /** Recorded time from the first to the last line played. */
  durationMs: number;
  /** Up frames recorded while their AP was disconnected (not delivered). */
  dropped: number;
  /**
   * Up frames the device actor refused as it would a live AP's (a protocol error, or a
   * notification it ignores): line and why, the first 1,000; `refusedCount` has them all.
   */
  refused: RejectedLine[];
  refusedCount: number;
  /**
   * Recorded commands the device actor did not run (it was offline or busy then), and recorded
   * results of no command it ran (not delivered): line and why, the first 1,000;
   * `unmatchedCount` has them all. Neither is counted in `frames`.
   */
  unmatched: RejectedLine[];
  unmatchedCount: number;
  /** True when `stop()` ended the replay before the last line. */
  stopped: boolean;
}

export interface ReplayHandle {
  done: Promise<ReplaySummary>;
  /** End the replay after the current line; `done` resolves with what was played. */
  stop(): void;
  /** The link of each recorded serial, as created so far. */
  readonly links: ReadonlyMap<string, ReplayLink>;
}

const MAX_REPORTED = 1000;

const RESTARTS: Record<string, RestartKind> = { reboot: 'reboot', upgrade: 'upgrade', factory: 'factory' };

/**
 * Six hex digits that tell recordings apart: a digest of the first 64 KiB of the first file.
 * A replay of the same recording gets the same; another recording into the same data dir (the
 * next day's, another venue's) gets others, where (part, line, serial) alone gave its commands
 * the UUIDs of the first one's and replaced them.
 */
export function recordingTag(files: readonly string[]): string {
  const head = Buffer.alloc(64 * 1024);
  let n = 0;
  try {
    const fd = openSync(files[0]!, 'r');
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Unreadable: the replay reports it when it reads the file.
  }
  return createHash('sha256').update(head.subarray(0, n)).digest('hex').slice(0, 6);
}

/**
 * A UUID-shaped id unique per (recording, part, line, serial), so replays are repeatable:
 * `TTTTTTLL-LLLL-4LLL-8PPP-SSSSSSSSSSSS` (tag, line, part, serial).
 */
export function replayCommandUuid(tag: string, part: number, line: number, serial: string): string {
  const l = line.toString(16).padStart(9, '0').slice(-9);
  return `${tag}${l.slice(0, 2)}-${l.slice(2, 6)}-4${l.slice(6)}-8${(part & 0xfff).toString(16).padStart(3, '0')}-${serial}`;
}

/**
 * The params the command was submitted with: a configure sent to an AP with `compress_cmd` is on
 * the wire compressed, and the actor compresses what it is given, so it gets the plain params.
 */
function plainParams(frame: CommandFrame): JsonObject {
  if (!isCompressed(frame.params)) return frame.params;
  const r = inflateParams(frame.params);
  return r.ok ? r.params : frame.params;
}

/** The command UUID a recorded command's upload `uri` names (its last path segment), for a trace or a deferred script. */
function recordedUploadUuid(frame: CommandFrame): string | undefined {
  const uri = frame.params.uri;
  if (typeof uri !== 'string' || !(frame.method === 'trace' || (frame.method === 'script' && frame.params.timeout === undefined))) return undefined;
  const last = uri.split('?')[0]!.split('/').filter(Boolean).pop();
  return last && /^[0-9a-f-]{36}$/i.test(last) ? last.toLowerCase() : undefined;
}

function submissionOf(serial: string, frame: CommandFrame, uuid: string, nowMs: number, uploads: boolean): CommandSubmission {
  const sec = Math.floor(nowMs / 1000);
  const params = plainParams(frame);
  const command: Command = {
    UUID: uuid, command: frame.method, details: JSON.stringify(params), serialNumber: serial, submitted: sec,
    executed: 0, completed: 0, when: 0, errorText: '', results: '{}', errorCode: 0, submittedBy: 'replay', status: 'pending',
    custom: 0, waitingForFile: uploads ? 1 : 0, attachFile: 0, attachSize: 0, attachType: '', executionTime: 0, lastTry: 0,
    deferred: frame.method === 'script' && uploads,
  };
  return {
    command, method: frame.method, params, timeoutMs: commandTimeoutMs(frame.method, params),
    queueable: false, awaitResult: frame.method !== 'telemetry', restart: RESTARTS[frame.method], runAt: 0, scripted: true,
  };
}

function isDiscrete(clock: Clock): clock is DiscreteClock {
  return typeof (clock as Partial<DiscreteClock>).runUntil === 'function';
}

function isHoldable(clock: Clock): clock is HoldableClock {
  return typeof (clock as Partial<HoldableClock>).holdAt === 'function';
}

export function startReplay(opts: ReplayOptions): ReplayHandle {
  const { fleet, clock, speed } = opts;
  if (speed === 'max' && !isDiscrete(clock)) throw new TypeError("startReplay: speed 'max' needs a discrete-event clock (runUntil)");
  if (speed !== 'max' && !(speed > 0)) throw new RangeError(`startReplay: speed must be > 0 or 'max', got ${speed}`);
  const files = typeof opts.file === 'string' ? [opts.file] : [...opts.file];
  const tag = opts.tag ?? recordingTag(files);
  const links = new Map<string, ReplayLink>();
  const signal = { aborted: false };
  let wake: (() => void) | undefined;
  let timer: unknown;
  const s: ReplaySummary = { frames: 0, devices: 0, accepted: 0, rejected: [], rejectedCount: 0, durationMs: 0, dropped: 0, refused: [], refusedCount: 0, unmatched: [], unmatchedCount: 0, stopped: false };
  const unmatched = (line: number, reason: string, file: string | undefined): void => {
    s.unmatchedCount++;
    if (s.unmatched.length < MAX_REPORTED) s.unmatched.push({ line, reason, file });
  };
  // The up frame being delivered: the actor handles it in the same turn, so a refusal it emits
  // for that serial meanwhile is this frame's.
  let delivering: string | undefined;
  let refusal: string | undefined;
  // Submitted recorded commands by UUID, until the actor sends them or gives up on them.
  const submitted = new Map<string, { link: ReplayLink; recordedId: number; line: number; file?: string }>();
  // Recorded command UUID (its upload uri's) -> the UUID it runs under in this replay.
  const uploadsFor = new Map<string, string>();

  const subscription = fleet.events$.subscribe((e) => {
    if ((e.type === 'protocol-error' || e.type === 'frame-ignored') && delivering === e.serial) {
      refusal ??= e.type === 'protocol-error' ? e.payload.reason : `${e.payload.method} ignored: ${e.payload.reason}`;
      return;
    }
    if (e.type !== 'command-updated' && e.type !== 'command-rejected') return;
    const sub = submitted.get(e.payload.command.UUID);
    if (!sub) return;
    const cmd = e.payload.command;
    const why = e.type === 'command-rejected' ? `${e.payload.code}: ${e.payload.reason}`
      : cmd.status !== 'pending' && cmd.executed === 0 ? `${cmd.status}: ${cmd.errorText}` : undefined;
    if (cmd.status === 'executed' || cmd.executed > 0) submitted.delete(cmd.UUID);
    if (why === undefined) return;
    submitted.delete(cmd.UUID);
    sub.link.cancelExpected(sub.recordedId);
    // Counted as played when submitted; it was not.
    s.frames--;
    unmatched(sub.line, `recorded ${cmd.command} not run by the device actor (${why})`, sub.file);
  });

  const linkOf = (serial: string): ReplayLink => {
    let link = links.get(serial);
    if (!link) {
      link = new ReplayLink(serial, clock);
      links.set(serial, link);
      // Its actor starts no command of its own: the recording holds the configure pushes and
      // recovery reboots the live gateway sent, which are submitted as recorded; one of ours
      // could only be refused (it left a failed `configure` by *system in the history).
      fleet.attach(opts.wrapLink ? opts.wrapLink(link) : link, STARTS_NO_COMMAND);
    }
    return link;
  };

  // A paced replay holds the clock at each line's time until it is played: a line played late
  // (a busy event loop) happens at its own time, and the lines owed play at once to catch up.
  const held = speed !== 'max' && isHoldable(clock) ? clock : undefined;
  const waitUntil = (target: number): Promise<void> | undefined => {
    if (isDiscrete(clock) && speed === 'max') {
      if (target > clock.now()) clock.runUntil(target);
      return undefined;
    }
    held?.advanceTo(target);
    const delay = target - clock.now();
    if (delay <= 0) return undefined;
    return new Promise<void>((resolve) => {
      wake = resolve;
      // Held, the wait is for the hold's own time: a delay would be added to a later now().
      timer = held ? held.setTimeoutAt(() => resolve(), target) : clock.setTimeout(() => resolve(), delay);
    });
  };

  /** `offset`: from the recording's times to the clock's. */
  const play = (rec: RecordLine, offset: number, part: number, line: number, file?: string): void => {
    const link = linkOf(rec.serial);
    // A line recorded late (`at` before its `t`) happened at `at`: the actor dates it so.
    const at = rec.kind !== 'down' && rec.at !== undefined ? rec.at + offset : undefined;
    switch (rec.kind) {
      case 'connect':
        link.connect(at);
        return;
      case 'disconnect':
        link.disconnect(undefined, at);
        return;
      case 'up': {
        delivering = rec.serial;
        refusal = undefined;
        const delivered = link.deliver(rec.frame, rec.bytes, at, rec.stateText);
        delivering = undefined;
        if (delivered === 'unmatched') {
          unmatched(line, `result for recorded command id ${String(rec.frame.id)}, which the device actor did not run in this replay (not recorded before it, or not run): not delivered`, file);
        } else if (refusal !== undefined) {
          s.refusedCount++;
          if (s.refused.length < MAX_REPORTED) s.refused.push({ line, reason: `refused by the device actor: ${refusal}`, file });
        } else if (delivered === 'delivered') s.frames++;
        return;
      }
      case 'down': {
        s.frames++;
        const uuid = replayCommandUuid(tag, part, line, rec.serial);
        submitted.set(uuid, { link, recordedId: rec.frame.id, line, file });
        link.expectCommand(rec.frame);
        const recordedUuid = opts.onUpload ? recordedUploadUuid(rec.frame) : undefined;
        if (recordedUuid) uploadsFor.set(recordedUuid, uuid);
        fleet.submit(rec.serial, submissionOf(rec.serial, rec.frame, uuid, clock.now(), recordedUuid !== undefined));
        return;
      }
      case 'upload': {
        // Without an uploader (airtwin replay) the files have nowhere to go: passed over.
        if (!opts.onUpload) return;
        const uuid = uploadsFor.get(rec.uuid);
        if (!uuid) {
          unmatched(line, `upload for recorded command ${rec.uuid}, which this replay did not run with an upload uri: not delivered`, file);
          return;
        }
        uploadsFor.delete(rec.uuid);
        void opts.onUpload({ serial: rec.serial, uuid, type: rec.type, data: rec.data }).catch((e: unknown) => {
          unmatched(line, `upload for recorded command ${rec.uuid} refused: ${e instanceof Error ? e.message : String(e)}`, file);
        });
      }
    }
  };

  const run = async (): Promise<ReplaySummary> => {
    const every = opts.yieldEvery ?? 256;
    const progressEvery = opts.progressEvery ?? 1000;
    let offset: number | undefined;
    let firstT = 0;
    let lastT = 0;
    let lines = 0;
    let read = 0;
    const progress = () => opts.onProgress?.({ read, lines, frames: s.frames, devices: links.size, t: lastT });
    try {
      // A read's lines are parsed together (one await per MiB); they are played one by one.
      reading: for await (const chunk of readRecordingChunks(files, { signal })) for (const item of chunk) {
        lines++;
        read += item.size;
        const part = files.indexOf(item.file);
        const file = files.length > 1 ? item.file : undefined;
        if (!item.ok) {
          s.rejectedCount++;
          if (s.rejected.length < MAX_REPORTED) s.rejected.push({ line: item.line, reason: item.reason, file });
        } else {
          s.accepted++;
          const { rec } = item;
          if (offset === undefined) {
            // The clock was held at its start while the data dir and the fleet opened: the
            // replay paces from here, not from when the clock was made.
            held?.goOnFromHere();
            offset = opts.keepTime ? 0 : clock.now() - rec.t;
            firstT = rec.t;
          }
          // Stopped while this turn was elsewhere (a yield, a read): a wait armed now would be
          // for a timer nobody fires any more (a virtual clock that no one advances).
          if (signal.aborted) break reading;
          const wait = waitUntil(rec.t + offset);
          if (wait) await wait;
          if (signal.aborted) break reading;
          lastT = rec.t;
          play(rec, offset, part, item.line, file);
          // Connects, commands and their results start asynchronous work in the actor (admission,
          // sending the next command): let it finish before the next line, as a live AP's next
          // frame would arrive after it. Plain notifications (nearly every line) need no turn.
          if (rec.kind !== 'up' || rec.frame.method === 'connect' || rec.frame.method === undefined) await yieldToLoop();
        }
        if (lines % progressEvery === 0) progress();
        if (speed === 'max' && lines % every === 0) {
          await yieldToLoop();
          const bp = opts.backpressure?.();
          if (bp) await bp;
        }
      }
    } finally {
      subscription.unsubscribe();
      // Time stands at the last line (or the start, if none played), as a virtual clock's does
      // at max, not where the base got to while the replay was behind: what is still open when
      // `airtwin replay` closes ends at that time, and serve's clock follows the wall from there
      // (replayDriver.followWallTime lifts the hold).
      held?.goOnFromHere();
    }
    s.stopped = signal.aborted;
    s.devices = links.size;
    s.durationMs = lastT - firstT;
    for (const link of links.values()) s.dropped += link.dropped;
    progress();
    return s;
  };

  return {
    done: run(),
    stop: () => {
      signal.aborted = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      wake?.();
    },
    links,
  };
}
