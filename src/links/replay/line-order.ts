/**
 * The ordering rule of a recording, written once: the reader applies it line by line, and
 * `lastKeptTime` applies it to the times at the end of a file, so both agree on which lines a
 * replay plays.
 *
 * A file is ordered by `t`; a line whose `t` is before the last kept line's "goes backwards" and
 * is rejected (record-line.ts checks that against `lastT`). With look-ahead, an accepted line P
 * waits, with the rejections read after it, for the next accepted one:
 * - not earlier than P: P is kept;
 * - earlier (N): the line after N decides which of the two is out of order. Not earlier than P:
 *   N came late and is rejected as going backwards. Earlier: P jumped ahead (a clock glitch, a
 *   line edited in) and it alone is rejected, so one bad line does not make every later line go
 *   backwards and cost the rest of the file.
 * A file in order has no such lines and loses none. At the end, a suspect N with no line after
 * it is taken as late. A scan for some lines only (`contains`) sees too few lines to judge P
 * by, so it keeps each accepted line at once (no look-ahead).
 */
import type { Accepted, ReadItem } from './record-line.js';

/**
 * Rejected lines held behind a line whose look-ahead is not settled yet, at most: a thousand
 * lines of garbage between two lines is no clock glitch the look-ahead could tell.
 */
const MAX_HELD = 1024;

function rejected(item: Accepted, reason: string): ReadItem {
  return { ok: false, line: item.line, file: item.file, size: item.size, reason };
}

function late(n: Accepted, tP: number): ReadItem {
  return rejected(n, `t goes backwards (${n.rec.t} after ${tP})`);
}

/**
 * Settles lines in the rule's order: each call puts the lines it settles at the end of `out`,
 * in line order, and keeps the others until a later line settles them.
 */
export class LineOrder {
  /** The time of the last line kept: no later line may go back before it. */
  lastT = -Infinity;
  /** P (always an accepted line) and the lines read after it, while P is not settled. */
  private readonly pending: ReadItem[] = [];
  /** Index in `pending` of N, the accepted line earlier than P, when there is one. */
  private suspect = -1;

  constructor(private readonly lookAhead: boolean) {}

  /** Whether lines wait for a later one to settle them. */
  get waiting(): boolean {
    return this.pending.length > 0;
  }

  /**
   * A rejection goes after a line still pending, so items stay in line order. Past MAX_HELD of
   * them (`cat new.ndjson old.ndjson`: every old line goes backwards) the pending lines are
   * settled as the end of the file settles them, so memory stays bounded.
   */
  reject(item: ReadItem, out: ReadItem[]): void {
    const pending = this.pending;
    if (pending.length === 0) {
      out.push(item);
      return;
    }
    pending.push(item);
    if (pending.length > MAX_HELD) {
      this.lastT = (pending[0] as Accepted).rec.t;
      for (const settled of this.release()) out.push(settled);
    }
  }

  /** A line that passed its checks (its `t` is not before `lastT`). */
  accept(item: Accepted, out: ReadItem[]): void {
    const pending = this.pending;
    if (!this.lookAhead) {
      this.lastT = item.rec.t;
      out.push(item);
      return;
    }
    const p = pending[0] as Accepted | undefined;
    if (!p) {
      pending.push(item);
      return;
    }
    const tP = p.rec.t;
    if (this.suspect < 0) {
      if (item.rec.t < tP) this.suspect = pending.length;
      else {
        this.lastT = tP;
        out.push(...pending.splice(0));
      }
      pending.push(item);
      return;
    }
    const n = pending[this.suspect] as Accepted;
    if (item.rec.t >= tP) {
      pending[this.suspect] = late(n, tP);
      this.lastT = tP;
      out.push(...pending.splice(0));
      this.suspect = -1;
      pending.push(item);
      return;
    }
    pending[0] = rejected(p, `t jumps ahead of the lines around it (${tP}, the next two have ${n.rec.t} and ${item.rec.t}): out of order`);
    out.push(...pending.splice(0, this.suspect));
    this.suspect = -1;
    // N is the line pending now: the new one is judged against it.
    this.accept(item, out);
  }

  /** Every line still pending, settled as the end of the recording settles it. */
  release(): ReadItem[] {
    const pending = this.pending;
    if (this.suspect >= 0) pending[this.suspect] = late(pending[this.suspect] as Accepted, (pending[0] as Accepted).rec.t);
    this.suspect = -1;
    return pending.splice(0);
  }
}

/**
 * The last of `times` (the valid lines at the end of a file, in order) that the ordering rule
 * keeps. A last time that jumps ahead has nothing after it to judge it and is kept, as the
 * replay plays it.
 */
export function lastKeptTime(times: readonly number[]): number | undefined {
  const order = new LineOrder(true);
  let last: number | undefined;
  const keep = (items: readonly ReadItem[]): void => {
    for (const item of items) if (item.ok) last = item.rec.t;
  };
  times.forEach((t, i) => {
    const out: ReadItem[] = [];
    const item: Accepted = { ok: true, line: i + 1, file: '', size: 0, rec: { kind: 'connect', t, serial: '' } };
    if (t < order.lastT) order.reject(late(item, order.lastT), out);
    else order.accept(item, out);
    keep(out);
  });
  keep(order.release());
  return last;
}
