import type { DuckDBAppender, DuckDBDataChunk } from '@duckdb/node-api';
import type { Store } from '../store/duckdb.js';
import { chunkType, fillChunk } from './row-chunks.js';
import { APPEND_TABLES, TABLES, type Cell, type ColumnKind, type Row, type TableName } from './tables.js';

/**
 * Where the ingest sink's rows for one table go. Two implementations, held to the same tables by
 * test/property/table-writer.prop.test.ts:
 * - `appenderWriters`: DuckDB's own appender, value by value. The reference: what the rows mean
 *   in the table is what this one stores.
 * - `chunkWriters`: one INSERT per write whose data chunks are filled by hand (row-chunks.ts) and
 *   committed on a pool thread. The default, for the reason and as long as docs/performance.md
 *   ("Hacks kept for speed") says.
 */
export interface TableWriter {
  /**
   * Stores `rows` (with `ids`, the table's id column first, one per row) as one transaction: all
   * of them, or none when it rejects. The writer stays usable after a rejection.
   */
  write(rows: readonly Row[], ids: readonly number[] | undefined): Promise<void>;
  /** Lets go of the writer's connection (after a write in flight, if any). */
  close(): void;
}

export type OpenTableWriter = (table: TableName) => Promise<TableWriter>;

/** The kinds of each table's values in column order, without the id (the sink draws it from the sequence). */
export const VALUE_KINDS = Object.fromEntries(APPEND_TABLES.map((t) => [t, TABLES[t].columns.map((c) => c[1]).filter((k) => k !== 'id')])) as Record<TableName, ColumnKind[]>;

const utf8 = new TextDecoder();

function appendCell(a: DuckDBAppender, kind: ColumnKind, v: Cell): void {
  if (v === null || v === undefined) a.appendNull();
  else if (kind === 'text') a.appendVarchar(v instanceof Uint8Array ? utf8.decode(v) : String(v));
  else if (kind === 'bool') a.appendBoolean(v === true);
  else a.appendDouble(Number(v));
}

/**
 * The reference writer: one appender per table on its own connection; a write appends every
 * value and flushes once. DuckDB flushes an appender in one transaction, and on its own only past
 * ~200,000 buffered rows; the sink's writes stay far below that (COALESCE_ROWS in ingest.ts), so
 * a write lands whole or not at all. A failed append leaves a partial row and a failed flush
 * invalidates the appender (DuckDB's C API), so after any failure the appender is dropped with
 * what it held and the next write opens a fresh one. Flushes run on the event loop.
 */
export function appenderWriters(store: Store): OpenTableWriter {
  return async (table) => {
    const name = TABLES[table].name;
    const kinds = VALUE_KINDS[table];
    let open: Awaited<ReturnType<Store['appender']>> | undefined = await store.appender(name);
    /** Lets go of the appender and what it holds; `failed`: after a failure, when closing it may throw too. */
    const drop = (failed: boolean): void => {
      const h = open;
      open = undefined;
      if (!h) return;
      // An invalidated appender refuses to clear or close; its connection is closed all the same (Store.appender).
      if (failed) {
        try {
          h.appender.clear();
        } catch {
          // Nothing held, or nothing to be done about it: closing lets go of it.
        }
      }
      try {
        h.close();
      } catch (e) {
        if (!failed) throw e;
      }
    };
    return {
      async write(rows, ids) {
        const h = (open ??= await store.appender(name));
        const a = h.appender;
        try {
          for (let r = 0; r < rows.length; r++) {
            if (ids) a.appendDouble(ids[r]!);
            const values = rows[r]!.values;
            for (let c = 0; c < kinds.length; c++) appendCell(a, kinds[c]!, values[c]!);
            a.endRow();
          }
          a.flushSync();
        } catch (e) {
          drop(true);
          throw e;
        }
      },
      close: () => drop(false),
    };
  };
}

/** Store.tableInserter's shape (a test may wrap one to inject failures inside the statement). */
export interface InserterHandle {
  insert(fill: (chunk: DuckDBDataChunk) => number): Promise<void>;
  close(): void;
}

/** The chunk writer over `inserter`: each write is one INSERT whose chunks fillChunk fills from the rows as they are. */
export function chunkWriter(table: TableName, inserter: InserterHandle): TableWriter {
  const kinds = VALUE_KINDS[table];
  return {
    write(rows, ids) {
      let from = 0;
      return inserter.insert((chunk) => {
        const n = fillChunk(chunk.chunk, kinds, rows, ids, from);
        from += n;
        return n;
      });
    },
    close: () => inserter.close(),
  };
}

/**
 * The fast writer: one Store.tableInserter per table (a dedicated connection, opened once: each
 * registers a table function that DuckDB keeps until the store closes). The event loop only fills
 * the chunks the INSERT asks for; the copies, the commit and its WAL write run on a pool thread.
 */
export function chunkWriters(store: Store): OpenTableWriter {
  return async (table) => chunkWriter(table, await store.tableInserter(TABLES[table].name, TABLES[table].columns.map(([name, kind]) => [name, chunkType(kind)] as const)));
}
