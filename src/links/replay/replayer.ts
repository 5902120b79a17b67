/**
 * The replayer: reads a recording and plays it into a fleet, one ReplayLink per recorded serial
 * (docs/record-replay.md).
 *
 *   const r = startReplay({ file, fleet, clock, speed: 'max', keepTime: false });
 *   const summary = await r.done;   // { frames, devices, rejected, durationMs, ... }
 *
 * A recorded time t plays at t + offset on the process clock, where offset makes the first line
 * "now" (or is 0 with keepTime); replay-pacing.ts brings the clock there. Same file + same start
 * time => the same link events in the same order at the same times, so the same end state per
 * device (what the RRM `currentModel` comparison relies on). Recorded commands and uploads are
 * played as replay-commands.ts says.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Observable } from 'rxjs';
import type { DeviceEvent } from '../../../actors/device/device.events.js';
import { STARTS_NO_COMMAND, type CommandSubmission, type DevicePolicy } from '../../../actors/device/device.types.js';
import type { Clock } from '../../protocol/clock.js';
import type { DeviceLink } from '../../protocol/device-link.js';
import { readRecordingChunks, type RecordLine } from './read-recording.js';
import { CommandReplay, recordingDigest } from './replay-commands.js';
import { ReplayLink } from './replay-link.js';
import { isDiscrete, Pacer, type DiscreteClock } from './replay-pacing.js';

export { recordingDigest, replayCommandUuid } from './replay-commands.js';
export type { DiscreteClock, HoldableClock } from './replay-pacing.js';

export interface ReplayFleet {
  attach(link: DeviceLink, policy?: DevicePolicy): unknown;
  submit(serial: string, submission: CommandSubmission): void;
  readonly events$: Observable<DeviceEvent>;
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
  /** At 'max', a DiscreteClock (replay-pacing.ts). */
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
  /** The recording's `recordingDigest`, when the caller has it already (default: read from the file). */
  digest?: string;
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

/** The lists of a summary keep this many lines; their counts have them all. */
const MAX_REPORTED = 1000;

function listed(list: RejectedLine[], line: number, reason: string, file: string | undefined): void {
  if (list.length < MAX_REPORTED) list.push({ line, reason, file });
}

/**
 * Connects, commands and their results start asynchronous work in the actor (admission, sending
 * the next command): it finishes before the next line, as a live AP's next frame would arrive
 * after it. Plain notifications (nearly every line) need no turn.
 */
function needsTurn(rec: RecordLine): boolean {
  return rec.kind !== 'up' || rec.frame.method === 'connect' || rec.frame.method === undefined;
}

/** One replay: its links, what it played so far, and where in the recording it is. */
class Replay {
  readonly links = new Map<string, ReplayLink>();
  readonly signal = { aborted: false };
  private readonly files: string[];
  private readonly pacer: Pacer;
  private readonly commands: CommandReplay;
  private readonly subscription: { unsubscribe(): void };
  private readonly s: ReplaySummary = { frames: 0, devices: 0, accepted: 0, rejected: [], rejectedCount: 0, durationMs: 0, dropped: 0, refused: [], refusedCount: 0, unmatched: [], unmatchedCount: 0, stopped: false };
  /**
   * The up frame being delivered: the actor handles it in the same turn, so a refusal it emits
   * for that serial meanwhile is this frame's.
   */
  private delivering: string | undefined;
  private refusal: string | undefined;
  /** From the recording's times to the clock's, set by the first line played. */
  private offset: number | undefined;
  private firstT = 0;
  private lastT = 0;
  private lines = 0;
  private read = 0;

  constructor(private readonly opts: ReplayOptions) {
    this.files = typeof opts.file === 'string' ? [opts.file] : [...opts.file];
    this.pacer = new Pacer(opts.clock, opts.speed);
    const outcomes = {
      unmatched: (line: number, reason: string, file: string | undefined) => this.unmatched(line, reason, file),
      notRun: (line: number, reason: string, file: string | undefined) => {
        this.s.frames--;
        this.unmatched(line, reason, file);
      },
    };
    const submit = (serial: string, submission: CommandSubmission) => opts.fleet.submit(serial, submission);
    this.commands = new CommandReplay(opts.digest ?? recordingDigest(this.files), submit, outcomes, opts.onUpload);
    this.subscription = opts.fleet.events$.subscribe((e) => this.onEvent(e));
  }

  stop(): void {
    this.signal.aborted = true;
    this.pacer.stop();
  }

