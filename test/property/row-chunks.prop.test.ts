import duckdb from '@duckdb/node-bindings';
import { DOUBLE, DuckDBDataChunk, DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkType, fillChunk } from '../../src/pipelines/row-chunks.js';
import type { Cell, ColumnKind } from '../../src/pipelines/tables.js';

/**
 * Rows appended as data chunks filled by fillChunk (src/pipelines/row-chunks.ts) land exactly as the same rows
 * appended value by value (appendDouble / appendVarchar / appendBoolean / appendNull, what the
 * sink did before): same values, same order, same nulls, over several chunks, with DuckDB
 * casting the doubles to BIGINT and INTEGER columns, and text given as UTF-8 bytes stored as the
 * string it encodes.
 */

/** Chunks of `rows` made with fillChunk, for an appender (`ids`, when given, is a first column of its own). */
function* rowChunks(kinds: readonly ColumnKind[], rows: readonly { values: readonly Cell[] }[], ids?: readonly number[], partBytes?: number): Generator<DuckDBDataChunk> {
  const types = [...(ids ? [DOUBLE] : []), ...kinds.map(chunkType)].map((t) => t.toLogicalType().logical_type);
  for (let from = 0; from < rows.length; from += duckdb.vector_size()) {
    const chunk = duckdb.create_data_chunk(types);
    fillChunk(chunk, kinds, rows, ids, from, partBytes);
    yield new DuckDBDataChunk(chunk);
  }
}

const KINDS: ColumnKind[] = ['number', 'number', 'number', 'text', 'bool'];
const COLUMNS = 'id BIGINT, d DOUBLE, b BIGINT, i INTEGER, s VARCHAR, f BOOLEAN';

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

function appendByValue(a: DuckDBAppender, rows: { values: Cell[] }[], ids: number[]): void {
  rows.forEach((row, r) => {
    a.appendDouble(ids[r]!);
    row.values.forEach((v, c) => {
      if (v === null) a.appendNull();
      else if (KINDS[c] === 'text') a.appendVarchar(v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v));
      else if (KINDS[c] === 'bool') a.appendBoolean(v === true);
      else a.appendDouble(Number(v));
    });
    a.endRow();
  });
}

const rowArb = fc.tuple(
  fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  fc.option(fc.maxSafeInteger(), { nil: null }),
  fc.option(fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), { nil: null }),
  // Text as a string, as its UTF-8 bytes (a state document kept from a recording), or as bytes
  // that are not all UTF-8 (stored decoded, as the value-by-value append of the decoded text);
  // short and past DuckDB's 12-byte inline strings, ASCII and not.
  fc.option(fc.oneof(
    // ASCII up to and just past 12 characters: written inline into the vector (fillText).
    fc.string({ unit: 'grapheme-ascii', maxLength: 14 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }).map((t) => new TextEncoder().encode(t)),
    fc.uint8Array({ maxLength: 30 }),
  ), { nil: null }),
  fc.option(fc.boolean(), { nil: null }),
).map((values) => ({ values: values as Cell[] }));

let run = 0;
const read = async (table: string) => JSON.stringify((await conn.runAndReadAll(`SELECT * FROM ${table} ORDER BY id`)).getRowsJS(),
  (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

describe('rowChunks', () => {
  it('appends the same rows as appending value by value, chunk after chunk', async () => {
    await fc.assert(fc.asyncProperty(
      // The long values' bytes go into the vector's heap in parts of at most partBytes: small
      // parts here, so a column's values span several of them (and one value may exceed one).
      fc.array(rowArb, { maxLength: 60 }), fc.integer({ min: 0, max: 4500 }), fc.boolean(), fc.constantFrom(undefined, 13, 40, 300),
      async (sample, extra, withIds, partBytes) => {
        // Past 2,048 rows the rows span several chunks: repeat the sample to get there cheaply.
        const rows = Array.from({ length: sample.length === 0 ? 0 : sample.length + extra }, (_, i) => sample[i % sample.length]!);
        const ids = rows.map((_, i) => i + 1);
        const [a, b] = [`a${run}`, `b${run}`];
        run++;
        await conn.run(`CREATE TABLE ${a} (${COLUMNS}); CREATE TABLE ${b} (${COLUMNS})`);
        const byValue = await conn.createAppender(a);
        appendByValue(byValue, rows, ids);
        byValue.closeSync();
        const byChunk = await conn.createAppender(b);
        // Without ids the chunk's first column is the table's first column: prepend them as a value.
        const chunks = withIds ? rowChunks(KINDS, rows, ids, partBytes) : rowChunks(['number', ...KINDS], rows.map((r, i) => ({ values: [ids[i]!, ...r.values] })), undefined, partBytes);
        let n = 0;
        for (const chunk of chunks) {
          expect(chunk.rowCount).toBeLessThanOrEqual(2048);
          n += chunk.rowCount;
          byChunk.appendDataChunk(chunk);
        }
        byChunk.closeSync();
        expect(n).toBe(rows.length);
        expect(await read(b)).toBe(await read(a));
        await conn.run(`DROP TABLE ${a}; DROP TABLE ${b}`);
      },
    ), { numRuns: 40 });
  });

  it('writes short ASCII text inline, zero-padded past its length, whatever the previous chunk left there', () => {
    const chunk = duckdb.create_data_chunk([chunkType('text')].map((t) => t.toLogicalType().logical_type));
    const slots = () => Buffer.from(duckdb.vector_get_data(duckdb.data_chunk_get_vector(chunk, 0), 4 * 16));
    fillChunk(chunk, ['text'], [{ values: ['abcdefghijkl'] }, { values: ['a0b1c2000001'] }, { values: ['x'] }, { values: ['2G'] }], undefined, 0);
    fillChunk(chunk, ['text'], [{ values: ['ab'] }, { values: [''] }, { values: [null] }, { values: ['5G'] }], undefined, 0);
    // duckdb_string_t inline: uint32 length, then up to 12 bytes, the rest zero (DuckDB compares all 16).
    const inline = (text: string) => Buffer.concat([Buffer.from([text.length, 0, 0, 0]), Buffer.from(text), Buffer.alloc(12 - text.length)]);
    const data = slots();
    expect(data.subarray(0, 16)).toEqual(inline('ab'));
    expect(data.subarray(16, 32)).toEqual(inline(''));
    expect(data.subarray(32, 48)).toEqual(Buffer.alloc(16)); // a null's slot
    expect(data.subarray(48, 64)).toEqual(inline('5G'));
  });

  it('refuses a value the column cannot hold, as the value-by-value append did', async () => {
    await conn.run('CREATE TABLE narrow (i INTEGER)');
    const app = await conn.createAppender('narrow');
    expect(() => {
      for (const chunk of rowChunks(['number'], [{ values: [2 ** 40] }])) app.appendDataChunk(chunk);
      app.flushSync();
    }).toThrow();
  });
});
