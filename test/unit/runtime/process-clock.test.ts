import { describe, expect, it } from 'vitest';
import { processClock, warmUpSpeed } from '../../../src/runtime/fleet-runtime.js';
import { VirtualClock } from '../../../simulator/clock.js';

const WALL0 = 1_800_000_000_000;

describe('processClock with a warm-up', () => {
  it('is the wall itself at speed 1 without one', () => {
    const wall = new VirtualClock(WALL0);
    const d = processClock(1, wall, 0);
    expect(d.clock).toBe(wall);
    expect(d.warmUp).toBeUndefined();
  });

  it('starts that far in the past, held until released, then catches up at warmUpSpeed', () => {
    const wall = new VirtualClock(WALL0);
    const d = processClock(1, wall, 300_000);
    expect(d.warmUp).toMatchObject({ ms: 300_000, speed: 30 });
    wall.increment(3_000);
    expect(d.clock.now()).toBe(WALL0 - 300_000);
    d.release();
    expect(d.warmUp!.caughtUpAt()).toBe(Math.ceil(WALL0 + 3_000 + 303_000 / 29));
    wall.increment(1_000);
    expect(d.clock.now()).toBe(WALL0 - 300_000 + 30_000);
  });

  it('catches up faster than a --speed above 15, and at max simply starts in the past', () => {
    expect(warmUpSpeed(1)).toBe(30);
    expect(warmUpSpeed(20)).toBe(40);
    const wall = new VirtualClock(WALL0);
    expect(processClock(20, wall, 60_000).warmUp?.speed).toBe(40);
    const max = processClock('max', wall, 60_000);
    expect(max.clock.now()).toBe(WALL0 - 60_000);
    max.stop();
  });
});