  async run(): Promise<ReplaySummary> {
    const { opts, signal, files } = this;
    const every = opts.yieldEvery ?? 256;
    const progressEvery = opts.progressEvery ?? 1000;
    try {
      // A read's lines are parsed together (one await per MiB); they are played one by one.
      reading: for await (const chunk of readRecordingChunks(files, { signal })) for (const item of chunk) {
        this.lines++;
        this.read += item.size;
        const file = files.length > 1 ? item.file : undefined;
        if (!item.ok) {
          this.s.rejectedCount++;
          listed(this.s.rejected, item.line, item.reason, file);
        } else {
          this.s.accepted++;
          const { rec } = item;
          const offset = this.start(rec.t);
          // Stopped while this turn was elsewhere (a yield, a read): a wait armed now would be
          // for a timer nobody fires any more (a virtual clock that no one advances).
          if (signal.aborted) break reading;
          const wait = this.pacer.until(rec.t + offset);
          if (wait) await wait;
          if (signal.aborted) break reading;
          this.lastT = rec.t;
          this.play(rec, offset, files.indexOf(item.file), item.line, file);
          if (needsTurn(rec)) await yieldToLoop();
        }
        if (this.lines % progressEvery === 0) this.progress();
        if (opts.speed === 'max' && this.lines % every === 0) await this.giveWay();
      }
    } finally {
      this.subscription.unsubscribe();
      // Time stands at the last line (or the start, if none played), as a virtual clock's does
      // at max, not where the base got to while the replay was behind: what is still open when
      // `airtwin replay` closes ends at that time, and serve's clock follows the wall from there
      // (replayDriver.followWallTime lifts the hold).
      this.pacer.goOnFromHere();
    }
    return this.finish();
  }

  /** The offset from the recording's times to the clock's; the first line played sets it. */
  private start(t: number): number {
    if (this.offset === undefined) {
      this.pacer.goOnFromHere();
      this.offset = this.opts.keepTime ? 0 : this.opts.clock.now() - t;
      this.firstT = t;
    }
    return this.offset;
  }

  /** At 'max', every `yieldEvery` lines: the event loop gets a turn (batched DuckDB writes), and a consumer that is behind is waited for. */
  private async giveWay(): Promise<void> {
    await yieldToLoop();
    const bp = this.opts.backpressure?.();
    if (bp) await bp;
  }

  private progress(): void {
    this.opts.onProgress?.({ read: this.read, lines: this.lines, frames: this.s.frames, devices: this.links.size, t: this.lastT });
  }

  private finish(): ReplaySummary {
    const { s } = this;
    s.stopped = this.signal.aborted;
    s.devices = this.links.size;
    s.durationMs = this.lastT - this.firstT;
    for (const link of this.links.values()) s.dropped += link.dropped;
    this.progress();
    return s;
  }

  private unmatched(line: number, reason: string, file: string | undefined): void {
    this.s.unmatchedCount++;
    listed(this.s.unmatched, line, reason, file);
  }

  private onEvent(e: DeviceEvent): void {
    if ((e.type === 'protocol-error' || e.type === 'frame-ignored') && this.delivering === e.serial) {
      this.refusal ??= e.type === 'protocol-error' ? e.payload.reason : `${e.payload.method} ignored: ${e.payload.reason}`;
      return;
    }
    this.commands.onEvent(e);
  }

  private linkOf(serial: string): ReplayLink {
    let link = this.links.get(serial);
    if (!link) {
      link = new ReplayLink(serial, this.opts.clock);
      this.links.set(serial, link);
      // Its actor starts no command of its own: the recording holds the configure pushes and
      // recovery reboots the live gateway sent, which are submitted as recorded; one of ours
      // could only be refused (it left a failed `configure` by *system in the history).
      this.opts.fleet.attach(this.opts.wrapLink ? this.opts.wrapLink(link) : link, STARTS_NO_COMMAND);
    }
    return link;
  }

  /** Plays one line; `offset` is from the recording's times to the clock's. */
  private play(rec: RecordLine, offset: number, part: number, line: number, file: string | undefined): void {
    const link = this.linkOf(rec.serial);
    // A line recorded late (`at` before its `t`) happened at `at`: the actor dates it so.
    const at = rec.kind !== 'down' && rec.at !== undefined ? rec.at + offset : undefined;
    switch (rec.kind) {
      case 'connect':
        link.connect(at);
        return;
      case 'disconnect':
        link.disconnect(undefined, at);
        return;
      case 'up':
        this.deliver(rec, link, at, line, file);
        return;
      case 'down':
        this.s.frames++;
        this.commands.down(rec, link, part, line, file, this.opts.clock.now());
        return;
      case 'upload':
        this.commands.upload(rec, line, file);
    }
  }

  /** An up frame to its actor: played, refused as a live AP's would be, or a result of no command it ran. */
  private deliver(rec: Extract<RecordLine, { kind: 'up' }>, link: ReplayLink, at: number | undefined, line: number, file: string | undefined): void {
    this.delivering = rec.serial;
    this.refusal = undefined;
    const delivered = link.deliver(rec.frame, rec.bytes, at, rec.stateText);
    this.delivering = undefined;
    if (delivered === 'unmatched') {
      this.unmatched(line, `result for recorded command id ${String(rec.frame.id)}, which the device actor did not run in this replay (not recorded before it, or not run): not delivered`, file);
    } else if (this.refusal !== undefined) {
      this.s.refusedCount++;
      listed(this.s.refused, line, `refused by the device actor: ${this.refusal}`, file);
    } else if (delivered === 'delivered') this.s.frames++;
  }
}

export function startReplay(opts: ReplayOptions): ReplayHandle {
  const { clock, speed } = opts;
  if (speed === 'max' && !isDiscrete(clock)) throw new TypeError("startReplay: speed 'max' needs a discrete-event clock (runUntil)");
  if (speed !== 'max' && !(speed > 0)) throw new RangeError(`startReplay: speed must be > 0 or 'max', got ${speed}`);
  const replay = new Replay(opts);
  return { done: replay.run(), stop: () => replay.stop(), links: replay.links };
}
