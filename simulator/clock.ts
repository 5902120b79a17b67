/**
 * Clocks for simulation. Both implement the process `Clock` port (src/protocol/clock.ts), so the
 * device actors (XState `clock` option), RxJS schedulers and the simulator share one time.
 *
 * - `VirtualClock`: discrete-event time for `--speed max`. Timers sit in a binary heap ordered by
 *   due time, then by a sequence number taken when they were set, so equal times always run in
 *   the order they were scheduled, never by object identity or Map order, so a seed gives one event log.
 * - `ScaledClock`: real time times N for `--speed N`, over an injected base clock.
 */
import { MAX_TIMER_MS, type Clock } from '../src/protocol/clock.js';
import { TimerHeap } from './timer-heap.js';

interface Timer { at: number; seq: number; id: number; fn: (...args: unknown[]) => void }

export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private nextId = 1;
  private readonly heap = new TimerHeap<Timer>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));
  private readonly cancelled = new Set<number>();

  /** @param startMs the epoch ms the simulation starts at (taken from the scenario, never the wall). */
  constructor(startMs: number) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): number {
    const delay = Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0;
    const timer: Timer = { at: this.t + delay, seq: this.seq++, id: this.nextId++, fn };
    this.heap.push(timer);
    return timer.id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'number') this.cancelled.add(id);
  }

  /** Timers still due (cancelled ones may be counted until they surface). */
  get pending(): number {
    return this.heap.size;
  }

  /** Due time of the next live timer, or undefined when idle. */
  nextAt(): number | undefined {
    this.dropCancelled();
    return this.heap.peek()?.at;
  }

  /** Runs the next timer (advancing time to it). Returns false when nothing is scheduled. */
  step(): boolean {
    this.dropCancelled();
    const timer = this.heap.pop();
    if (!timer) return false;
    this.t = timer.at;
    timer.fn();
    return true;
  }

  /** Runs every timer due at or before `t` (including ones they schedule), then sets now to `t`. */
  runUntil(t: number): number {
    let ran = 0;
    for (;;) {
      const at = this.nextAt();
      if (at === undefined || at > t) break;
      this.step();
      ran++;
    }
    if (t > this.t) this.t = t;
    return ran;
  }

  /** Advance by `ms` (XState SimulatedClock's `increment`). */
  increment(ms: number): number {
    return this.runUntil(this.t + ms);
  }

  private dropCancelled(): void {
    for (let top = this.heap.peek(); top && this.cancelled.has(top.id); top = this.heap.peek()) {
      this.cancelled.delete(top.id);
      this.heap.pop();
    }
  }
}

/**
 * Real time times `speed`: `now()` runs `speed` times faster than the base clock from the
 * moment of construction, and delays are shortened accordingly.
 *
 * A caller that paces recorded events also holds it (`holdAt`): now() then runs at most to the hold, the time of the
 * next event not yet played, so an event played late (a busy event loop, a slow start) still
 * happens at its own time. The base runs on meanwhile, so a caller that fell behind catches up
 * (`advanceTo` steps through the events and timers it owes, each at its time) instead of adding
 * every delay to the rest. Time never goes back.
 */
export class ScaledClock implements Clock {
  private baseStart: number;
  private startMs: number;
  private speed: number;
  /** Timers not yet run, so a change of speed or hold can re-arm them. */
  private readonly live = new Set<ScaledTimer>();
  /** The latest now() may show until the hold moves on (undefined: no limit). */
  private heldAt: number | undefined;

  /** `opts.heldAtStart`: held at `startMs` from the start, until `holdAt`/`goOnFromHere`. */
  constructor(private readonly base: Clock, speed: number, startMs: number = base.now(), opts: { heldAtStart?: boolean } = {}) {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    this.speed = speed;
    this.startMs = startMs;
    this.baseStart = base.now();
    if (opts.heldAtStart) this.heldAt = startMs;
  }

  now(): number {
    return Math.floor(this.exactNow());
  }

  private rawNow(): number {
    return this.startMs + (this.base.now() - this.baseStart) * this.speed;
  }

  private exactNow(): number {
    const t = this.rawNow();
    return this.heldAt !== undefined && t > this.heldAt ? this.heldAt : t;
  }

