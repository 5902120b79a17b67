import type { SchedulerLike } from 'rxjs';
import { isNoSpaceError } from '../errors.js';
import type { Store } from '../store/duckdb.js';
import type { IngestCounters } from './metrics.js';
import { chunkWriters, type OpenTableWriter, type TableWriter } from './table-writer.js';
import { APPEND_TABLES, TABLES, type CapabilitiesUpsert, type Row, type RowSet, type TableName } from './tables.js';

/** Minimal logger (pino's Logger fits). */
export interface PipelineLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RetryPolicy {
  /** Attempts of a whole table batch before it is split row by row (default 6). */
  attempts: number;
  /** First wait between attempts, doubling up to `maxDelayMs` (defaults 100 ms and 5 s). */
  firstDelayMs: number;
  maxDelayMs: number;
}

export interface DuckDbSinkOptions {
  store: Store;
  /** Stamps `lastWriteAt`, and runs the retry waits unless `retryScheduler` is given. */
  scheduler: SchedulerLike;
  retryScheduler?: SchedulerLike;
  logger: PipelineLogger;
  counters: IngestCounters;
  retry?: Partial<RetryPolicy>;
  /** Where each table's rows go (default: chunkWriters, table-writer.ts). */
  openWriter?: OpenTableWriter;
}

/** Ids taken from a table's sequence in blocks: one `nextval` query per ~10,000 rows, not per row. */
const ID_BLOCK = 10_000;

/**
 * Writes batches with one TableWriter per table, opened once (table-writer.ts). Each table's rows
 * of a batch are one write, one transaction. The tables of a batch are written at once, each on
 * its own connection. A failed table write is logged, counted and retried with backoff (a failed
 * write left nothing behind, so the same writer retries it). After the retries the rows are
 * written one by one so a single unstorable row is rejected (logged with its serial, counted)
 * without holding back the others. Tables are written independently, so a retry never
 * duplicates another table's rows.
 */
export class DuckDbSink {
  private readonly handles = new Map<TableName, TableWriter>();
  private readonly openWriter: OpenTableWriter;
  private readonly ids = new Map<TableName, { next: number; end: number }>();
  private readonly retry: RetryPolicy;
  private closed = false;
  /**
   * Rows appended by the batch being written, per table. They reach the counters when the batch
   * is done, together with the backlog dropping, so no snapshot counts a row as both written and
   * still queued.
   */
  private readonly appended = new Map<string, number>();

  constructor(private readonly opts: DuckDbSinkOptions) {
    this.retry = { attempts: 6, firstDelayMs: 100, maxDelayMs: 5000, ...opts.retry };
    this.openWriter = opts.openWriter ?? chunkWriters(opts.store);
  }

  /** Opens every writer up front, so the first batch does not pay for it (and a missing table shows at start). */
  async open(): Promise<void> {
    for (const table of APPEND_TABLES) await this.handle(table);
  }

  async write(batch: readonly RowSet[]): Promise<void> {
    try {
      await this.writeBatch(batch);
    } finally {
      for (const [table, n] of this.appended) this.opts.counters.wrote(table, n);
      this.appended.clear();
    }
  }

  private async writeBatch(batch: readonly RowSet[]): Promise<void> {
    const byTable = new Map<TableName, Row[]>();
    const caps = new Map<string, CapabilitiesUpsert & { first: number }>();
    for (const set of batch) {
      for (const row of set.rows) {
        const list = byTable.get(row.table);
        if (list) list.push(row);
        else byTable.set(row.table, [row]);
      }
      // One upsert per serial and batch (DuckDB refuses to update a row twice in one statement).
      const c = set.capabilities;
      if (c) caps.set(c.serial, { ...c, first: caps.get(c.serial)?.first ?? c.at });
    }
    // Tables in parallel: each has its own connection, so their commits overlap on DuckDB's threads.
    await Promise.all([...byTable].map(([table, rows]) => this.withRetry(table, rows.length, () => this.appendRows(table, rows), async () => {
      // Row by row: each its own write, on the same writer (a failed one left nothing behind).
      for (const row of rows) await this.once(table, String(row.values[0]), () => this.appendRows(table, [row]));
    })));
    if (caps.size > 0) {
      const list = [...caps.values()];
      await this.withRetry('capabilities', list.length, () => this.upsertCapabilities(list), async () => {
        for (const c of list) await this.once('capabilities', c.serial, () => this.upsertCapabilities([c]));
      });
    }
    this.opts.counters.batchesWritten++;
    this.opts.counters.lastBatchRows = batch.reduce((n, s) => n + s.rows.length + (s.capabilities ? 1 : 0), 0);
    this.opts.counters.lastWriteAt = this.opts.scheduler.now();
  }

