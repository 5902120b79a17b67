import type { Clock } from '../protocol/clock.js';
import type { Store } from '../store/duckdb.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import type { Logging } from '../server/logging.js';
import type { DeviceStatusSource } from './device-status-source.js';

/** Everything the gateway's routes use; built by the composition root (src/commands/serve.ts). */
export interface GatewayDeps {
  clock: Clock;
  store: Store;
  devices: DevicesRepo;
  status: DeviceStatusSource;
  logging: Logging;
  /** Whether a serial is blacklisted (the blacklist repository answers it). */
  isBlacklisted: (serial: string) => boolean;
  version: string;
  startedAt: number;
}
