import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { FrameBudget, TokenBucket } from '../../../src/protocol/frame-budget.js';

describe('TokenBucket', () => {
  it('starts full, empties, and refills at its rate up to its capacity', () => {
    const b = new TokenBucket(10, 20, 0);
    for (let i = 0; i < 20; i++) expect(b.tryTake(1, 0)).toBe(true);
    expect(b.tryTake(1, 0)).toBe(false);
    expect(b.tryTake(1, 99)).toBe(false);
    expect(b.tryTake(1, 100)).toBe(true);
    expect(b.available(60_000)).toBe(20);
  });

  it('refills nothing when the clock steps back', () => {
    const b = new TokenBucket(10, 1, 1000);
    expect(b.tryTake(1, 1000)).toBe(true);
    expect(b.tryTake(1, 500)).toBe(false);
    expect(b.tryTake(1, 1100)).toBe(true);
  });
});

describe('FrameBudget', () => {
  const limits = { framesPerS: 10, bytesPerS: 1000, burstS: 2, strikes: 3 };

  it('admits a burst of burstS seconds of frames, then the sustained rate', () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const budget = new FrameBudget(limits, clock);
    const verdicts = Array.from({ length: 25 }, () => budget.admit(1));
    expect(verdicts.filter((v) => v === 'ok')).toHaveLength(20);
    expect(verdicts.slice(20)).toEqual(['drop', 'drop', 'drop', 'drop', 'drop']);
    clock.increment(100);
    expect(budget.admit(1)).toBe('ok');
    expect(budget.admit(1)).toBe('drop');
  });

  it('drops a frame over the byte budget even when frames are left', () => {
    const clock = new SimulatedClock();
    const budget = new FrameBudget(limits, clock);
    expect(budget.admit(1500)).toBe('ok');
    expect(budget.admit(600)).toBe('drop');
    expect(budget.admit(500)).toBe('ok');
    clock.increment(1000);
    expect(budget.admit(1000)).toBe('ok');
  });

  it('names an AP over budget in `strikes` consecutive seconds an offender, not one that pauses', () => {
    const clock = new SimulatedClock();
    clock.set(10_000);
    const flood = (budget: FrameBudget) => {
      const seen = new Set<string>();
      for (let i = 0; i < 100; i++) seen.add(budget.admit(1));
      return seen;
    };
    const budget = new FrameBudget(limits, clock);
    expect(flood(budget).has('offender')).toBe(false);
    clock.increment(1000);
    expect(flood(budget).has('offender')).toBe(false);
    clock.increment(1000);
    expect(flood(budget).has('offender')).toBe(true);

    const bursty = new FrameBudget(limits, clock);
    for (let s = 0; s < 10; s++) {
      expect(flood(bursty).has('offender')).toBe(false);
      clock.increment(3000);
    }
  });

  it('limits nothing with rates of 0', () => {
    const clock = new SimulatedClock();
    const budget = new FrameBudget({ framesPerS: 0, bytesPerS: 0, burstS: 1, strikes: 1 }, clock);
    for (let i = 0; i < 10_000; i++) expect(budget.admit(1e6)).toBe('ok');
  });
});
