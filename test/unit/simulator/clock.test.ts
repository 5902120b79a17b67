import { describe, expect, it } from 'vitest';
import { ScaledClock, VirtualClock } from '../../../simulator/clock.js';
import type { Clock } from '../../../src/protocol/clock.js';

describe('VirtualClock', () => {
  it('runs timers in time order, equal times in the order they were set', () => {
    const c = new VirtualClock(1000);
    const order: string[] = [];
    c.setTimeout(() => order.push('b@20'), 20);
    c.setTimeout(() => order.push('a@10'), 10);
    c.setTimeout(() => order.push('c@20'), 20);
    c.setTimeout(() => order.push('d@0'), 0);
    c.runUntil(1020);
    expect(order).toEqual(['d@0', 'a@10', 'b@20', 'c@20']);
    expect(c.now()).toBe(1020);
  });

  it('runs timers scheduled by timers when they fall inside the window, and stops at its end', () => {
    const c = new VirtualClock(0);
    const seen: number[] = [];
    const tick = (): void => { seen.push(c.now()); c.setTimeout(tick, 100); };
    c.setTimeout(tick, 100);
    c.runUntil(450);
    expect(seen).toEqual([100, 200, 300, 400]);
    expect(c.now()).toBe(450);
    expect(c.nextAt()).toBe(500);
  });

  it('never runs a cleared timer', () => {
    const c = new VirtualClock(0);
    let ran = false;
    const id = c.setTimeout(() => { ran = true; }, 5);
    c.clearTimeout(id);
    expect(c.step()).toBe(false);
    c.increment(10);
    expect(ran).toBe(false);
  });

  it('step() jumps straight to the next timer', () => {
    const c = new VirtualClock(0);
    c.setTimeout(() => undefined, 60_000);
    expect(c.step()).toBe(true);
    expect(c.now()).toBe(60_000);
  });

  it('treats negative or NaN delays as zero, never going back in time', () => {
    const c = new VirtualClock(100);
    const at: number[] = [];
    c.setTimeout(() => at.push(c.now()), -50);
    c.setTimeout(() => at.push(c.now()), Number.NaN);
    c.runUntil(100);
    expect(at).toEqual([100, 100]);
  });
});

