import { accessSync, constants, existsSync, mkdirSync, statSync, statfsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DuckDBInstance, DuckDBTableFunction, type DuckDBConnection, type DuckDBDataChunk, type DuckDBType, type DuckDBValue, type DuckDBAppender } from '@duckdb/node-api';
import { storeFailure } from '../errors.js';
import { every, wallClock, type Clock } from '../protocol/clock.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export type Row = Record<string, unknown>;
export type Params = DuckDBValue[];

/** Store.tableInserter: one statement per `insert`, its rows filled chunk by chunk on the event loop. */
export interface TableInserter {
  /** Inserts the rows `fill` writes (it is called until it returns 0); all of them, or none on a failure. */
  insert(fill: (chunk: DuckDBDataChunk) => number): Promise<void>;
  /** Closes the connection (after the insert in flight, if any: the statement needs the event loop). */
  close(): void;
}

/** DuckDB's buffer-pool limit (its own default is 80 % of RAM). */
export const DUCKDB_MEMORY_LIMIT = '512MB';

/**
 * WAL size that triggers an automatic checkpoint (DuckDB's default: 16 MB). What a start after a
 * crash (kill -9) re-applies before serve answers grows with the WAL's bytes (about 10 ms per MB)
 * and with its transactions (below, CHECKPOINT_EVERY_MS). Each checkpoint rewrites what was
 * appended since the last one; at 16 MB, ingest spent ~20 % more CPU than at 128 MB.
 */
export const DUCKDB_CHECKPOINT_THRESHOLD = '32MB';

/**
 * How often (wall time) the store checkpoints a WAL that is not empty. A start after a crash
 * re-applies the WAL transaction by transaction, ~0.3-0.5 ms each on the machines we measured,
 * more under load: a service writing a few batches and API writes a second piles up thousands
 * an hour in a WAL that stays well under the size threshold, and its start took seconds more for
 * each. A checkpoint of a few seconds' writes costs tens of ms on a pool thread (the ingest
 * tables carry no ART index, migration 5, which made it cost more as the tables grew).
 */
export const CHECKPOINT_EVERY_MS = 10_000;

/**
 * Free bytes a checkpoint needs beyond twice the WAL it folds into the file. A checkpoint that
 * runs out of space invalidates the database in DuckDB (every later statement fails until the
 * process restarts), while a commit that cannot write its WAL only fails itself. So with less
 * free space than this the store puts checkpoints off (its own and DuckDB's automatic ones)
 * until there is room again; the WAL keeps everything meanwhile.
 */
export const CHECKPOINT_SPARE_BYTES = 16 * 1024 * 1024;

/** How often (wall ms) the store looks at the free space of its disk. */
export const SPACE_CHECK_MS = 1000;

/**
 * DuckDB's threads, the calling one included (its default: one per core). Every statement of
 * ours already runs on a libuv pool thread (node-api's async calls), one per connection at a
 * time, and an ingest commit is one thread's work anyway. With a worker thread of DuckDB's own,
 * the pool thread that submitted a commit mostly polls for its result, and on 2 cores that
 * polling competes with the event loop. A replay of `hall` uses less CPU with one thread, and
 * the ingest, gateway-api and rrm benches do not move. Queries on different
 * connections still run side by side, each on its own pool thread; one query does not spread
 * over the cores, which our queries (a device's rows, a venue's latest states) never needed.
 */
export const DUCKDB_THREADS = '1';

/** BIGINT and HUGEINT arrive as bigint; the API speaks JSON numbers (epoch seconds fit easily). */
function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/**
 * `mkdir -p` one folder at a time. Node's `mkdirSync(dir, { recursive: true })` never returns
 * where a folder cannot be made under an existing one with ENOENT (`--data-dir /proc/x`: it
 * made the parent, which exists, and tried again, at 100 % CPU).
 */
function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** The DuckDB file of a data dir (its write-ahead log is this + `.wal`). */
export function storeFile(dataDir: string): string {
  return join(dataDir, 'airtwin.duckdb');
}

