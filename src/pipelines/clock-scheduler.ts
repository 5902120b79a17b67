import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { Clock } from '../protocol/clock.js';

/**
 * An RxJS scheduler over the process `Clock` port, so the pipelines' time limits run on the
 * same time as the actors (a pipeline takes its scheduler, never a default): wall time in live mode, the VirtualClock in
 * simulation and tests. `serve` passes `clockScheduler(clock)` to `startIngest`.
 */
export function clockScheduler(clock: Clock): SchedulerLike {
  return {
    now: () => clock.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      return new ClockAction<T>(clock, work).schedule(state, delay);
    },
  };
}

class ClockAction<T> extends Subscription implements SchedulerAction<T> {
  private timer: unknown;
  private pending = false;

  constructor(private readonly clock: Clock, private readonly work: (this: SchedulerAction<T>, state?: T) => void) {
    super();
  }

  override unsubscribe(): void {
    this.cancel();
    super.unsubscribe();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.cancel();
    this.pending = true;
    this.timer = this.clock.setTimeout(() => {
      this.pending = false;
      this.timer = undefined;
      this.work.call(this, state);
      // As RxJS's AsyncAction: an action that did not reschedule itself is finished.
      if (!this.pending) this.unsubscribe();
    }, delay);
    return this;
  }

  private cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
  }
}
