import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValueError } from '../../src/pipelines/duckdb-sink.js';
import { appenderWriters, chunkWriters, VALUE_KINDS, type TableWriter } from '../../src/pipelines/table-writer.js';
import { APPEND_TABLES, TABLES, type Cell, type Row, type TableName } from '../../src/pipelines/tables.js';
import { Store } from '../../src/store/duckdb.js';

/**
 * The contract of the ingest's two table writers (src/pipelines/table-writer.ts): the same rows
 * written through the reference (DuckDB's appender) and the chunk filler into two real DuckDB
 * files give the same tables, for every appended table of the real schema: nulls, unicode and
 * text given as UTF-8 bytes (valid or not), integers up to BIGINT's range, doubles, nested JSON
 * documents, and writes that span several data chunks. A write holding a value the table
 * refuses fails whole on both, as a value error, and the writer takes the next write.
 */

type Column = { name: string; type: string; nullable: boolean };

const dirs: string[] = [];
let reference: Store;
let fast: Store;
const writers = new Map<TableName, { reference: TableWriter; fast: TableWriter }>();
const columns = new Map<TableName, Column[]>();

beforeAll(async () => {
  const open = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-table-writer-'));
    dirs.push(dir);
    return Store.open(dir, undefined, { checkpointEveryMs: 0 });
  };
  [reference, fast] = [await open(), await open()];
  const [openReference, openFast] = [appenderWriters(reference), chunkWriters(fast)];
  for (const table of APPEND_TABLES) {
    writers.set(table, { reference: await openReference(table), fast: await openFast(table) });
    const rows = await reference.query<{ name: string; type: string; nullable: string }>(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
      [TABLES[table].name],
    );
    columns.set(table, rows.map((r) => ({ name: r.name, type: r.type, nullable: r.nullable === 'YES' })));
  }
});

afterAll(async () => {
  for (const w of writers.values()) {
    w.reference.close();
    w.fast.close();
  }
  await reference?.close();
  await fast?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
const text: fc.Arbitrary<Cell> = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 14 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  json,
  // A state document's bytes as a recording kept them, and bytes that are not all UTF-8.
  json.map((t) => new TextEncoder().encode(t)),
  fc.uint8Array({ maxLength: 30 }),
);
const BIGINT = 2 ** 63;
const number = (type: string): fc.Arbitrary<Cell> => {
  if (type === 'INTEGER') return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
  if (type === 'BIGINT') return fc.oneof(fc.maxSafeInteger(), fc.double({ min: -BIGINT / 2, max: BIGINT / 2, noNaN: true }), fc.integer());
  return fc.oneof(fc.double(), fc.integer());
};
const cell = (kind: string, col: Column): fc.Arbitrary<Cell> => {
  const value = kind === 'text' ? text : kind === 'bool' ? fc.boolean() : number(col.type);
  return col.nullable ? fc.option(value, { nil: null }) : value;
};

/** A row of `table` that the table takes (ids are the writers' own column, not in the row). */
function rowArb(table: TableName): fc.Arbitrary<Row> {
  const cols = columns.get(table)!.slice(TABLES[table].sequence ? 1 : 0);
  return fc.tuple(...VALUE_KINDS[table].map((k, c) => cell(k, cols[c]!))).map((values) => ({ table, values }));
}

/** A value the column cannot hold: a null where none may be, a number past an INTEGER's range. */
function refusedValue(table: TableName): fc.Arbitrary<{ column: number; value: Cell }> {
  const cols = columns.get(table)!.slice(TABLES[table].sequence ? 1 : 0);
  const choices = cols.flatMap((c, i) => [
    ...(c.nullable ? [] : [{ column: i, value: null }]),
    ...(c.type === 'INTEGER' ? [{ column: i, value: 2 ** 40 }] : []),
  ]);
  return fc.constantFrom(...choices);
}

let nextId = 1;
const idsFor = (table: TableName, n: number) => (TABLES[table].sequence ? Array.from({ length: n }, () => nextId++) : undefined);

/** Both writers' outcome of one write: undefined, or the error. */
async function writeBoth(table: TableName, rows: Row[]): Promise<[unknown, unknown]> {
  const w = writers.get(table)!;
  const ids = idsFor(table, rows.length);
  const outcome = (p: Promise<void>) => p.then(() => undefined, (e: unknown) => e ?? new Error('rejected'));
  return [await outcome(w.reference.write(rows, ids)), await outcome(w.fast.write(rows, ids))];
}

const show = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
async function tableText(store: Store, table: TableName): Promise<string> {
  return JSON.stringify(await store.query(`SELECT * FROM ${TABLES[table].name} ORDER BY rowid`), show);
}
async function expectSameTable(table: TableName): Promise<void> {
  expect(await tableText(fast, table)).toBe(await tableText(reference, table));
}
async function empty(table: TableName): Promise<void> {
  for (const s of [reference, fast]) await s.run(`DELETE FROM ${TABLES[table].name}`);
}

const tableArb = fc.constantFrom(...APPEND_TABLES);

describe('the ingest table writers (appender reference, chunk filler)', () => {
  it('store the same rows as the same table', async () => {
    await fc.assert(fc.asyncProperty(
      tableArb.chain((table) => fc.tuple(fc.constant(table), fc.array(rowArb(table), { maxLength: 40 }), fc.constantFrom(0, 0, 0, 2100))),
      async ([table, sample, extra]) => {
        await empty(table);
        // Past 2,048 rows a write spans several data chunks: the sample repeated gets there cheaply.
        const rows = Array.from({ length: sample.length === 0 ? 0 : sample.length + extra }, (_, i) => sample[i % sample.length]!);
        expect(await writeBoth(table, rows)).toEqual([undefined, undefined]);
        await expectSameTable(table);
      },
    ), { numRuns: 60 });
  }, 120_000);

  it('refuse a write holding a value the table cannot hold, whole, and take the next', async () => {
    await fc.assert(fc.asyncProperty(
      tableArb.chain((table) => fc.tuple(
        fc.constant(table), fc.array(rowArb(table), { minLength: 1, maxLength: 12 }), fc.nat(), refusedValue(table), fc.array(rowArb(table), { maxLength: 5 }),
      )),
      async ([table, rows, at, bad, after]) => {
        await empty(table);
        const spoilt = rows.map((r) => ({ ...r, values: [...r.values] }));
        spoilt[at % spoilt.length]!.values[bad.column] = bad.value;
        const [ref, chunked] = await writeBoth(table, spoilt);
        expect(ref).toBeInstanceOf(Error);
        expect(chunked).toBeInstanceOf(Error);
        // The sink splits such a write row by row at once rather than retrying it: both must say so.
        expect([isValueError(ref), isValueError(chunked)]).toEqual([true, true]);
        expect(await writeBoth(table, after)).toEqual([undefined, undefined]);
        await expectSameTable(table);
        expect((await reference.query(`SELECT count(*)::INTEGER AS n FROM ${TABLES[table].name}`))[0]).toEqual({ n: after.length });
      },
    ), { numRuns: 30 });
  }, 120_000);
});
