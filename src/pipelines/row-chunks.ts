import { isUtf8 } from 'node:buffer';
import { endianness } from 'node:os';
import duckdb from '@duckdb/node-bindings';
import { BOOLEAN, DOUBLE, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { Cell, ColumnKind } from './tables.js';

/**
 * Rows into DuckDB data chunks (the ingest sink fills the chunks its INSERT asks for), written straight through DuckDB's C API bindings (node-api's
 * vector classes keep a JS cache per item and a BigInt per validity bit). A chunk is filled
 * column by column, each column in one pass over its rows:
 * - numbers go into one Float64Array and reach DuckDB in one copy per column; they are DOUBLE and
 *   DuckDB casts them to the table's column types; a value the column cannot hold (an INTEGER
 *   past 2^31) fails the statement or the append;
 * - text: each value's `duckdb_string_t` is written here and the column's slots are copied at
 *   once. Up to 12 bytes are stored in the slot itself; the longer values of the column (MAC
 *   addresses, JSON documents, a state document's bytes as a recording kept them) are gathered
 *   as UTF-8 into one buffer that a single C API call copies into the vector's string heap, and
 *   their slots point into that copy (one call per column instead of one per value, each of
 *   which converted, allocated and copied on its own);
 * - nulls clear their bit in the column's validity mask, copied once per column that has any.
 */

/** The type a column of `kind` has in a chunk: numbers (ids too) are DOUBLE, and DuckDB casts them to the table's types. */
export const chunkType = (kind: ColumnKind): DuckDBType => (kind === 'text' ? VARCHAR : kind === 'bool' ? BOOLEAN : DOUBLE);

// The validity mask below is DuckDB's uint64 words written as bytes: bit r of word r/64 is bit
// r%8 of byte r/8 only on a little-endian host (x86-64, arm64). The string slots' lengths and
// pointers are written as little-endian words too.
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

type Rows = readonly { values: readonly Cell[] }[];

/**
 * Fixed-width values of column `c` go into their scratch (`numbers`, `bools`) and are copied into
 * the vector at once. A null's slot is 0, not what the previous column left there: DuckDB casts
 * the doubles to the column's type. True when the column had a null (its bits are cleared in `mask`).
 */
function fillNumbers(vector: duckdb.Vector, n: number, rows: Rows, from: number, c: number): boolean {
  let nulls = false;
  for (let r = 0; r < n; r++) {
    const v = rows[from + r]!.values[c];
    if (typeof v === 'number') numbers[r] = v;
    else if (v === null || v === undefined) {
      numbers[r] = 0;
      setNull(r, nulls);
      nulls = true;
    } else numbers[r] = Number(v);
  }
  duckdb.copy_data_to_vector(vector, 0, numbers.buffer, 0, n * 8);
  return nulls;
}

function fillBools(vector: duckdb.Vector, n: number, rows: Rows, from: number, c: number): boolean {
  let nulls = false;
  for (let r = 0; r < n; r++) {
    const v = rows[from + r]!.values[c];
    if (v === null || v === undefined) {
      bools[r] = 0;
      setNull(r, nulls);
      nulls = true;
    } else bools[r] = v === true ? 1 : 0;
  }
  duckdb.copy_data_to_vector(vector, 0, bools.buffer, 0, n);
  return nulls;
}

/**
 * A VARCHAR vector's data is one 16-byte `duckdb_string_t` per row (duckdb.h): a string of up to
 * 12 bytes is stored inline (its length, then its bytes, zero-padded), a longer one as its length,
 * its first 4 bytes and a pointer to its bytes, which DuckDB reads while the chunk lives.
 */
const INLINE = 12;
const strings = new Uint8Array(SIZE * 16);
const words = new Uint32Array(strings.buffer);

/**
 * The long values of the column being filled, as UTF-8, back to back (grown as needed), and
 * where each one is: its row, offset and length. The bytes are copied into the vector's string
 * heap in parts of at most PART_BYTES (a DuckDB string is at most 4 GiB).
 */
let heap = Buffer.allocUnsafeSlow(1 << 20);
const heapRows = new Int32Array(SIZE);
const heapAt = new Float64Array(SIZE);
const heapLength = new Uint32Array(SIZE);
export const PART_BYTES = 256 * 1024 * 1024;
/** Strings up to this long are copied character by character; longer ones by Buffer's UTF-8 writer. */
const SHORT = 64;
/** A heap scratch grown past this is let go after the column (a chunk of unusually big documents). */
const KEEP_HEAP_BYTES = 64 * 1024 * 1024;

function heapRoom(used: number, more: number): void {
  if (used + more <= heap.length) return;
  const grown = Buffer.allocUnsafeSlow(Math.max(heap.length * 2, used + more));
  heap.copy(grown, 0, 0, used);
  heap = grown;
}

/** Row r's slot holds `length` bytes of `bytes` from `at` (at most 12: inline, zero-padded past them). */
function inlineBytes(r: number, bytes: Uint8Array, at: number, length: number): void {
  const slot = r * 16;
  words[r * 4] = length;
  for (let i = 0; i < length; i++) strings[slot + 4 + i] = bytes[at + i]!;
}

/** Writes `v` inline at row `r` when it is ASCII and at most 12 characters long; false otherwise (nothing written). */
function inlineAscii(r: number, v: string): boolean {
  const n = v.length;
  if (n > INLINE) return false;
  const at = r * 16 + 4;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c > 0x7f) return false;
    strings[at + i] = c;
  }
  words[r * 4] = n;
  return true;
}

