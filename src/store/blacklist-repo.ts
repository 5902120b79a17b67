import type { Store } from './duckdb.js';
import { alreadyExists, notFound } from '../errors.js';
import type { BlacklistEntry } from './records.js';
import { WriteQueue } from './write-queue.js';

function fromRow(row: Record<string, unknown>): BlacklistEntry {
  return { serialNumber: String(row.serial), reason: String(row.reason), author: String(row.author), created: Number(row.created) };
}

/**
 * The blacklist. The fleet asks `has(serial)` at every AP connect and on every frame
 * (docs/upstream.md#notifications) and the device listing for each record, so the table is
 * mirrored in memory and written through: DuckDB first, then the map, so a failed write
 * leaves both unchanged. Writes run one at a time (WriteQueue), each checking the entry as the
 * write before left it: a create that loses a race is a 409, never a duplicate key.
 */
export class BlacklistRepo {
  private readonly cache = new Map<string, BlacklistEntry>();
  private readonly writes = new WriteQueue();

  private constructor(private readonly store: Store) {}

  static async load(store: Store): Promise<BlacklistRepo> {
    const repo = new BlacklistRepo(store);
    for (const row of await store.query('SELECT serial, reason, author, created FROM blacklist')) {
      const e = fromRow(row);
      repo.cache.set(e.serialNumber, e);
    }
    return repo;
  }

  /** Synchronous, for the hot paths (fleet admission, device listing). `serial` is normalised. */
  has(serial: string): boolean {
    return this.cache.has(serial);
  }

  get(serial: string): BlacklistEntry | undefined {
    return this.cache.get(serial);
  }

  /** Every entry, ordered by serial. */
  all(): BlacklistEntry[] {
    return [...this.cache.values()].sort((a, b) => (a.serialNumber < b.serialNumber ? -1 : a.serialNumber > b.serialNumber ? 1 : 0));
  }

  get size(): number {
    return this.cache.size;
  }

  insert(e: BlacklistEntry): Promise<BlacklistEntry> {
    return this.writes.run(async () => {
      if (this.cache.has(e.serialNumber)) throw alreadyExists('serialNumber', `Serial ${e.serialNumber} is blacklisted already.`);
      await this.store.run('INSERT INTO blacklist (serial, reason, author, created) VALUES ($1, $2, $3, $4)', [e.serialNumber, e.reason, e.author, e.created]);
      this.cache.set(e.serialNumber, { ...e });
      return e;
    });
  }

  /** Changes the reason; `created` and `author` stay those of the listing. */
  updateReason(serial: string, reason: string): Promise<BlacklistEntry> {
    return this.writes.run(async () => {
      const current = this.cache.get(serial);
      if (!current) throw notFound('serialNumber', `Serial ${serial} is not blacklisted.`);
      await this.store.run('UPDATE blacklist SET reason = $2 WHERE serial = $1', [serial, reason]);
      const next = { ...current, reason };
      this.cache.set(serial, next);
      return next;
    });
  }

  delete(serial: string): Promise<void> {
    return this.writes.run(async () => {
      if (!this.cache.has(serial)) throw notFound('serialNumber', `Serial ${serial} is not blacklisted.`);
      await this.store.run('DELETE FROM blacklist WHERE serial = $1', [serial]);
      this.cache.delete(serial);
    });
  }
}
