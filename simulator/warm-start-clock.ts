/**
 * The process clock of a warm start: a simulated venue that comes up with history. It starts
 * `behindMs` in the past, held there until `release()` (the venue starts then, so the seconds
 * the service takes to start do not eat into the history), then runs up to `catchUpSpeed` times
 * faster than its base until it meets the line it would have followed without a warm start (the
 * base times `speed` from construction: wall time at speed 1), and stays on that line.
 *
 * Until it meets that line it never passes a timer that has not run: a busy event loop (other
 * processes, a start-up that compiles schemas) runs its timers late, and a clock that went on
 * regardless would skip the history they make (an AP's periodic state ran once for minutes of
 * time). It waits for them instead, each timer running at its due time, so the catch-up is as
 * fast as the loop allows, at most catchUpSpeed. From the meeting on, now() is a function of
 * base time alone and every timer is armed for the base time at which now() reaches its due
 * time: the hand-over needs no event, and no late timer can put the clock ahead of the wall.
 */
import { MAX_TIMER_MS, type Clock } from '../src/protocol/clock.js';
import { TimerHeap } from './timer-heap.js';

export interface WarmStartOptions {
  /** How far in the past it starts, ms (> 0). */
  behindMs: number;
  /** The speed it keeps once it has caught up: a factor of the base (1: wall time). */
  speed: number;
  /** Its fastest speed until then; faster than `speed`. */
  catchUpSpeed: number;
}

/** A timer: the base timer armed for it now, its due time (clock ms), its order, what it runs. */
interface WarmTimer { id: unknown; due: number; seq: number; done: boolean; fn: () => void }

export class WarmStartClock implements Clock {
  /** Base time at construction: the line kept is `origin + (b - origin) * speed`. */
  private readonly origin: number;
  /** Where the clock starts (clock ms). */
  readonly startMs: number;
  readonly speed: number;
  readonly catchUpSpeed: number;
  /** Base time of `release()`; until then now() stays at startMs. */
  private releasedAt: number | undefined;
  /** Whether it has met the line it keeps (no more waiting for late timers). */
  private caughtUp = false;
  /** Due time of the timer running now, during the catch-up: now() shows it. */
  private running: number | undefined;
  /** Timers not yet run, earliest first (cleared ones are dropped when they surface). */
  private readonly pending = new TimerHeap<WarmTimer>(before);
  private seq = 0;

  constructor(private readonly base: Clock, opts: WarmStartOptions) {
    if (!(opts.behindMs > 0)) throw new RangeError(`behindMs must be > 0, got ${opts.behindMs}`);
    if (!(opts.speed > 0)) throw new RangeError(`speed must be > 0, got ${opts.speed}`);
    if (!(opts.catchUpSpeed > opts.speed)) throw new RangeError(`catchUpSpeed must be > speed (${opts.speed}), got ${opts.catchUpSpeed}`);
    this.origin = base.now();
    this.startMs = this.origin - opts.behindMs;
    this.speed = opts.speed;
    this.catchUpSpeed = opts.catchUpSpeed;
  }

  now(): number {
    return Math.floor(this.exactNow());
  }

  /** Whether release() has let it run. */
  get released(): boolean {
    return this.releasedAt !== undefined;
  }

  /** Its time (clock ms) when it meets the line it keeps, with no timer late (undefined while held). */
  get caughtUpAt(): number | undefined {
    const r = this.releasedAt;
    if (r === undefined) return undefined;
    // startMs + (b - r) * k = origin + (b - origin) * speed, solved for the base time b.
    const b = (this.origin * (1 - this.speed) - this.startMs + r * this.catchUpSpeed) / (this.catchUpSpeed - this.speed);
    return Math.ceil(this.line(b));
  }

  /** Lets it run from startMs; once only (later calls do nothing). */
  release(): void {
    if (this.releasedAt !== undefined) return;
    this.releasedAt = this.base.now();
    for (const t of this.pending.values()) if (!t.done) this.arm(t);
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown {
    const delay = Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0;
    const timer: WarmTimer = { id: undefined, due: this.exactNow() + delay, seq: this.seq++, done: false, fn: () => fn() };
    // Once caught up, nothing waits for a timer: only the base keeps it.
    if (!this.caughtUp) this.pending.push(timer);
    if (this.releasedAt !== undefined) this.arm(timer);
    return timer;
  }

  clearTimeout(id: unknown): void {
    if (typeof id !== 'object' || id === null || !('seq' in id)) return;
    const timer = id as WarmTimer;
    if (timer.done) return;
    timer.done = true;
    if (timer.id !== undefined) this.base.clearTimeout(timer.id);
  }

  private exactNow(): number {
    if (this.running !== undefined) return this.running;
    const b = this.base.now();
    const t = this.line(b);
    if (this.caughtUp) return t;
    const next = this.firstPending();
    if (next !== undefined && next.due < t) return next.due;
    // Nothing late and on the line it keeps: from here on, that line is the clock.
    if (this.releasedAt !== undefined && t >= this.kept(b)) {
      this.caughtUp = true;
      this.pending.clear();
    }
    return t;
  }

  /** The earliest timer not yet run or cleared (cleared ones are dropped as they surface). */
  private firstPending(): WarmTimer | undefined {
    while (this.pending.peek()?.done) this.pending.pop();
    return this.pending.peek();
  }

  /** The line kept at base time `b`. */
  private kept(b: number): number {
    return this.origin + (b - this.origin) * this.speed;
  }

  /** The clock at base time `b` when no timer is late: the catch-up until it meets the line kept. */
  private line(b: number): number {
    const r = this.releasedAt;
    if (r === undefined) return Math.min(this.kept(b), this.startMs);
    return Math.min(this.kept(b), this.startMs + (b - r) * this.catchUpSpeed);
  }

  /** Base time at which the line reaches `t` (released): both of its parts must have. */
  private baseAt(t: number): number {
    const r = this.releasedAt!;
    return Math.max(this.origin + (t - this.origin) / this.speed, r + (t - this.startMs) / this.catchUpSpeed);
  }

  /**
   * Arms the base timer for the base time at which the line reaches the due time. One that fires
   * while the clock is short of it (it fired early, as Node's may by a millisecond, or an earlier
   * timer is still to run) is armed again, so a timer never runs before its due time.
   */
  private arm(timer: WarmTimer, least = 0): void {
    const wait = Math.ceil(this.baseAt(timer.due) - this.base.now());
    timer.id = this.base.setTimeout(() => {
      if (timer.done) return;
      // Again at least 1 ms later: a base that does not move on its own (a virtual one) would
      // otherwise run the same timer at the same time for ever.
      if (this.exactNow() < timer.due || (!this.caughtUp && this.firstPending() !== timer)) return this.arm(timer, 1);
      timer.done = true;
      if (this.caughtUp) return timer.fn();
      this.running = timer.due;
      try {
        timer.fn();
      } finally {
        this.running = undefined;
      }
    }, Math.min(Math.max(wait, least), MAX_TIMER_MS));
  }
}

const before = (a: WarmTimer, b: WarmTimer): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);
