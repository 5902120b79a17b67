/**
 * Clocks for simulation. Both implement the process `Clock` port (src/protocol/clock.ts), so the
 * device actors (XState `clock` option), RxJS schedulers and the simulator share one time.
 *
 * - `VirtualClock`: discrete-event time for `--speed max`. Timers sit in a binary heap ordered by
 *   due time, then by a sequence number taken when they were set, so equal times always run in
 *   the order they were scheduled (conventions §2.7: never by object identity or Map order).
 * - `ScaledClock`: real time times N for `--speed N`, over an injected base clock.
 */
import type { Clock } from '../src/protocol/clock.js';

interface Timer { at: number; seq: number; id: number; fn: (...args: unknown[]) => void }

export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private nextId = 1;
  private heap: Timer[] = [];
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
    this.push(timer);
    return timer.id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'number') this.cancelled.add(id);
  }

  /** Timers still due (cancelled ones may be counted until they surface). */
  get pending(): number {
    return this.heap.length;
  }

  /** Due time of the next live timer, or undefined when idle. */
  nextAt(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.at;
  }

  /** Runs the next timer (advancing time to it). Returns false when nothing is scheduled. */
  step(): boolean {
    this.dropCancelled();
    const timer = this.pop();
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
    while (this.heap.length > 0 && this.cancelled.has(this.heap[0]!.id)) {
      this.cancelled.delete(this.heap[0]!.id);
      this.pop();
    }
  }

  private less(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(timer: Timer): void {
    const h = this.heap;
    h.push(timer);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Real time times `speed`: `now()` runs `speed` times faster than the base clock from the
 * moment of construction, and delays are shortened accordingly.
 */
export class ScaledClock implements Clock {
  private baseStart: number;
  private startMs: number;
  private speed: number;
  /** Timers not yet run, so a change of speed can re-arm them. */
  private readonly live = new Set<ScaledTimer>();

  constructor(private readonly base: Clock, speed: number, startMs: number = base.now()) {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    this.speed = speed;
    this.startMs = startMs;
    this.baseStart = base.now();
  }

  /** The latest now() may show until holdAt moves it on (undefined: no limit). */
  private heldAt: number | undefined;

  now(): number {
    return Math.floor(this.exactNow());
  }

  private exactNow(): number {
    const t = this.startMs + (this.base.now() - this.baseStart) * this.speed;
    return this.heldAt !== undefined && t > this.heldAt ? this.heldAt : t;
  }

  /**
   * Goes on from now() at the current speed, dropping whatever time the base ran past a hold
   * (a paced replay does this once, at its first line: start-up is not caught up on).
   */
  goOnFromHere(): void {
    const held = this.heldAt !== undefined && this.startMs + (this.base.now() - this.baseStart) * this.speed > this.heldAt;
    this.startMs = this.exactNow();
    this.baseStart = this.base.now();
    // Timers that came due while it stood still were re-armed for their rest: arm them anew.
    if (held) this.rearm();
  }

  private rearm(): void {
    for (const t of this.live) {
      this.base.clearTimeout(t.id);
      t.arm(Math.max(0, t.due - this.now()));
    }
  }

  /**
   * Runs on at `speed` times the base from now, without a jump (`serve --replay --speed N`
   * follows wall time after the last line). Armed timers keep their scaled due time.
   */
  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    this.goOnFromHere();
    this.speed = speed;
    this.rearm();
  }

  /**
   * Lets now() run at most to `ms` (undefined: no limit). A paced replay holds its clock at the
   * next line's time, so time never passes a line not yet played: a line played late (a busy
   * event loop) still happens at its own time. The base runs on meanwhile, so a replay that fell
   * behind catches up (the lines it owes play at once, each at its time) instead of adding every
   * delay to the rest. Time never goes back: a hold below now() holds at now().
   */
  holdAt(ms: number | undefined): void {
    const now = this.exactNow();
    this.heldAt = ms === undefined ? undefined : Math.max(ms, now);
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
   * Runs `fn` once now() reaches `at` (scaled ms). A paced replay waits for its next line so: a
   * delay computed from now() and added to a later now() could land past the hold at that line
   * (the base ran on a millisecond in between), where it would never come due.
   */
  setTimeoutAt(fn: (...args: unknown[]) => void, at: number): unknown {
    const handle: ScaledTimer = {
      id: undefined,
      due: at,
      arm: (ms: number) => {
        handle.id = this.base.setTimeout((...args: unknown[]) => {
          const left = handle.due - this.now();
          if (left > 0) return handle.arm(left);
          this.live.delete(handle);
          fn(...args);
        }, ms / this.speed);
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

/** A ScaledClock timer: the base timer currently armed for it (it changes when re-armed), when it is due (scaled), and how to arm it. */
interface ScaledTimer { id: unknown; due: number; arm(ms: number): void }
