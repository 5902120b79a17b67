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
