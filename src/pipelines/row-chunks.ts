import { BOOLEAN, DOUBLE, DuckDBDataChunk, DuckDBVector, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { Cell, ColumnKind } from './tables.js';

/**
 * Rows as DuckDB data chunks, for `appender.appendDataChunk`. A chunk is filled column by column:
 * numbers go into the vector's Float64Array and reach DuckDB in one copy per column, where
 * appending value by value costs a native call per value (~10-15 % of the append time of an hour
 * of `hall`). Numbers are DOUBLE and DuckDB casts them to the table's column types, as it does
 * for the appender's appendDouble; a value the column cannot hold (an INTEGER past 2^31) makes
 * the append throw, as it did there.
 */

const typeOf = (kind: ColumnKind): DuckDBType => (kind === 'text' ? VARCHAR : kind === 'bool' ? BOOLEAN : DOUBLE);

function cell(kind: ColumnKind, v: Cell | undefined): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (kind === 'text') return typeof v === 'string' ? v : String(v);
  if (kind === 'bool') return v === true;
  return typeof v === 'number' ? v : Number(v);
}

/**
 * The chunks of `rows` (each `values` in the order of `kinds`), at most DuckDB's vector size
 * (2,048) rows each. `ids`, when given, is a first column of its own (the table's id).
 */
export function* rowChunks(kinds: readonly ColumnKind[], rows: readonly { values: readonly Cell[] }[], ids?: readonly number[]): Generator<DuckDBDataChunk> {
  const size = DuckDBVector.standardSize();
  const types = [...(ids ? [DOUBLE] : []), ...kinds.map(typeOf)];
  const first = ids ? 1 : 0;
  for (let from = 0; from < rows.length; from += size) {
    const n = Math.min(size, rows.length - from);
    const chunk = DuckDBDataChunk.create(types, n);
    if (ids) {
      const v = chunk.getColumnVector(0);
      for (let r = 0; r < n; r++) v.setItem(r, ids[from + r]!);
      v.flush();
    }
    for (let c = 0; c < kinds.length; c++) {
      const kind = kinds[c]!;
      const v = chunk.getColumnVector(c + first);
      for (let r = 0; r < n; r++) v.setItem(r, cell(kind, rows[from + r]!.values[c]));
      v.flush();
    }
    yield chunk;
  }
}