/**
 * One DuckDB file per process: `<dataDir>/airtwin.duckdb`. Statements on the main connection
 * run one at a time through a promise chain (DuckDB serialises a connection anyway, and the
 * chain keeps a transaction's statements together); appenders get their own connection so
 * batched ingest never waits behind an API query.
 */
export interface StoreOptions {
  /** Checkpoint a WAL that is not empty this often, in wall ms (default CHECKPOINT_EVERY_MS; 0: never). */
  checkpointEveryMs?: number;
  /**
   * Time of the checkpoint and free-space timers (default wallClock). Wall time in a process, even
   * one on a virtual or scaled clock: what a crash leaves in the WAL grows with wall time.
   */
  clock?: Clock;
}

export class Store {
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  private inserters = 0;
  /** Inserts in flight (tableInserter): close() waits for them. */
  private readonly inserting = new Set<Promise<void>>();
  /** The periodic checkpoint: its timer, its connection and the checkpoint in flight. */
  private checkpoints?: { stop: () => void; conn: DuckDBConnection; running?: Promise<void> };
  /** Too little free space for a checkpoint (CHECKPOINT_SPARE_BYTES): checkpoints are put off. */
  private low = false;

  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    private readonly clock: Clock,
  ) {}

  /** Opens (creating if needed) the file and applies pending migrations. */
  static async open(dataDir: string, migrations: readonly Migration[] = MIGRATIONS, opts: StoreOptions = {}): Promise<Store> {
    makeFolder(dataDir);
    accessSync(dataDir, constants.W_OK);
    const path = storeFile(dataDir);
    // DuckDB's buffer pool defaults to 80 % of RAM and keeps what ingest writes cached: with
    // 50,000 simulated APs it grew past 600 MiB in four minutes (bench fleet). Mostly a cache:
    // past the limit DuckDB evicts to the file and spills large queries to disk.
    const instance = await DuckDBInstance.create(path, {
      memory_limit: DUCKDB_MEMORY_LIMIT, checkpoint_threshold: DUCKDB_CHECKPOINT_THRESHOLD, threads: DUCKDB_THREADS,
    });
    const conn = await instance.connect();
    const store = new Store(path, instance, conn, opts.clock ?? wallClock);
    await store.migrate(migrations);
    await store.checkpointEvery(opts.checkpointEveryMs ?? CHECKPOINT_EVERY_MS);
    return store;
  }

  /**
   * Checkpoints a WAL that holds anything: at once (what a crash left, which opening re-applied
   * but DuckDB keeps, so that a crash loop does not re-apply it again and again) and then every
   * `everyMs` on the store's clock, on a connection of its own (a pool thread; API statements and
   * inserts go on meanwhile). One at a time; a failed one leaves the WAL as it was, for the next
   * tick or close() to try again.
   */
  private async checkpointEvery(everyMs: number): Promise<void> {
    if (!(everyMs > 0)) return;
    const conn = await this.instance.connect();
    const wal = `${this.path}.wal`;
    const tick = () => {
      const c = this.checkpoints;
      if (!c || c.running || this.closed || !existsSync(wal) || statSync(wal).size === 0 || !this.roomForCheckpoint()) return;
      c.running = conn.run('CHECKPOINT').then(() => undefined, () => undefined).finally(() => {
        c.running = undefined;
      });
    };
    const stopTicks = every(this.clock, everyMs, tick);
    // DuckDB's own checkpoints (at the WAL threshold, at shutdown) are turned off while space is low.
    const stopSpace = every(this.clock, SPACE_CHECK_MS, () => {
      const c = this.checkpoints;
      if (!c || this.closed) return;
      const low = !this.roomForCheckpoint(Number.parseInt(DUCKDB_CHECKPOINT_THRESHOLD, 10) * 1024 * 1024);
      if (low === this.low) return;
      this.low = low;
      const sql = low
        ? "SET GLOBAL checkpoint_threshold = '1000TB'; PRAGMA disable_checkpoint_on_shutdown"
        : `SET GLOBAL checkpoint_threshold = '${DUCKDB_CHECKPOINT_THRESHOLD}'; PRAGMA enable_checkpoint_on_shutdown`;
      void conn.run(sql).catch(() => undefined);
    });
    this.checkpoints = { stop: () => { stopTicks(); stopSpace(); }, conn };
    tick();
  }

  /** True when there is no room for a checkpoint now (the disk holding the file is (nearly) full). */
  get spaceLow(): boolean {
    return this.low || !this.roomForCheckpoint();
  }

  /** Room on the file's disk for a checkpoint of the WAL, or of `walBytes` when given (DuckDB's automatic one). */
  private roomForCheckpoint(walBytes?: number): boolean {
    const wal = `${this.path}.wal`;
    let free: number;
    try {
      const st = statfsSync(dirname(this.path));
      free = st.bavail * st.bsize;
    } catch {
      return true;
    }
    const pending = walBytes ?? (existsSync(wal) ? statSync(wal).size : 0);
    return free >= pending * 2 + CHECKPOINT_SPARE_BYTES;
  }

  /**
   * Work that arrives once `close()` has begun (a timer or request still running during
   * shutdown) is refused: the close does not wait for it, and DuckDB's native handles may be gone
   * by the time it would run (touching them crashes the process). Work queued before still runs.
   */
  private refuseClosed(what: string): void {
    if (this.closed) throw storeFailure(what, new Error('the store is closed'));
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    try {
      this.refuseClosed('statement');
    } catch (e) {
      return Promise.reject(e);
    }
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Rows as plain objects (bigints turned into numbers). */
  query<T extends Row = Row>(sql: string, params: Params = []): Promise<T[]> {
    return this.enqueue(async () => {
      try {
        const reader = await this.conn.runAndReadAll(sql, params);
        return reader.getRowObjectsJS().map((r) => {
          const out: Row = {};
          for (const [k, v] of Object.entries(r)) out[k] = toPlain(v);
          return out as T;
        });
      } catch (e) {
        throw storeFailure(sql.trim().split(/\s+/, 3).join(' '), e);
      }
    });
  }

  /** A statement; resolves with the number of rows it changed. */
  run(sql: string, params: Params = []): Promise<number> {
    return this.enqueue(async () => {
      try {
        const result = await this.conn.run(sql, params);
        return Number(result.rowsChanged);
      } catch (e) {
        throw storeFailure(sql.trim().split(/\s+/, 3).join(' '), e);
      }
    });
  }

  /** Several statements in one transaction; rolled back as a whole if one fails. */
  transaction<T>(work: (tx: { run: (sql: string, params?: Params) => Promise<number> }) => Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      await this.conn.run('BEGIN TRANSACTION');
      try {
        const out = await work({
          run: async (sql, params = []) => Number((await this.conn.run(sql, params)).rowsChanged),
        });
        await this.conn.run('COMMIT');
        return out;
      } catch (e) {
        await this.conn.run('ROLLBACK').catch(() => undefined);
        throw e instanceof Error && 'status' in e ? e : storeFailure('transaction', e);
      }
    });
  }

  /** A dedicated connection + appender for batched ingest (src/pipelines). Close it before the store. */
  async appender(table: string): Promise<{ appender: DuckDBAppender; close: () => void }> {
    this.refuseClosed('appender');
    const conn = await this.instance.connect();
    const appender = await conn.createAppender(table);
    return {
      appender,
      close: () => {
        try {
          appender.closeSync();
        } finally {
          conn.closeSync();
        }
      },
    };
  }

  /**
   * A dedicated connection that inserts rows into `table` from a source filled on the event loop:
   * `insert(fill)` runs `INSERT INTO table (columns) SELECT * FROM <a table function>` on a pool
   * thread, and DuckDB asks the table function for one data chunk after another; node's bindings
   * run each of those calls on the event loop at its next turn, where `fill(chunk)` writes up to
   * 2,048 rows into DuckDB's output chunk and returns how many (0 ends the rows). Everything
   * after the fill (the copies into the transaction's storage, the commit with its WAL write,
   * any checkpoint) runs on the pool thread, not on the event loop as an appender's flush does.
   * One statement: all the rows land, or none do (a fill that throws, a value the column cannot
   * hold and a failed commit each fail it, and DuckDB rolls it back). One insert at a time per
   * inserter. While an insert runs, nothing on the event loop may wait synchronously on its
   * connection (a `closeSync`): the statement waits for the event loop to fill its chunks, so
   * `close()` here and the store's `close()` wait for the insert in flight.
   */
  // Each inserter registers a table function, and DuckDB keeps it until the instance closes: open
  // inserters once and keep them (a failed statement leaves the connection fit for the next).
  async tableInserter(table: string, columns: readonly (readonly [name: string, type: DuckDBType])[]): Promise<TableInserter> {
    this.refuseClosed('inserter');
    const conn = await this.instance.connect();
    // One name per inserter: a store has one per appended table and per ingest that opens them.
    const fn = `airtwin_rows_${++this.inserters}`;
    let fill: ((chunk: DuckDBDataChunk) => number) | undefined;
    try {
      conn.registerTableFunction(DuckDBTableFunction.create({
        name: fn,
        bindFunction: (info) => {
          for (const [name, type] of columns) info.addResultColumn(name, type);
        },
        initFunction: () => undefined,
        // The chunk's size is what DuckDB reads: set it from what the fill says it wrote.
        mainFunction: (_info, out) => {
          out.rowCount = fill ? fill(out) : 0;
        },
      }));
    } catch (e) {
      conn.closeSync();
      throw e;
    }
    const sql = `INSERT INTO ${table} (${columns.map(([name]) => `"${name}"`).join(', ')}) SELECT * FROM ${fn}()`;
    let closed = false;
    let running: Promise<void> | undefined;
    return {
      insert: async (source) => {
        this.refuseClosed('inserter');
        if (closed) throw new Error(`tableInserter(${table}): insert after close`);
        if (running) throw new Error(`tableInserter(${table}): one insert at a time`);
        fill = source;
        const statement = conn.run(sql).then(() => undefined);
        running = statement.catch(() => undefined);
        this.inserting.add(running);
        try {
          await statement;
        } finally {
          this.inserting.delete(running);
          running = undefined;
          fill = undefined;
        }
      },
      close: () => {
        if (closed) return;
        closed = true;
        // A statement in flight needs the event loop to finish: close its connection after it.
        if (running) {
          void running.then(() => conn.closeSync()).catch(() => {
            // Nothing to do but let go of it: a throw here would be an unhandled rejection.
          });
        } else conn.closeSync();
      },
    };
  }

  private async migrate(migrations: readonly Migration[]): Promise<void> {
    await this.run(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at BIGINT NOT NULL)`);
    const applied = new Set((await this.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await this.transaction(async (tx) => {
        for (const stmt of m.statements) await tx.run(stmt);
        await tx.run('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [m.version, m.name, Math.floor(this.clock.now() / 1000)]);
      });
    }
  }

  /** Waits for queued statements, checkpoints and closes the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const c = this.checkpoints;
    if (c) {
      c.stop();
      await c.running;
      c.conn.closeSync();
    }
    await this.chain;
    await Promise.allSettled([...this.inserting]);
    try {
      // Without room the WAL stays as it is, and the next start re-applies it.
      if (this.roomForCheckpoint()) await this.conn.run('CHECKPOINT');
      else await this.conn.run('PRAGMA disable_checkpoint_on_shutdown').catch(() => undefined);
    } finally {
      this.conn.closeSync();
      this.instance.closeSync();
    }
  }
}
