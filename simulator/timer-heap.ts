/**
 * The pending timers of a simulation clock, earliest first. `before` decides the order and must
 * be total (due time, then the order the timers were set), so equal due times always come out
 * in the order they were scheduled and a seed gives one event log.
 */
export class TimerHeap<T> {
  private readonly h: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.h.length;
  }

  /** The earliest timer, left in place. */
  peek(): T | undefined {
    return this.h[0];
  }

  /** Every timer, in no particular order. */
  values(): readonly T[] {
    return this.h;
  }

  clear(): void {
    this.h.length = 0;
  }

  push(timer: T): void {
    const h = this.h;
    h.push(timer);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** Takes the earliest timer out. */
  pop(): T | undefined {
    const h = this.h;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length === 0) return top;
    h[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
      if (m === i) return top;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
