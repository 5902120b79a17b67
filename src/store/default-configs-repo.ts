import type { Store } from './duckdb.js';
import { alreadyExists, notFound } from '../errors.js';
import type { DefaultConfiguration } from './records.js';
import { WriteQueue } from './write-queue.js';

const COLUMNS = 'name, model_ids, description, configuration, platform, created, last_modified';

function fromRow(row: Record<string, unknown>): DefaultConfiguration {
  return {
    name: String(row.name), modelIds: JSON.parse(String(row.model_ids)) as string[], description: String(row.description),
    configuration: String(row.configuration), platform: String(row.platform), created: Number(row.created),
    lastModified: Number(row.last_modified),
  };
}

function toParams(c: DefaultConfiguration): (string | number)[] {
  return [c.name, JSON.stringify(c.modelIds), c.description, c.configuration, c.platform, c.created, c.lastModified];
}

const byName = (a: DefaultConfiguration, b: DefaultConfiguration) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Named default configurations. Few rows, read at every auto-provisioning, so mirrored in
 * memory and written through (DuckDB first, then the map). Writes run one at a time
 * (WriteQueue), each checking and changing the record as the write before left it.
 */
export class DefaultConfigsRepo {
  private readonly cache = new Map<string, DefaultConfiguration>();
  private readonly writes = new WriteQueue();

  private constructor(private readonly store: Store) {}

  static async load(store: Store): Promise<DefaultConfigsRepo> {
    const repo = new DefaultConfigsRepo(store);
    for (const row of await store.query(`SELECT ${COLUMNS} FROM default_configs`)) {
      const c = fromRow(row);
      repo.cache.set(c.name, c);
    }
    return repo;
  }

  get(name: string): DefaultConfiguration | undefined {
    return this.cache.get(name);
  }

  has(name: string): boolean {
    return this.cache.has(name);
  }

  /** Every configuration, ordered by name. */
  all(): DefaultConfiguration[] {
    return [...this.cache.values()].sort(byName);
  }

  /**
   * The configuration for a new device of model `compatible` on `platform`: the first by name
   * whose modelIds holds `compatible` or '*'. Upstream compares the wrong
   * struct's platform and never matches a device that reports one
   * (docs/upstream.md#gateway-behaviour-airtwin-does-not-copy).
   */
  match(compatible: string, platform = 'ap'): DefaultConfiguration | undefined {
    const candidates = this.all().filter((c) => c.platform === platform.toLowerCase());
    return candidates.find((c) => c.modelIds.includes(compatible)) ?? candidates.find((c) => c.modelIds.includes('*'));
  }

  insert(c: DefaultConfiguration): Promise<DefaultConfiguration> {
    return this.writes.run(async () => {
      if (this.cache.has(c.name)) throw alreadyExists('name', `Default configuration '${c.name}' exists already.`);
      await this.store.run(`INSERT INTO default_configs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, toParams(c));
      this.cache.set(c.name, c);
      return c;
    });
  }

  /**
   * Changes a record: `change` gets it as it is when this write runs and returns the next one
   * (same name). NOT_FOUND (404) when it is gone by then.
   */
  update(name: string, change: (current: DefaultConfiguration) => DefaultConfiguration): Promise<DefaultConfiguration> {
    return this.writes.run(async () => {
      const current = this.cache.get(name);
      if (!current) throw notFound('name', `Default configuration '${name}' does not exist.`);
      const next = { ...change(current), name };
      await this.store.run(
        'UPDATE default_configs SET model_ids = $2, description = $3, configuration = $4, platform = $5, created = $6, last_modified = $7 WHERE name = $1',
        toParams(next),
      );
      this.cache.set(name, next);
      return next;
    });
  }

  delete(name: string): Promise<void> {
    return this.writes.run(async () => {
      if (!this.cache.has(name)) throw notFound('name', `Default configuration '${name}' does not exist.`);
      await this.store.run('DELETE FROM default_configs WHERE name = $1', [name]);
      this.cache.delete(name);
    });
  }
}
