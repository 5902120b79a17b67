import { Observable, Subject, catchError, EMPTY, takeUntil, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';

/** Size and time limits of a batch (the scheduler is an argument, never a default, so tests run on virtual time). */
export interface BatchLimits {
  /** Drives the time limit: `clockScheduler(clock)` in the process, a TestScheduler in marble tests. */
  scheduler: SchedulerLike;
  /** A batch is emitted as soon as its weight reaches this (rows, not events). */
  maxRows: number;
  /** ...or this long after its first item arrived, whichever comes first. */
  maxDelayMs: number;
}

export interface BatchOptions<T> extends BatchLimits {
  /** Rows an item stands for (default 1): a state event becomes many rows. */
  weight?: (item: T) => number;
  /** Each emission closes the batch being filled now (an explicit flush). */
  flush$?: Observable<unknown>;
}

/**
 * Groups items into arrays by size and time. Unlike `bufferTime`, the timer starts with the
 * first item of a batch, so an idle stream emits nothing; the remainder is emitted when the
 * source completes or errors, so nothing received is left behind.
 */
export function batchBy<T>(opts: BatchOptions<T>): OperatorFunction<T, T[]> {
  const { scheduler, maxRows, maxDelayMs } = opts;
  const weight = opts.weight ?? (() => 1);
  return (source) => new Observable<T[]>((out) => {
    let buffer: T[] = [];
    let rows = 0;
    let timer: Subscription | undefined;
    const emit = (): void => {
      timer?.unsubscribe();
      timer = undefined;
      if (buffer.length === 0) return;
      const batch = buffer;
      buffer = [];
      rows = 0;
      out.next(batch);
    };
    const flushes = opts.flush$?.subscribe(() => emit());
    const upstream = source.subscribe({
      next: (item) => {
        buffer.push(item);
        rows += weight(item);
        if (rows >= maxRows) emit();
        else timer ??= scheduler.schedule(emit, maxDelayMs);
      },
      error: (err: unknown) => {
        emit();
        out.error(err);
      },
      complete: () => {
        emit();
        out.complete();
      },
    });
    return () => {
      timer?.unsubscribe();
      flushes?.unsubscribe();
      upstream.unsubscribe();
    };
  });
}

/** Writes one batch. It should handle its own failures; a rejection is reported, not fatal. */
export type BatchSink<T> = (batch: T[]) => Promise<void>;

export interface BatchRun {
  /** Closes the current batch and resolves once everything received before the call is written. */
  flush(): Promise<void>;
  /**
   * Resolves once the backlog is at most `weight` (without closing the batch being filled): a
   * producer that waits on it keeps the sink busy instead of letting it drain to empty.
   */
  backlogAtMost(weight: number): Promise<void>;
  /** Stops taking items, writes everything received, resolves when the last batch is written. */
  stop(): Promise<void>;
  /** Weight received but not yet written (the visible backlog). */
  readonly backlog: number;
}

export interface RunBatchesOptions<T> extends BatchOptions<T> {
  /**
   * A sink rejection (a bug: the sink is expected to retry on its own), with its batch, or an
   * error of the source (no batch), after which what was received is still written.
   */
  onError?: (error: unknown, batch?: T[]) => void;
  /** After each batch is handed to the sink and settled. */
  onWritten?: (batch: T[], weight: number) => void;
  /**
   * Batches that queued up while the sink was busy are written together, up to this weight
   * (default `maxRows`: no merging). Under load a write then costs one commit for many
   * batches; when idle, batches still go out alone as soon as they close.
   */
  coalesceRows?: number;
}

/**
 * The pipeline shape every pipeline shares: `(events$, sink, { scheduler, maxRows, maxDelayMs })`.
 * Batches are written one at a time, in order, so a slow sink shows up as a growing backlog
 * instead of overlapping writes; batches waiting behind a write are merged (`coalesceRows`).
 */
export function runBatches<T>(events$: Observable<T>, sink: BatchSink<T>, opts: RunBatchesOptions<T>): BatchRun {
  const weight = opts.weight ?? (() => 1);
  const flush$ = new Subject<void>();
  const stop$ = new Subject<void>();
  let received = 0;
  const writer = sinkQueue(sink, opts);

  const counted = new Observable<T>((sub) => events$.subscribe({
    next: (item) => {
      received += weight(item);
      sub.next(item);
    },
    error: (e: unknown) => sub.error(e),
    complete: () => sub.complete(),
  }));

  counted.pipe(
    catchError((e: unknown) => {
      opts.onError?.(e);
      return EMPTY;
    }),
    takeUntil(stop$),
    batchBy({ ...opts, weight, flush$ }),
  ).subscribe({
    next: (batch) => {
      let w = 0;
      for (const item of batch) w += weight(item);
      writer.push(batch, w);
    },
    complete: () => writer.end(),
  });

  return {
    flush() {
      const until = received;
      flush$.next();
      return writer.writtenUpTo(until);
    },
    backlogAtMost(weight: number) {
      return writer.writtenUpTo(received - weight);
    },
    async stop() {
      stop$.next();
      stop$.complete();
      await writer.done;
      writer.settle();
    },
    get backlog() {
      return received - writer.written;
    },
  };
}

interface SinkQueue<T> {
  /** Queues a closed batch of this weight; the sink gets it after everything queued before. */
  push(batch: T[], weight: number): void;
  /** No more batches: `done` resolves once the last one is written. */
  end(): void;
  /** Resolves once the written weight reaches `until`. */
  writtenUpTo(until: number): Promise<void>;
  /** Resolves the waiters whose weight is written. */
  settle(): void;
  readonly written: number;
  readonly done: Promise<void>;
}

/** The write side of runBatches: one sink call at a time, batches queued behind it merged up to coalesceRows. */
function sinkQueue<T>(sink: BatchSink<T>, opts: RunBatchesOptions<T>): SinkQueue<T> {
  const coalesce = opts.coalesceRows ?? opts.maxRows;
  const queue: { batch: T[]; weight: number }[] = [];
  const waiters: { until: number; resolve: () => void }[] = [];
  let written = 0;
  let writing = false;
  let sourceDone = false;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const settle = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (written >= waiters[i]!.until) waiters.splice(i, 1)[0]!.resolve();
    }
  };
  const pump = async (): Promise<void> => {
    if (writing) return;
    writing = true;
    while (queue.length > 0) {
      let { batch, weight: w } = queue.shift()!;
      while (queue.length > 0 && w + queue[0]!.weight <= coalesce) {
        const next = queue.shift()!;
        batch = batch.concat(next.batch);
        w += next.weight;
      }
      try {
        await sink(batch);
      } catch (e) {
        opts.onError?.(e, batch);
      }
      written += w;
      opts.onWritten?.(batch, w);
      settle();
    }
    writing = false;
    if (sourceDone) finished();
  };
  return {
    push(batch, weight) {
      queue.push({ batch, weight });
      void pump();
    },
    end() {
      sourceDone = true;
      if (!writing) finished();
    },
    writtenUpTo(until) {
      if (written >= until) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ until, resolve }));
    },
    settle,
    get written() {
      return written;
    },
    done,
  };
}
