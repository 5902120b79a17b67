import { describe, expect, it } from 'vitest';
import { interval, take, timer } from 'rxjs';
import { clockScheduler } from '../../../src/pipelines/clock-scheduler.js';
import { VirtualClock } from '../../../simulator/clock.js';

describe('clockScheduler', () => {
  it('runs RxJS time on the process clock: nothing fires until the clock is advanced', () => {
    const clock = new VirtualClock(1_000);
    const s = clockScheduler(clock);
    expect(s.now()).toBe(1_000);
    const seen: number[] = [];
    timer(500, s).subscribe(() => seen.push(clock.now()));
    clock.increment(499);
    expect(seen).toEqual([]);
    clock.increment(1);
    expect(seen).toEqual([1_500]);
  });

  it('supports rescheduling actions (interval) and cancellation by unsubscribe', () => {
    const clock = new VirtualClock(0);
    const s = clockScheduler(clock);
    const ticks: number[] = [];
    interval(100, s).pipe(take(3)).subscribe((n) => ticks.push(n));
    const cancelled: number[] = [];
    const sub = timer(150, s).subscribe(() => cancelled.push(1));
    sub.unsubscribe();
    clock.increment(1_000);
    expect(ticks).toEqual([0, 1, 2]);
    expect(cancelled).toEqual([]);
    expect(clock.nextAt()).toBeUndefined();
  });
});
