/**
 * When a replayed line plays. A recorded time t plays at t + offset on the process clock, and
 * the process clock already runs at the replay's speed:
 * - 'max': the clock is discrete-event (a VirtualClock: `runUntil`). It is advanced to each
 *   line's time, so actor timers (command timeouts, reboot waits) fire in between exactly where
 *   they fell in the recording, and nothing waits on the wall.
 * - a number: the clock is the composition root's, running at that factor (ScaledClock over wall
 *   time, so actor delays scale too); the replay waits on it for each line's time. A clock that
 *   can be held is held at each line's time until the line is played: a line played late (a busy
 *   event loop) happens at its own time, and the lines owed play at once to catch up.
 */
import type { Clock } from '../../protocol/clock.js';

/** A clock the replayer can step (simulator/clock.ts VirtualClock). */
export interface DiscreteClock extends Clock {
  runUntil(t: number): number;
}

/** A paced clock the replayer holds at the next line's time (simulator/clock.ts ScaledClock). */
export interface HoldableClock extends Clock {
  holdAt(ms: number | undefined): void;
  advanceTo(ms: number): void;
  goOnFromHere(): void;
  setTimeoutAt(fn: () => void, at: number): unknown;
}

export function isDiscrete(clock: Clock): clock is DiscreteClock {
  return typeof (clock as Partial<DiscreteClock>).runUntil === 'function';
}

function isHoldable(clock: Clock): clock is HoldableClock {
  return typeof (clock as Partial<HoldableClock>).holdAt === 'function';
}

/** Brings the clock to each line's time, and gives up a wait when the replay stops. */
export class Pacer {
  private readonly holdableClock: HoldableClock | undefined;
  private wake: (() => void) | undefined;
  private timer: unknown;

  constructor(private readonly clock: Clock | DiscreteClock, private readonly speed: number | 'max') {
    this.holdableClock = speed !== 'max' && isHoldable(clock) ? clock : undefined;
  }

  /**
   * Paces from here, not from when the clock was made (it was held at its start while the data
   * dir and the fleet opened); at the end, time stands at the last line played.
   */
  goOnFromHere(): void {
    this.holdableClock?.goOnFromHere();
  }

  /** The clock at `target` (a clock time), or a promise that resolves when it is there or the replay stops. */
  until(target: number): Promise<void> | undefined {
    const { clock, holdableClock } = this;
    if (isDiscrete(clock) && this.speed === 'max') {
      if (target > clock.now()) clock.runUntil(target);
      return undefined;
    }
    holdableClock?.advanceTo(target);
    const delay = target - clock.now();
    if (delay <= 0) return undefined;
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      // Held, the wait is for the hold's own time: a delay would be added to a later now().
      this.timer = holdableClock ? holdableClock.setTimeoutAt(() => resolve(), target) : clock.setTimeout(() => resolve(), delay);
    });
  }

  /** Ends the wait under way, if any. */
  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.wake?.();
  }
}