  /** Closes the writers (every batch was written by then). Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [table, h] of this.handles) {
      try {
        h.close();
      } catch (e) {
        this.opts.logger.warn({ table, err: e }, 'closing a DuckDB table writer failed');
      }
    }
    this.handles.clear();
  }

  private async handle(table: TableName): Promise<TableWriter> {
    const found = this.handles.get(table);
    if (found) return found;
    const h = await this.openWriter(table);
    this.handles.set(table, h);
    return h;
  }

  private async takeIds(table: TableName, n: number): Promise<number[]> {
    const seq = TABLES[table].sequence!;
    let block = this.ids.get(table);
    const out: number[] = [];
    while (out.length < n) {
      if (!block || block.next > block.end) {
        const size = Math.max(ID_BLOCK, n - out.length);
        const [r] = await this.opts.store.query<{ lo: number; hi: number; n: number }>(
          `SELECT min(v)::DOUBLE AS lo, max(v)::DOUBLE AS hi, count(*)::DOUBLE AS n FROM (SELECT nextval('${seq}') AS v FROM range(${size}))`,
        );
        // Contiguous unless another connection drew from the sequence meanwhile; then ask again.
        block = r && r.hi - r.lo + 1 === r.n ? { next: r.lo, end: r.hi } : undefined;
        if (!block) continue;
        this.ids.set(table, block);
      }
      out.push(block.next++);
    }
    return out;
  }

  private async appendRows(table: TableName, rows: readonly Row[]): Promise<void> {
    const ids = TABLES[table].sequence ? await this.takeIds(table, rows.length) : undefined;
    // A failed write left its writer fit for the next one, so the writer stays: a fresh chunk
    // writer per failure would register one more table function each time, and DuckDB keeps
    // those until the store closes (a device that keeps sending an unstorable value would grow
    // the catalog without bound).
    await (await this.handle(table)).write(rows, ids);
    this.appended.set(table, (this.appended.get(table) ?? 0) + rows.length);
  }

  private async upsertCapabilities(list: readonly (CapabilitiesUpsert & { first: number })[]): Promise<void> {
    const params: (string | number)[] = [];
    const tuples = list.map((c) => {
      params.push(c.serial, c.capabilities, c.compatible, c.first, c.at);
      const n = params.length;
      return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
    });
    // The upsert keeps FirstUpdate, as upstream (docs/upstream.md#rest-conventions).
    await this.opts.store.run(
      `INSERT INTO capabilities (serial, capabilities, compatible, first_update, last_update) VALUES ${tuples.join(', ')}
       ON CONFLICT (serial) DO UPDATE SET capabilities = excluded.capabilities, compatible = excluded.compatible, last_update = excluded.last_update`,
      params,
    );
    this.appended.set('capabilities', (this.appended.get('capabilities') ?? 0) + list.length);
  }

  /** One row after its batch exhausted the retries: written, or rejected loudly. */
  private async once(table: string, serial: string, attempt: () => Promise<void>): Promise<void> {
    for (;;) {
      try {
        await attempt();
        return;
      } catch (e) {
        this.opts.counters.failures++;
        if (isNoSpaceError(e)) {
          // Not the row's fault: held until the disk has room, as a whole batch is.
          this.opts.counters.diskFull = true;
          await new Promise<void>((resolve) => (this.opts.retryScheduler ?? this.opts.scheduler).schedule(() => resolve(), this.retry.maxDelayMs));
          continue;
        }
        this.opts.counters.rowsRejected++;
        this.opts.counters.lastRejectedAt = this.opts.scheduler.now();
        this.opts.logger.error({ table, serial, err: e }, 'ingest: DuckDB refused a row; it is not stored');
        return;
      }
    }
  }

  /**
   * Runs `attempt` until it succeeds, waiting between tries on the scheduler; after the last
   * try, `isolate` writes the rows one by one so only the unstorable ones are lost.
   */
  private async withRetry(table: string, rows: number, attempt: () => Promise<void>, isolate: () => Promise<void>): Promise<void> {
    const { attempts, firstDelayMs, maxDelayMs } = this.retry;
    const { counters, logger } = this.opts;
    for (let i = 1; ; i++) {
      try {
        await attempt();
        if (counters.diskFull) {
          counters.diskFull = false;
          logger.info({ table, rows }, 'ingest: disk space is back; held rows are being written');
        }
        return;
      } catch (e) {
        counters.failures++;
        if (isNoSpaceError(e)) {
          // The disk is full: the rows are held (this batch, and the backlog behind it) and tried
          // again until space returns, never split and rejected (they are not at fault).
          if (!counters.diskFull) logger.error({ table, rows, err: e }, 'ingest: the disk is full; rows are held and written once space returns');
          counters.diskFull = true;
          counters.retries++;
          await new Promise<void>((resolve) => (this.opts.retryScheduler ?? this.opts.scheduler).schedule(() => resolve(), maxDelayMs));
          i = 0;
          continue;
        }
        if (i >= attempts || isValueError(e)) {
          logger.warn({ table, rows, attempts: i, err: e }, isValueError(e)
            ? 'ingest: a value of the batch cannot be stored; writing its rows one by one'
            : 'ingest: batch keeps failing; writing its rows one by one');
          await isolate();
          return;
        }
        const wait = Math.min(maxDelayMs, firstDelayMs * 2 ** (i - 1));
        logger.warn({ table, rows, attempt: i, retryInMs: wait, err: e }, 'ingest: write failed; retrying');
        counters.retries++;
        await new Promise<void>((resolve) => (this.opts.retryScheduler ?? this.opts.scheduler).schedule(() => resolve(), wait));
      }
    }
  }
}

/**
 * DuckDB's errors about a value itself (a number out of a column's range, a NULL where none may
 * be): the same rows fail the same way however often they are tried, so the batch goes row by row
 * at once instead of waiting through the retries meant for a full disk or a busy file. Not
 * "Invalid Input Error": DuckDB wraps anything thrown while it reads a batch's rows in it.
 * DuckDB's appender (the reference writer) words the same two refusals without the error type.
 */
export function isValueError(e: unknown): boolean {
  return e instanceof Error && VALUE_ERROR.test(e.message);
}

const VALUE_ERROR = /^(Conversion|Constraint|Out of Range) Error:|^Failed to append: .*constraint failed|^Type \S+ with value .* can't be cast/;
