/**
 * Runs a repository's writes one at a time. A write that checks the in-memory mirror, runs a
 * statement and then updates the mirror spans awaits: two of them on one record (two PUTs, a PUT
 * and a DELETE, two creates) interleaved, and the second read what the first was about to
 * replace (a lost update, a record resurrected in memory only, a duplicate key reaching DuckDB).
 * Queued, each write reads the record as the previous one left it. The store runs statements one
 * at a time anyway, so the queue costs no throughput. A failed write does not stop the next.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(write: () => Promise<T>): Promise<T> {
    const next = this.tail.then(write, write);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
