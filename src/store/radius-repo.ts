import type { Store } from './duckdb.js';
import type { RadiusProxyConfig } from './records.js';

/** The table holds at most this one row: the whole configuration as JSON. */
const ROW_ID = 1;

/** The RADIUS proxy configuration: one JSON document, replaced as a whole by PUT. */
export class RadiusRepo {
  constructor(private readonly store: Store) {}

  async get(): Promise<RadiusProxyConfig | undefined> {
    const rows = await this.store.query<{ config: string }>('SELECT config FROM radius_proxy_config WHERE id = $1', [ROW_ID]);
    return rows[0] ? (JSON.parse(rows[0].config) as RadiusProxyConfig) : undefined;
  }

  async put(config: RadiusProxyConfig, modified: number): Promise<RadiusProxyConfig> {
    await this.store.run(
      'INSERT INTO radius_proxy_config (id, config, modified) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET config = excluded.config, modified = excluded.modified',
      [ROW_ID, JSON.stringify(config), modified],
    );
    return config;
  }

  /** Resolves with whether there was a configuration to delete. */
  async delete(): Promise<boolean> {
    return (await this.store.run('DELETE FROM radius_proxy_config WHERE id = $1', [ROW_ID])) > 0;
  }
}
