import { isUtf8 } from 'node:buffer';
import { endianness } from 'node:os';
import duckdb from '@duckdb/node-bindings';
import { BOOLEAN, DOUBLE, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { Cell, ColumnKind } from './tables.js';

/**
 * Rows into DuckDB data chunks (the ingest sink fills the chunks its INSERT asks for), written straight through DuckDB's C API bindings (node-api's
 * vector classes keep a JS cache per item and a BigInt per validity bit). A chunk is filled
 * column by column:
 * - numbers go into one Float64Array and reach DuckDB in one copy per column; they are DOUBLE and
 *   DuckDB casts them to the table's column types; a value the column cannot hold (an INTEGER
 *   past 2^31) fails the statement or the append;
 * - short ASCII text (a serial, a band) is written inline into the column's string slots and
 *   copied with the column at once; longer text is assigned per value, a string as DuckDB's
 *   bindings encode it, a Uint8Array (UTF-8 the caller kept, e.g. a state document's bytes from a
 *   recording) copied as it is;
 * - nulls clear their bit in the column's validity mask, copied once per column that has any.
 */

/** The type a column of `kind` has in a chunk: numbers (ids too) are DOUBLE, and DuckDB casts them to the table's types. */
export const chunkType = (kind: ColumnKind): DuckDBType => (kind === 'text' ? VARCHAR : kind === 'bool' ? BOOLEAN : DOUBLE);

// The validity mask below is DuckDB's uint64 words written as bytes: bit r of word r/64 is bit
// r%8 of byte r/8 only on a little-endian host (x86-64, arm64).
if (endianness() !== 'LE') throw new Error('row-chunks: validity masks are written for a little-endian host');

const SIZE = duckdb.vector_size();
// Scratch for one column at a time: each is copied into the vector before the next column.
const numbers = new Float64Array(SIZE);
const bools = new Uint8Array(SIZE);
const mask = new Uint8Array(Math.ceil(SIZE / 64) * 8);

function setNull(r: number, hadNull: boolean): void {
  if (!hadNull) mask.fill(0xff);
  mask[r >> 3]! &= ~(1 << (r & 7));
}

type At = (r: number) => Cell | undefined;

/** Calls `set` for each value of a column that is not null, marks the nulls in `mask`; true when there was one. */
function eachValue(n: number, at: At, set: (r: number, v: Cell) => void): boolean {
  let nulls = false;
  for (let r = 0; r < n; r++) {
    const v = at(r);
    if (v === null || v === undefined) {
      setNull(r, nulls);
      nulls = true;
    } else set(r, v);
  }
  return nulls;
}

/**
 * Fixed-width values go into `out` (scratch) and are copied into the vector at once. A null's slot
 * is 0, not what the previous column left there: DuckDB casts the doubles to the column's type.
 */
function fillFixed(vector: duckdb.Vector, n: number, at: At, out: Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer>, put: (v: Cell) => number): boolean {
  out.fill(0, 0, n);
  const nulls = eachValue(n, at, (r, v) => {
    out[r] = put(v);
  });
  duckdb.copy_data_to_vector(vector, 0, out.buffer, 0, n * out.BYTES_PER_ELEMENT);
  return nulls;
}

const toDouble = (v: Cell): number => (typeof v === 'number' ? v : Number(v));
const toBool = (v: Cell): number => (v === true ? 1 : 0);
const fillNumbers = (vector: duckdb.Vector, n: number, at: At): boolean => fillFixed(vector, n, at, numbers, toDouble);
const fillBools = (vector: duckdb.Vector, n: number, at: At): boolean => fillFixed(vector, n, at, bools, toBool);

/**
 * A VARCHAR vector's data is one 16-byte `duckdb_string_t` per row (duckdb.h): a string of up
 * to 12 bytes is stored inline (length, then the bytes, zero-padded), a longer one as its length,
 * a 4-byte prefix and a pointer into the vector's string heap. Short ASCII values (a serial, a
 * band, a radio's phy) are written inline into this scratch and copied with the column at once;
 * only the others are assigned one by one through the C API, which copies them into the heap.
 */
const strings = new Uint8Array(SIZE * 16);
const lengths = new Uint32Array(strings.buffer);
/** Rows of the column being filled whose value goes through the C API, and those values. */
const heapRows = new Int32Array(SIZE);
const heapValues: Cell[] = new Array<Cell>(SIZE).fill(null);

/** Writes `v` inline at row `r` when it is ASCII and at most 12 characters long; false otherwise (nothing written). */
function inlineAscii(r: number, v: string): boolean {
  const n = v.length;
  if (n > 12) return false;
  const at = r * 16 + 4;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c > 0x7f) return false;
    strings[at + i] = c;
  }
  lengths[r * 4] = n;
  return true;
}

/** One value into the vector's string heap. Bytes that are not UTF-8 go in decoded (U+FFFD for what is invalid), as a string would. */
function assignText(vector: duckdb.Vector, r: number, v: Cell): void {
  if (typeof v === 'string') duckdb.vector_assign_string_element(vector, r, v);
  else if (v instanceof Uint8Array && isUtf8(v)) duckdb.vector_assign_string_element_len(vector, r, v);
  else if (v instanceof Uint8Array) duckdb.vector_assign_string_element(vector, r, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8'));
  else duckdb.vector_assign_string_element(vector, r, String(v));
}

/**
 * Text: the inline values and the nulls' empty slots are copied first, then the others are
 * assigned over their slots (DuckDB would mark a row with invalid UTF-8 null on its own, and the
 * column's mask, copied afterwards, would undo that; so such bytes are decoded first).
 */
function fillText(vector: duckdb.Vector, n: number, at: At): boolean {
  strings.fill(0, 0, n * 16);
  let heap = 0;
  const nulls = eachValue(n, at, (r, v) => {
    if (typeof v === 'string' && inlineAscii(r, v)) return;
    heapRows[heap] = r;
    heapValues[heap++] = v;
  });
  try {
    duckdb.copy_data_to_vector(vector, 0, strings.buffer, 0, n * 16);
    for (let i = 0; i < heap; i++) assignText(vector, heapRows[i]!, heapValues[i]!);
  } finally {
    // The scratch must not keep a batch's values (state documents) alive, whatever happened.
    heapValues.fill(null, 0, heap);
  }
  return nulls;
}

const FILL = { text: fillText, bool: fillBools, number: fillNumbers, id: fillNumbers } as const;

/**
 * Fills `chunk` (its columns: the ids when given, then `kinds`) with up to 2,048 rows of `rows`
 * from `from` on, sets its size and returns how many (0 past the end). The ingest sink fills
 * DuckDB's own chunks with it (Store.tableInserter).
 */
export function fillChunk(chunk: duckdb.DataChunk, kinds: readonly ColumnKind[], rows: readonly { values: readonly Cell[] }[], ids: readonly number[] | undefined, from: number): number {
  const first = ids ? 1 : 0;
  const n = Math.max(0, Math.min(SIZE, rows.length - from));
  duckdb.data_chunk_set_size(chunk, n);
  if (n === 0) return 0;
  const column = (c: number, fill: typeof fillText, at: At) => {
    const vector = duckdb.data_chunk_get_vector(chunk, c);
    if (fill(vector, n, at)) {
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, 0, Math.ceil(n / 64) * 8);
    }
  };
  if (ids) column(0, fillNumbers, (r) => ids[from + r]);
  for (let c = 0; c < kinds.length; c++) column(c + first, FILL[kinds[c]!], (r) => rows[from + r]!.values[c]);
  return n;
}
