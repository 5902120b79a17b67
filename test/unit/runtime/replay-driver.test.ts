import { describe, expect, it } from 'vitest';
import { replayDriver } from '../../../src/runtime/fleet-runtime.js';
import { VirtualClock } from '../../../simulator/clock.js';
import type { Clock } from '../../../src/protocol/clock.js';

/** A wall that stands still at `ms`, so what the driver does at once is all there is to see. */
const wallAt = (ms: number): Clock => ({ now: () => ms, setTimeout: () => 0, clearTimeout: () => undefined });

describe('replayDriver after the last line of a replay at max', () => {
  it('with catchUp, runs the virtual clock on to the wall, running the timers due on the way', () => {
    const clock = new VirtualClock(1_000_000);
    const ran: number[] = [];
    clock.setTimeout(() => ran.push(clock.now()), 2_000);
    clock.setTimeout(() => ran.push(clock.now()), 10_000);
    const driver = replayDriver(clock, { catchUp: wallAt(1_005_000) });
    try {
      driver.followWallTime();
      expect(clock.now()).toBe(1_005_000);
      expect(ran).toEqual([1_002_000]);
    } finally {
      driver.stop();
    }
  });

  it('without it (--keep-time), goes on from where the last line left it', () => {
    const clock = new VirtualClock(1_000_000);
    const driver = replayDriver(clock);
    try {
      driver.followWallTime();
      expect(clock.now()).toBe(1_000_000);
    } finally {
      driver.stop();
    }
  });

  it('never moves the clock back to a wall behind it', () => {
    const clock = new VirtualClock(1_000_000);
    const driver = replayDriver(clock, { catchUp: wallAt(900_000) });
    try {
      driver.followWallTime();
      expect(clock.now()).toBe(1_000_000);
    } finally {
      driver.stop();
    }
  });
});
