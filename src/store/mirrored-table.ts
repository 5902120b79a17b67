import type { Params, Store } from './duckdb.js';

/** How one record field maps to its column (JSON text for arrays). */
export interface Column<T> {
  field: keyof T & string;
  column: string;
  kind?: 'json' | 'number' | 'boolean' | 'string';
}

/**
 * A small table of records read on every request that touches it, mirrored in memory and
 * written through: DuckDB first, then the map, so a failed write changes neither. The first
 * column is the key. Records come back ordered by `orderBy`.
 */
export class MirroredTable<T extends object> {
  private readonly cache = new Map<string, T>();

  private constructor(
    private readonly store: Store,
    private readonly table: string,
    private readonly columns: readonly Column<T>[],
    private readonly orderBy: (a: T, b: T) => number,
  ) {}

  static async load<T extends object>(store: Store, table: string, columns: readonly Column<T>[], orderBy: (a: T, b: T) => number): Promise<MirroredTable<T>> {
    const t = new MirroredTable(store, table, columns, orderBy);
    for (const row of await store.query(`SELECT ${columns.map((c) => c.column).join(', ')} FROM ${table}`)) {
      const r = t.fromRow(row);
      t.cache.set(t.key(r), r);
    }
    return t;
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  has(key: string): boolean {
    return this.cache.has(key);
  }

  all(): T[] {
    return [...this.cache.values()].sort(this.orderBy);
  }

  async insert(record: T): Promise<T> {
    const names = this.columns.map((c) => c.column);
    await this.store.run(`INSERT INTO ${this.table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`, this.toParams(record));
    this.cache.set(this.key(record), record);
    return record;
  }

  /** Replaces the record with the same key (the caller merged the change). */
  async update(record: T): Promise<T> {
    const sets = this.columns.slice(1).map((c, i) => `${c.column} = $${i + 2}`).join(', ');
    await this.store.run(`UPDATE ${this.table} SET ${sets} WHERE ${this.columns[0]!.column} = $1`, this.toParams(record));
    this.cache.set(this.key(record), record);
    return record;
  }

  /** Whether there was a record to delete. */
  async delete(key: string): Promise<boolean> {
    if (!this.cache.has(key)) return false;
    await this.store.run(`DELETE FROM ${this.table} WHERE ${this.columns[0]!.column} = $1`, [key]);
    this.cache.delete(key);
    return true;
  }

  private key(record: T): string {
    return String(record[this.columns[0]!.field]);
  }

  private toParams(record: T): Params {
    return this.columns.map((c) => {
      const v = record[c.field] as unknown;
      return (c.kind === 'json' ? JSON.stringify(v) : v) as Params[number];
    });
  }

  private fromRow(row: Record<string, unknown>): T {
    const r: Record<string, unknown> = {};
    for (const c of this.columns) {
      const v = row[c.column];
      r[c.field] = c.kind === 'json' ? JSON.parse(String(v)) : c.kind === 'number' ? Number(v) : c.kind === 'boolean' ? Boolean(v) : String(v);
    }
    return r as T;
  }
}

/** Orders records by a text key. */
export const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