/** A text value's UTF-8 written into `heap` at `used`; returns its length. Bytes that are not UTF-8 go in decoded (U+FFFD for what is invalid), as a string would. */
function writeUtf8(v: Cell, used: number): number {
  if (typeof v === 'string') {
    const n = v.length;
    heapRoom(used, n * 3);
    if (n > SHORT) return heap.write(v, used, 'utf8');
    // A short one (a MAC address, an SSID): byte by byte while ASCII, cheaper than a call.
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c > 0x7f) return heap.write(v, used, 'utf8');
      heap[used + i] = c;
    }
    return n;
  }
  if (v instanceof Uint8Array) {
    if (!isUtf8(v)) return writeUtf8(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8'), used);
    heapRoom(used, v.byteLength);
    heap.set(v, used);
    return v.byteLength;
  }
  return writeUtf8(String(v), used);
}

/**
 * Copies heap[0, used) into the vector's string heap through row `heapRows[first]`'s slot (one C
 * API call), then points the slots of long values first..last-1 into that copy. Their slots in
 * `strings` are then copied with the column's other slots, over the one the call wrote.
 */
function placeLongValues(vector: duckdb.Vector, first: number, last: number, used: number): void {
  const row0 = heapRows[first]!;
  duckdb.vector_assign_string_element_len(vector, row0, heap.subarray(0, used));
  // Where DuckDB put the bytes: the pointer of the slot the call wrote (its bytes 8-15).
  const data = duckdb.vector_get_data(vector, (row0 + 1) * 16);
  const slot = new DataView(data.buffer, data.byteOffset + row0 * 16, 16);
  const lo = slot.getUint32(8, true);
  const hi = slot.getUint32(12, true);
  for (let i = first; i < last; i++) {
    const r = heapRows[i]!;
    const at = heapAt[i]!;
    const w = r * 4;
    words[w] = heapLength[i]!;
    // The first 4 bytes (DuckDB compares them before following the pointer).
    strings[r * 16 + 4] = heap[at]!;
    strings[r * 16 + 5] = heap[at + 1]!;
    strings[r * 16 + 6] = heap[at + 2]!;
    strings[r * 16 + 7] = heap[at + 3]!;
    // The 64-bit pointer lo/hi + at, as two 32-bit words with the carry.
    const sum = lo + at;
    words[w + 2] = sum >>> 0;
    words[w + 3] = (hi + Math.floor(sum / 0x1_0000_0000)) >>> 0;
  }
}

/**
 * Text: every slot is written in `strings` (inline values, nulls' empty slots, long values'
 * pointers) and copied at once, after the long values' bytes went into the vector's heap.
 * DuckDB would mark a row with invalid UTF-8 null on its own, and the column's mask, copied
 * afterwards, would undo that: such bytes are decoded first.
 */
function fillText(vector: duckdb.Vector, n: number, rows: Rows, from: number, c: number, partBytes = PART_BYTES): boolean {
  strings.fill(0, 0, n * 16);
  let nulls = false;
  let longs = 0;
  let part = 0;
  let used = 0;
  for (let r = 0; r < n; r++) {
    const v = rows[from + r]!.values[c];
    if (v === null || v === undefined) {
      setNull(r, nulls);
      nulls = true;
      continue;
    }
    if (typeof v === 'string' && inlineAscii(r, v)) continue;
    const length = writeUtf8(v, used);
    if (length <= INLINE) {
      inlineBytes(r, heap, used, length);
      continue;
    }
    if (used > 0 && used + length > partBytes) {
      // This value starts the next part: move its bytes to the front once the part is placed.
      placeLongValues(vector, part, longs, used);
      heap.copyWithin(0, used, used + length);
      part = longs;
      used = 0;
    }
    heapRows[longs] = r;
    heapAt[longs] = used;
    heapLength[longs] = length;
    longs++;
    used += length;
  }
  if (longs > part) placeLongValues(vector, part, longs, used);
  duckdb.copy_data_to_vector(vector, 0, strings.buffer, 0, n * 16);
  if (heap.length > KEEP_HEAP_BYTES) heap = Buffer.allocUnsafeSlow(1 << 20);
  return nulls;
}

const FILL = { text: fillText, bool: fillBools, number: fillNumbers, id: fillNumbers } as const;

/**
 * Fills `chunk` (its columns: the ids when given, then `kinds`) with up to 2,048 rows of `rows`
 * from `from` on, sets its size and returns how many (0 past the end). The ingest sink fills
 * DuckDB's own chunks with it (Store.tableInserter). `partBytes`: see PART_BYTES (tests make it
 * small, so a column's long values span several parts).
 */
export function fillChunk(chunk: duckdb.DataChunk, kinds: readonly ColumnKind[], rows: readonly { values: readonly Cell[] }[], ids: readonly number[] | undefined, from: number, partBytes = PART_BYTES): number {
  const first = ids ? 1 : 0;
  const n = Math.max(0, Math.min(SIZE, rows.length - from));
  duckdb.data_chunk_set_size(chunk, n);
  if (n === 0) return 0;
  const column = (c: number, nulls: boolean) => {
    if (!nulls) return;
    const vector = duckdb.data_chunk_get_vector(chunk, c);
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, 0, Math.ceil(n / 64) * 8);
  };
  if (ids) {
    for (let r = 0; r < n; r++) numbers[r] = ids[from + r]!;
    duckdb.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk, 0), 0, numbers.buffer, 0, n * 8);
  }
  for (let c = 0; c < kinds.length; c++) column(c + first, FILL[kinds[c]!](duckdb.data_chunk_get_vector(chunk, c + first), n, rows, from, c, partBytes));
  return n;
}
