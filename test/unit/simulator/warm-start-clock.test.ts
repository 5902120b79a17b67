import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../simulator/clock.js';
import { WarmStartClock } from '../../../simulator/warm-start-clock.js';

const WALL0 = 1_800_000_000_000;

describe('WarmStartClock', () => {
  it('stays at its start until released, then catches up with the wall and follows it', () => {
    const base = new VirtualClock(WALL0);
    const c = new WarmStartClock(base, { behindMs: 300_000, speed: 1, catchUpSpeed: 31 });
    expect(c.now()).toBe(WALL0 - 300_000);
    base.increment(2_000); // the service starting
    expect(c.now()).toBe(WALL0 - 300_000);
    c.release();
    // From the release at wall +2 s: 300 s + 2 s to make up at 30 s per second gained.
    expect(c.caughtUpAt).toBe(Math.ceil(WALL0 + 2_000 + 302_000 / 30));
    base.increment(5_000);
    expect(c.now()).toBe(WALL0 - 300_000 + 5_000 * 31);
    base.runUntil(Math.ceil(c.caughtUpAt!));
    expect(c.now()).toBe(base.now());
    base.increment(60_000);
    expect(c.now()).toBe(base.now());
  });

  it('runs every timer at its due time, across the hand-over and after it', () => {
    const base = new VirtualClock(WALL0);
    const c = new WarmStartClock(base, { behindMs: 120_000, speed: 1, catchUpSpeed: 20 });
    const seen: { due: number; at: number; wall: number }[] = [];
    const every = (ms: number) => {
      const due = c.now() + ms;
      c.setTimeout(() => {
        seen.push({ due, at: c.now(), wall: base.now() });
        if (seen.length < 20) every(ms);
      }, ms);
    };
    every(30_000); // set while held: armed at the release
    c.release();
    base.increment(15 * 60_000);
    expect(seen).toHaveLength(20);
    for (const s of seen) expect(s.at).toBe(s.due);
    // The first four come during the catch-up (due at start + 30, 60, 90 and 120 s, which the
    // clock reaches before it meets the wall at +6.3 s), the rest on the wall, 30 s apart.
    expect(seen.filter((s) => s.at < s.wall)).toHaveLength(4);
    const onWall = seen.filter((s) => s.at === s.wall);
    for (let i = 1; i < onWall.length; i++) expect(onWall[i]!.wall - onWall[i - 1]!.wall).toBe(30_000);
  });

  it('waits for timers a busy event loop runs late, so a blocked catch-up loses no history', () => {
    const loop = new LateLoop(WALL0);
    const c = new WarmStartClock(loop, { behindMs: 300_000, speed: 1, catchUpSpeed: 30 });
    const states: number[] = [];
    const state = () => {
      states.push(c.now());
      c.setTimeout(state, 60_000);
    };
    c.setTimeout(state, 60_000);
    c.release();
    loop.jump(20_000); // busy for 20 s: the catch-up line has met the wall meanwhile
    expect(c.now()).toBe(WALL0 - 240_000); // held at the first state, which has not run yet
    loop.runDue(); // the late timers run, one after the other, each at its own time
    expect(states).toEqual([-240_000, -180_000, -120_000, -60_000, 0].map((d) => WALL0 + d));
    // Caught up: the clock is the wall again, and the next state comes when the wall reaches it.
    expect(c.now()).toBe(loop.now());
    loop.jump(40_000);
    loop.runDue();
    expect(states).toHaveLength(6);
    expect(states.at(-1)).toBe(WALL0 + 60_000);
  });

  it('never shows time going back, and never ahead of the wall', () => {
    const base = new VirtualClock(WALL0);
    const c = new WarmStartClock(base, { behindMs: 10_000, speed: 1, catchUpSpeed: 7 });
    c.release();
    let last = c.now();
    for (let i = 0; i < 5_000; i++) {
      base.increment(1);
      const now = c.now();
      expect(now).toBeGreaterThanOrEqual(last);
      expect(now).toBeLessThanOrEqual(base.now());
      last = now;
    }
    expect(last).toBe(base.now());
  });

  it('at --speed N catches up with the line N times the wall from the start, then keeps it', () => {
    const base = new VirtualClock(WALL0);
    const c = new WarmStartClock(base, { behindMs: 60_000, speed: 10, catchUpSpeed: 40 });
    c.release();
    // 60 s behind, gaining 30 s per wall second: met after 2 s, at WALL0 + 20 s.
    expect(c.caughtUpAt).toBe(WALL0 + 20_000);
    base.increment(2_000);
    expect(c.now()).toBe(WALL0 + 20_000);
    base.increment(1_000);
    expect(c.now()).toBe(WALL0 + 30_000);
  });

  it('never runs a cleared timer, held or released', () => {
    const base = new VirtualClock(WALL0);
    const c = new WarmStartClock(base, { behindMs: 60_000, speed: 1, catchUpSpeed: 10 });
    let ran = 0;
    const held = c.setTimeout(() => ran++, 1_000);
    c.clearTimeout(held);
    c.release();
    const armed = c.setTimeout(() => ran++, 1_000);
    base.increment(50);
    c.clearTimeout(armed);
    base.increment(60_000);
    expect(ran).toBe(0);
    expect(base.nextAt()).toBeUndefined();
  });

  it('refuses a catch-up no faster than the speed it keeps', () => {
    const base = new VirtualClock(WALL0);
    expect(() => new WarmStartClock(base, { behindMs: 1_000, speed: 30, catchUpSpeed: 30 })).toThrow(RangeError);
    expect(() => new WarmStartClock(base, { behindMs: 0, speed: 1, catchUpSpeed: 30 })).toThrow(RangeError);
  });
});

/** A base whose timers run only when told (`runDue`), late when time jumped on meanwhile (`jump`). */
class LateLoop {
  private timers: { at: number; id: number; fn: () => void }[] = [];
  private nextId = 1;
  constructor(private t: number) {}
  now = (): number => this.t;
  setTimeout = (fn: () => void, ms: number): number => {
    const id = this.nextId++;
    this.timers.push({ at: this.t + ms, id, fn });
    return id;
  };
  clearTimeout = (id: unknown): void => {
    this.timers = this.timers.filter((x) => x.id !== id);
  };
  jump(ms: number): void {
    this.t += ms;
  }
  /** Runs what is due, earliest first, then whatever those set that is due too. */
  runDue(): void {
    for (let i = 0; i < 10_000; i++) {
      const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) return;
      this.clearTimeout(due.id);
      due.fn();
    }
    throw new Error('timers keep coming due: a loop');
  }
}
