import type { Store } from './duckdb.js';
import { alreadyExists, notFound } from '../errors.js';
import type { Device } from './records.js';
import { WriteQueue } from './write-queue.js';

export type StoredDevice = Omit<Device, 'blackListed'>;

const COLUMNS: [keyof StoredDevice, string][] = [
  ['serialNumber', 'serial'], ['deviceType', 'device_type'], ['macAddress', 'mac_address'],
  ['manufacturer', 'manufacturer'], ['UUID', 'uuid'], ['configuration', 'configuration'], ['notes', 'notes'],
  ['createdTimestamp', 'created'], ['lastConfigurationChange', 'last_configuration_change'],
  ['lastConfigurationDownload', 'last_configuration_download'], ['firmware', 'firmware'],
  ['devicePassword', 'device_password'], ['owner', 'owner'], ['location', 'location'], ['venue', 'venue'],
  ['subscriber', 'subscriber'], ['entity', 'entity'], ['modified', 'modified'], ['locale', 'locale'],
  ['compatible', 'compatible'], ['lastFWUpdate', 'last_fw_update'], ['lastRecordedContact', 'last_recorded_contact'],
  ['simulated', 'simulated'], ['connectReason', 'connect_reason'],
];

function toParams(d: StoredDevice): (string | number | boolean)[] {
  return COLUMNS.map(([field]) => (field === 'notes' ? JSON.stringify(d.notes) : d[field]) as string | number | boolean);
}

function fromRow(row: Record<string, unknown>): StoredDevice {
  const d: Record<string, unknown> = {};
  for (const [field, column] of COLUMNS) d[field] = field === 'notes' ? JSON.parse(String(row[column])) : row[column];
  return d as StoredDevice;
}

/**
 * Device records. Devices are few (thousands, not millions) and read on every API call and
 * every AP frame, so the table is mirrored in memory and written through: DuckDB first, then
 * the map, so a failed write leaves both unchanged. Writes run one at a time (WriteQueue), each
 * checking and changing the record as the write before left it, so concurrent writes of one
 * record neither lose an update nor leave memory and DuckDB apart.
 */
export class DevicesRepo {
  private readonly cache = new Map<string, StoredDevice>();
  private readonly writes = new WriteQueue();
  /**
   * The records sorted by serial, rebuilt lazily after an insert or delete. GET /devices sorts
   * every request (by serial unless orderBy says otherwise); presorted input sorts in linear time,
   * while re-sorting 10,000 devices enrolled in random order took ~8 ms per request (bench/gateway-api).
   */
  private sorted: StoredDevice[] | undefined;

  private constructor(private readonly store: Store) {}

  static async load(store: Store): Promise<DevicesRepo> {
    const repo = new DevicesRepo(store);
    for (const row of await store.query('SELECT * FROM devices')) {
      const d = fromRow(row);
      repo.cache.set(d.serialNumber, d);
    }
    return repo;
  }

  get(serial: string): StoredDevice | undefined {
    return this.cache.get(serial);
  }

  has(serial: string): boolean {
    return this.cache.has(serial);
  }

  /** Every device, sorted by serial, as a fresh array (callers may filter and re-sort it). */
  all(): StoredDevice[] {
    this.sorted ??= [...this.cache.values()].sort((a, b) => (a.serialNumber < b.serialNumber ? -1 : a.serialNumber > b.serialNumber ? 1 : 0));
    return [...this.sorted];
  }

  get size(): number {
    return this.cache.size;
  }

  /** A new record; ALREADY_EXISTS (409) when the serial has one, however close together the creates come. */
  insert(d: StoredDevice): Promise<StoredDevice> {
    return this.writes.run(async () => {
      if (this.cache.has(d.serialNumber)) throw alreadyExists('serialNumber', `Device ${d.serialNumber} exists already.`);
      const placeholders = COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
      await this.store.run(`INSERT INTO devices (${COLUMNS.map(([, c]) => c).join(', ')}) VALUES (${placeholders})`, toParams(d));
      this.cache.set(d.serialNumber, d);
      this.sorted = undefined;
      return d;
    });
  }