describe('ScaledClock', () => {
  it('runs N times faster than its base clock and shortens delays by N', () => {
    let t = 5000;
    const delays: number[] = [];
    const base: Clock = { now: () => t, setTimeout: (_fn, ms) => { delays.push(ms); return 1; }, clearTimeout: () => undefined };
    const c = new ScaledClock(base, 10, 1_000_000);
    expect(c.now()).toBe(1_000_000);
    t += 100;
    expect(c.now()).toBe(1_001_000);
    c.setTimeout(() => undefined, 60_000);
    expect(delays).toEqual([6000]);
    expect(() => new ScaledClock(base, 0)).toThrow(RangeError);
  });

  it('arms no base timer past what Node holds (2^31 - 1 ms): a slow clock\'s long waits are taken in steps', () => {
    // --speed 0.0000001: a minute is 6e11 ms of wall time. Node fires a longer timer after 1 ms
    // (TimeoutOverflowWarning), and the early timer re-armed itself for ever, a busy loop.
    let t = 0;
    const timers = new Map<number, { fn: () => void; ms: number }>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, ms) => { timers.set(++next, { fn, ms }); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const c = new ScaledClock(base, 1e-7, 0);
    let ran = false;
    c.setTimeout(() => { ran = true; }, 60_000);
    const MAX = 2 ** 31 - 1;
    let steps = 0;
    while (!ran) {
      const [id, timer] = [...timers][0]!;
      expect(timer.ms).toBeLessThanOrEqual(MAX);
      timers.delete(id);
      t += timer.ms;
      timer.fn();
      steps++;
    }
    expect(c.now()).toBeGreaterThanOrEqual(60_000);
    expect(steps).toBe(Math.ceil(6e11 / MAX));
  });

  it('re-arms a base timer that fires early, so nothing runs before it is due; clearTimeout cancels the re-armed one', () => {
    let t = 0;
    const timers = new Map<number, () => void>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, _ms) => { timers.set(++next, fn); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const c = new ScaledClock(base, 20, 0);
    const ran: number[] = [];
    const id = c.setTimeout(() => ran.push(c.now()), 1000);
    t = 49; // the base fires 1 ms early: 980 ms of scaled time
    timers.get(1)!();
    expect(ran).toEqual([]);
    expect(timers.has(2)).toBe(true);
    c.clearTimeout(id);
    expect(timers.has(2)).toBe(false);
    c.setTimeout(() => ran.push(c.now()), 1000);
    t = 100;
    timers.get(3)!();
    expect(ran).toEqual([2000]);
  });

  it('stands at a hold while the base runs on, catches up when it moves, never goes back; goOnFromHere drops what it ran past', () => {
    let t = 0;
    const timers = new Map<number, () => void>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, _ms) => { timers.set(++next, fn); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const fire = () => { for (const [id, fn] of [...timers]) { timers.delete(id); fn(); } };
    const c = new ScaledClock(base, 100, 1_000);
    c.holdAt(1_000);
    t = 500; // half a wall second at 100x: 50 s, but held
    expect(c.now()).toBe(1_000);
    // Start-up is not caught up on: it goes on from 1,000.
    c.goOnFromHere();
    c.holdAt(3_000);
    expect(c.now()).toBe(1_000);
    const ran: number[] = [];
    c.setTimeout(() => ran.push(c.now()), 5_000);
    t = 510;
    expect(c.now()).toBe(2_000);
    t = 600; // the base is at 11,000: held at 3,000
    expect(c.now()).toBe(3_000);
    fire(); // the timer (due 6,000) fires while held short of it: parked, not run, not polling
    expect(ran).toEqual([]);
    expect(timers.size).toBe(0);
    // Moved on, it catches up to the base at once, up to the new hold.
    c.holdAt(8_000);
    expect(c.now()).toBe(8_000);
    fire();
    expect(ran).toEqual([8_000]);
    c.holdAt(undefined);
    expect(c.now()).toBe(11_000);
    // A hold below now() holds at now(): time does not go back.
    c.holdAt(5_000);
    t = 700;
    expect(c.now()).toBe(11_000);
    // A change of speed from a held time does not jump.
    c.setSpeed(1);
    t = 1_700;
    expect(c.now()).toBe(11_000);
    c.holdAt(undefined);
    expect(c.now()).toBe(12_000);
  });

  it('steps through the timers a late replay owes, each at its own time and in order, before the next line', () => {
    let t = 0;
    const timers = new Map<number, () => void>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, _ms) => { timers.set(++next, fn); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const c = new ScaledClock(base, 1000, 0, { heldAtStart: true });
    expect(c.now()).toBe(0);
    t = 5; // start-up: 5 s of scaled time, held at 0
    expect(c.now()).toBe(0);
    c.goOnFromHere();
    const ran: string[] = [];
    c.setTimeout(() => ran.push(`b@${c.now()}`), 50_000);
    c.setTimeout(() => { ran.push(`a@${c.now()}`); c.setTimeout(() => ran.push(`a2@${c.now()}`), 1_000); }, 20_000);
    c.advanceTo(1_000);
    t = 65; // 60 ms late: the base is at 60 s
    // The lines at 2 s ... 58 s are owed: the timers due between them run between them.
    c.advanceTo(2_000);
    ran.push('line@2000');
    expect(ran).toEqual(['line@2000']);
    c.advanceTo(30_000);
    ran.push(`line@${c.now()}`);
    c.advanceTo(58_000);
    ran.push(`line@${c.now()}`);
    expect(ran).toEqual(['line@2000', 'a@20000', 'a2@21000', 'line@30000', 'b@50000', 'line@58000']);
    // The replay ends: on from the last line, not from where the base got to.
    c.goOnFromHere();
    c.holdAt(undefined);
    expect(c.now()).toBe(58_000);
    t = 66;
    expect(c.now()).toBe(59_000);
    // Nothing left armed twice: the base's timers are the ones not run.
    expect(timers.size).toBe(0);
  });

  it('runs a timer set for the hold\'s own time, however far the base ran on meanwhile', () => {
    let t = 0;
    const timers = new Map<number, () => void>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, _ms) => { timers.set(++next, fn); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const c = new ScaledClock(base, 60, 0);
    c.holdAt(6_000);
    const ran: number[] = [];
    c.setTimeoutAt(() => ran.push(c.now()), 6_000);
    // As a replay would have set it: delay from one now(), due from a later one (1 ms = 60 ms on).
    const delay = 6_000 - c.now();
    t = 1;
    c.setTimeout(() => ran.push(-1), delay);
    t = 200;
    for (const [id, fn] of [...timers]) { timers.delete(id); fn(); }
    expect(ran).toEqual([6_000]); // the relative one is due at 6,060, past the hold: not yet
  });

  it('changes speed without a jump, and re-arms the timers it holds for their scaled due time', () => {
    let t = 0;
    const timers = new Map<number, { fn: () => void; ms: number }>();
    let next = 0;
    const base: Clock = { now: () => t, setTimeout: (fn, ms) => { timers.set(++next, { fn, ms }); return next; }, clearTimeout: (id) => void timers.delete(id as number) };
    const c = new ScaledClock(base, 10, 0);
    const ran: number[] = [];
    c.setTimeout(() => ran.push(c.now()), 60_000); // 6 s of base time at speed 10
    const cleared = c.setTimeout(() => ran.push(-1), 30_000);
    c.clearTimeout(cleared);
    t = 1000;
    expect(c.now()).toBe(10_000);
    c.setSpeed(1);
    expect(c.now()).toBe(10_000);
    t = 1500;
    expect(c.now()).toBe(10_500);
    // The live timer was re-armed for the 50 s left, at the new speed; the cleared one is gone.
    expect([...timers.values()].map((x) => x.ms)).toEqual([50_000]);
    t = 51_000;
    [...timers.values()][0]!.fn();
    expect(ran).toEqual([60_000]);
    expect(() => c.setSpeed(0)).toThrow(RangeError);
  });
});
