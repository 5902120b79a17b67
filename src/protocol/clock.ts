/**
 * The one clock of a process. It is XState's clock (setTimeout/clearTimeout) plus `now()`,
 * so the same object drives actor delays, RxJS schedulers and every time stamp.
 * Live mode wraps wall time; simulation and replay use a virtual clock (simulator/clock.ts).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, on this clock. */
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Wall-clock time. The only place outside src/cli.ts allowed to read the system clock. */
export const wallClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/** Epoch seconds, as the gateway API stores timestamps. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
