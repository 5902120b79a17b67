import type { Clock } from '../protocol/clock.js';
import type { Store } from '../store/duckdb.js';
import type { Logging } from '../server/logging.js';
import type { Fleet } from '../../actors/fleet.js';
import type { CommandService } from '../../actors/command-service.js';
import type { RrmStore } from './store.js';
import type { RrmApplier } from './apply.js';
import type { Site } from './site.js';

/** Everything the RRM service's routes use; built by the composition root (src/runtime/serve.ts). */
export interface RrmDeps {
  clock: Clock;
  store: Store;
  logging: Logging;
  fleet: Fleet;
  /** The same command service the gateway uses: the RRM applies plans as configure commands. */
  commandService: CommandService;
  version: string;
  startedAt: number;
  /** The RRM's own state and its side effects (built in serve.ts before the routes). */
  rrm: { store: RrmStore; applier: RrmApplier };
  /** The venue's floors, walls and origin when the twin simulates it (location-based power modes). */
  site?: Site;
}
