/**
 * The one clock of a process. It is XState's clock (setTimeout/clearTimeout) plus `now()`,
 * so the same object drives actor delays, RxJS schedulers and every time stamp.
 * Live mode wraps wall time; a simulation or a recording played back uses a virtual clock (simulator/clock.ts).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, on this clock. */
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown;
  clearTimeout(id: unknown): void;
}

/** The longest delay a Node timer holds (2^31 - 1 ms, ~24.8 days); a longer one runs after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A wall-clock timer longer than MAX_TIMER_MS, taken in steps: `id` is the step armed now. */
class LongTimer {
  id: ReturnType<typeof setTimeout> | undefined;

  constructor(fn: () => void, ms: number) {
    let left = ms;
    const step = () => {
      const wait = Math.min(left, MAX_TIMER_MS);
      left -= wait;
      this.id = setTimeout(() => (left > 0 ? step() : fn()), wait);
    };
    step();
  }
}

/**
 * Wall-clock time. The only place outside src/cli/ allowed to read the system clock. Its
 * timers run when due however far ahead (a command's `when` weeks away, its expiry 4 h later):
 * past MAX_TIMER_MS, Node alone would run them at once.
 */
export const wallClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => (ms > MAX_TIMER_MS ? new LongTimer(fn, ms) : setTimeout(fn, ms)),
  clearTimeout: (id) => clearTimeout(id instanceof LongTimer ? id.id : (id as ReturnType<typeof setTimeout>)),
};

/** Epoch seconds, as the gateway API stores timestamps. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

/**
 * Runs `fn` every `everyMs` on `clock` until the returned function is called. Housekeeping: a
 * wall timer is unref'd, so it does not keep alive a process that has nothing else to do.
 */
export function every(clock: Clock, everyMs: number, fn: () => void): () => void {
  let stopped = false;
  let id: unknown;
  const arm = (): void => {
    id = clock.setTimeout(() => {
      if (stopped) return;
      arm();
      fn();
    }, everyMs);
    (id as { unref?: () => void } | undefined)?.unref?.();
  };
  arm();
  return () => {
    stopped = true;
    clock.clearTimeout(id);
  };
}