  /**
   * Goes on from now() at the current speed, dropping whatever time the base ran past a hold:
   * a pacing caller does this at its first event (start-up is not caught up on) and after its
   * last (the clock goes on from the last event, not from where the base got to).
   */
  goOnFromHere(): void {
    this.startMs = this.exactNow();
    this.baseStart = this.base.now();
    this.rearm();
  }

  /** Arms the live timers anew for their scaled due time (`onlyParked`: those waiting for the hold to move). */
  private rearm(onlyParked = false): void {
    for (const t of this.live) {
      if (onlyParked && !t.parked) continue;
      this.base.clearTimeout(t.id);
      t.parked = false;
      t.arm(Math.max(0, t.due - this.now()));
    }
  }

  /**
   * Runs on at `speed` times the base from now, without a jump (a paced clock
   * follows wall time after the last event). Armed timers keep their scaled due time.
   */
  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    this.startMs = this.exactNow();
    this.baseStart = this.base.now();
    this.speed = speed;
    this.rearm();
  }

  /** Lets now() run at most to `ms` (undefined: no limit); a hold below now() holds at now(). */
  holdAt(ms: number | undefined): void {
    this.heldAt = ms === undefined ? undefined : Math.max(ms, this.exactNow());
    // Timers that came due past the old hold wait parked (no polling): arm them anew.
    this.rearm(true);
  }

  /**
   * Moves the hold on to `ms`, first running, in order of due time and each at its own time,
   * the timers the base has already passed up to there (a caller that fell behind: a command
   * timeout due between two events runs between them, not after the second).
   */
  advanceTo(ms: number): void {
    for (;;) {
      const reach = Math.min(ms, this.rawNow());
      let next: ScaledTimer | undefined;
      for (const t of this.live) if (t.due <= reach && (!next || t.due < next.due)) next = t;
      if (!next) break;
      this.heldAt = Math.max(next.due, this.exactNow());
      this.base.clearTimeout(next.id);
      this.live.delete(next);
      next.run();
    }
    this.holdAt(ms);
  }

  /**
   * Base timers may fire a little early (Node's do, by up to a millisecond) and the scale
   * multiplies that: at speed 20 a timer could run 20 ms of scaled time before it is due, so a
   * command scheduled for `when` ran in the second before. A timer that fires early is re-armed
   * for the rest, so it never runs before `now() + timeoutMs`.
   */
  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown {
    return this.setTimeoutAt(fn, this.now() + Math.max(0, timeoutMs));
  }

  /**
   * Runs `fn` once now() reaches `at` (scaled ms). A pacing caller waits for its next event so: a
   * delay computed from now() and added to a later now() could land past the hold at that line
   * (the base ran on a millisecond in between), where it would never come due.
   */
  setTimeoutAt(fn: (...args: unknown[]) => void, at: number): unknown {
    const handle: ScaledTimer = {
      id: undefined,
      due: at,
      parked: false,
      run: () => fn(),
      arm: (ms: number) => {
        handle.id = this.base.setTimeout(() => {
          // Against the exact time: a hold at a time between two ms (a recording's decimal `t`)
          // keeps now() short of it, and a timer due there re-armed itself for ever.
          const left = handle.due - this.exactNow();
          if (left > 0) {
            // Held short of it: wait for the hold to move instead of polling.
            if (this.heldAt !== undefined && handle.due > this.heldAt && this.rawNow() >= this.heldAt) {
              handle.parked = true;
              return;
            }
            return handle.arm(left);
          }
          this.live.delete(handle);
          fn();
          // Node holds at most 2^31 - 1 ms and fires a longer timer after 1 ms (a slow clock's
          // wait, --speed 1e-7): it is taken in steps, each re-armed for the rest as above.
        }, Math.min(ms / this.speed, MAX_TIMER_MS));
      },
    };
    this.live.add(handle);
    handle.arm(Math.max(0, at - this.now()));
    return handle;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'object' && id !== null && 'id' in id) {
      this.live.delete(id as ScaledTimer);
      this.base.clearTimeout((id as ScaledTimer).id);
    }
  }
}

/**
 * A ScaledClock timer: the base timer currently armed for it (it changes when re-armed), when it
 * is due (scaled), whether it waits for a hold to move, how to arm it and what it runs.
 */
interface ScaledTimer { id: unknown; due: number; parked: boolean; arm(ms: number): void; run(): void }