  /**
   * Many new records in one transaction, a few hundred rows per INSERT: a venue of 50,000
   * simulated APs took minutes one INSERT at a time. All or nothing, like `insert`.
   */
  insertMany(list: readonly StoredDevice[]): Promise<void> {
    return this.writes.run(async () => {
      const seen = new Set<string>();
      for (const d of list) {
        if (this.cache.has(d.serialNumber) || seen.has(d.serialNumber)) throw alreadyExists('serialNumber', `Device ${d.serialNumber} exists already.`);
        seen.add(d.serialNumber);
      }
      const perStatement = 400;
      await this.store.transaction(async (tx) => {
        for (let at = 0; at < list.length; at += perStatement) {
          const chunk = list.slice(at, at + perStatement);
          const rows = chunk.map((_, r) => `(${COLUMNS.map((__, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`).join(', ');
          await tx.run(`INSERT INTO devices (${COLUMNS.map(([, c]) => c).join(', ')}) VALUES ${rows}`, chunk.flatMap(toParams));
        }
      });
      for (const d of list) this.cache.set(d.serialNumber, d);
      this.sorted = undefined;
    });
  }

  /**
   * Changes a record: `change` gets the record as it is when this write runs (after every write
   * queued before it) and returns the next one, whose serial must stay. NOT_FOUND (404) when the
   * record is gone by then. `change` runs inside the queue: it must not wait on another write.
   */
  update(serial: string, change: (current: StoredDevice) => StoredDevice): Promise<StoredDevice> {
    return this.writes.run(async () => {
      const current = this.cache.get(serial);
      if (!current) throw notFound('serialNumber', `Device ${serial} does not exist.`);
      const next = change(current);
      if (next.serialNumber !== serial) throw new Error(`DevicesRepo.update: a change may not move ${serial} to ${next.serialNumber}`);
      const sets = COLUMNS.slice(1).map(([, c], i) => `${c} = $${i + 2}`).join(', ');
      await this.store.run(`UPDATE devices SET ${sets} WHERE serial = $1`, toParams(next));
      this.cache.set(serial, next);
      this.replaceSorted(next);
      return next;
    });
  }

  /**
   * Moves `lastRecordedContact` (seconds) of many devices forward to the times given, never back
   * (a disconnect written meanwhile may be later), in one transaction, a few hundred per
   * statement (a fleet's shutdown: one UPDATE per AP took seconds for thousands). Serials
   * without a record are passed over.
   */
  raiseLastContacts(contacts: ReadonlyMap<string, number>): Promise<void> {
    return this.writes.run(async () => {
      const known = [...contacts].filter(([serial]) => this.cache.has(serial));
      if (known.length === 0) return;
      const perStatement = 400;
      await this.store.transaction(async (tx) => {
        for (let at = 0; at < known.length; at += perStatement) {
          const chunk = known.slice(at, at + perStatement);
          const values = chunk.map((_, r) => `($${2 * r + 1}::VARCHAR, $${2 * r + 2}::BIGINT)`).join(', ');
          await tx.run(`UPDATE devices SET last_recorded_contact = greatest(devices.last_recorded_contact, v.t) FROM (VALUES ${values}) AS v(serial, t) WHERE devices.serial = v.serial`, chunk.flat());
        }
      });
      for (const [serial, t] of known) {
        const current = this.cache.get(serial)!;
        const next = { ...current, lastRecordedContact: Math.max(current.lastRecordedContact, t) };
        this.cache.set(serial, next);
        this.replaceSorted(next);
      }
    });
  }

  /** Removes the device and everything recorded for it, in one transaction. NOT_FOUND (404) when it is gone already. */
  delete(serial: string): Promise<void> {
    return this.writes.run(async () => {
      if (!this.cache.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
      await this.store.transaction(async (tx) => {
        for (const table of ['device_logs', 'health_checks', 'statistics', 'capabilities', 'commands', 'files', 'devices']) {
          await tx.run(`DELETE FROM ${table} WHERE serial = $1`, [serial]);
        }
      });
      this.cache.delete(serial);
      this.sorted = undefined;
    });
  }

  /** An update keeps the serial, so the sorted copy stays sorted: swap the record in place. */
  private replaceSorted(d: StoredDevice): void {
    const list = this.sorted;
    if (!list) return;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = list[mid]!.serialNumber;
      if (s === d.serialNumber) {
        list[mid] = d;
        return;
      }
      if (s < d.serialNumber) lo = mid + 1;
      else hi = mid - 1;
    }
    this.sorted = undefined;
  }
}
