import type { Clock } from '../protocol/clock.js';
import type { Store } from '../store/duckdb.js';
import type { Logging } from '../server/logging.js';

/** Everything the RRM service's routes use; built by the composition root (src/commands/serve.ts). */
export interface RrmDeps {
  clock: Clock;
  store: Store;
  logging: Logging;
  version: string;
  startedAt: number;
}
