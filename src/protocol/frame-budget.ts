/**
 * What one AP may send per second (docs/configuration.md): a token bucket for frames and one for
 * bytes, both on the injected clock. A frame over either budget is dropped (the caller counts
 * it); an AP that is over budget in `strikes` consecutive seconds is a persistent offender, which
 * the caller disconnects. A real AP sends a state and a healthcheck a minute, logs and events in
 * between: the defaults leave it two orders of magnitude of room and still cut a flood (one AP
 * sent 38,900 frames/s) to a rate the twin absorbs.
 */
import type { Clock } from './clock.js';

export interface FrameBudgetLimits {
  /** Sustained frames per second; 0 turns the frame budget off. */
  framesPerS: number;
  /** Sustained bytes per second; 0 turns the byte budget off. */
  bytesPerS: number;
  /** Seconds of the sustained rate an AP may send at once (a connect's burst, a backlog). */
  burstS: number;
  /** Consecutive seconds with dropped frames after which the AP is disconnected; 0 never. */
  strikes: number;
}

export const DEFAULT_FRAME_BUDGET: FrameBudgetLimits = { framesPerS: 50, bytesPerS: 1024 * 1024, burstS: 10, strikes: 10 };

/** A token bucket: `ratePerS` tokens a second up to `capacity`; starts full. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(private readonly ratePerS: number, private readonly capacity: number, now: number) {
    this.tokens = capacity;
    this.at = now;
  }

  /** Takes `n` tokens at time `now` (ms) if there are that many; a clock that steps back refills nothing. */
  tryTake(n: number, now: number): boolean {
    this.refill(now);
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** Tokens there are at `now`. */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  private refill(now: number): void {
    if (now > this.at) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) * this.ratePerS) / 1000);
      this.at = now;
    }
  }
}

export type BudgetVerdict = 'ok' | 'drop' | 'offender';

/** One AP's budget. `admit` says what to do with each of its frames. */
export class FrameBudget {
  private readonly frames?: TokenBucket;
  private readonly bytes?: TokenBucket;
  private strikes = 0;
  private lastDropSecond = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: FrameBudgetLimits, private readonly clock: Pick<Clock, 'now'>) {
    const now = clock.now();
    const burst = Math.max(1, limits.burstS);
    if (limits.framesPerS > 0) this.frames = new TokenBucket(limits.framesPerS, Math.max(1, limits.framesPerS * burst), now);
    // A frame as large as a second's bytes still fits a full bucket.
    if (limits.bytesPerS > 0) this.bytes = new TokenBucket(limits.bytesPerS, Math.max(1, limits.bytesPerS * burst), now);
  }

  /** A frame of `size` bytes at `now` (default the clock's): within budget, dropped, or dropped by a persistent offender. */
  admit(size: number, now = this.clock.now()): BudgetVerdict {
    const frameOk = this.frames === undefined || this.frames.available(now) >= 1;
    const bytesOk = this.bytes === undefined || this.bytes.available(now) >= size;
    if (frameOk && bytesOk) {
      this.frames?.tryTake(1, now);
      this.bytes?.tryTake(size, now);
      return 'ok';
    }
    const second = Math.floor(now / 1000);
    if (second !== this.lastDropSecond) {
      this.strikes = second === this.lastDropSecond + 1 ? this.strikes + 1 : 1;
      this.lastDropSecond = second;
    }
    return this.limits.strikes > 0 && this.strikes >= this.limits.strikes ? 'offender' : 'drop';
  }
}
