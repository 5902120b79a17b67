/**
 * The raw DuckDB appender baseline shared by the replay and nats-path benchmarks: read back
 * every row a run wrote to the appended tables, then time plain appenders writing the same rows
 * into a fresh data dir (one appender per table, flushed every `batch` rows, on the event loop,
 * as a plain program would).
 */
import { TABLES, type TableName } from '../src/pipelines/tables.js';
import { Store } from '../src/store/duckdb.js';

export type TableRows = { name: TableName; kinds: string[]; rows: unknown[][] };

/** Every row of the appended tables of `store`, in column order. */
export async function readAppendedRows(store: Store): Promise<TableRows[]> {
  const out: TableRows[] = [];
  for (const name of Object.keys(TABLES) as TableName[]) {
    const spec = TABLES[name];
    const cols = spec.columns.map(([c]) => `"${c}"`).join(', ');
    const rows = await store.query(`SELECT ${cols} FROM ${spec.name}`);
    out.push({ name, kinds: spec.columns.map(([, k]) => k), rows: rows.map((r) => spec.columns.map(([c]) => r[c])) });
  }
  return out;
}

/** Appends `tables` with raw appenders into a fresh store in `dataDir`. Returns ms spent appending. */
export async function appendRaw(dataDir: string, tables: TableRows[], batch: number): Promise<number> {
  const store = await Store.open(dataDir);
  try {
    const handles = await Promise.all(tables.map((t) => store.appender(TABLES[t.name].name)));
    const t0 = performance.now();
    tables.forEach((t, i) => {
      const a = handles[i]!.appender;
      t.rows.forEach((row, r) => {
        row.forEach((v, c) => {
          if (v === null || v === undefined) a.appendNull();
          else if (t.kinds[c] === 'text') a.appendVarchar(String(v));
          else if (t.kinds[c] === 'bool') a.appendBoolean(v === true);
          else a.appendDouble(Number(v));
        });
        a.endRow();
        if ((r + 1) % batch === 0) a.flushSync();
      });
      a.flushSync();
    });
    const ms = performance.now() - t0;
    for (const h of handles) h.close();
    return ms;
  } finally {
    await store.close();
  }
}
