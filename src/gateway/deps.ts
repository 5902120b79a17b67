import type { Clock } from '../protocol/clock.js';
import type { Store } from '../store/duckdb.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import type { DefaultConfigsRepo } from '../store/default-configs-repo.js';
import type { BlacklistRepo } from '../store/blacklist-repo.js';
import type { RadiusRepo } from '../store/radius-repo.js';
import type { CommandsRepo } from '../store/commands-repo.js';
import type { DeviceDataRepo } from '../store/device-data-repo.js';
import type { FilesRepo } from '../store/files-repo.js';
import type { ScriptsRepo } from '../store/scripts-repo.js';
import type { DefaultFirmwaresRepo } from '../store/default-firmwares-repo.js';
import type { Logging } from '../server/logging.js';
import type { DeviceStatusSource } from './device-status-source.js';
import type { Fleet } from '../../actors/fleet.js';
import type { CommandService } from '../../actors/command-service.js';
import type { TelemetryRegistry } from './telemetry.js';
import type { UiNotifications } from './ui-notifications.js';

/** Everything the gateway's routes use; built by the composition root (src/runtime/serve.ts). */
export interface GatewayDeps {
  clock: Clock;
  store: Store;
  devices: DevicesRepo;
  defaultConfigs: DefaultConfigsRepo;
  blacklist: BlacklistRepo;
  radius: RadiusRepo;
  commands: CommandsRepo;
  deviceData: DeviceDataRepo;
  files: FilesRepo;
  scripts: ScriptsRepo;
  defaultFirmwares: DefaultFirmwaresRepo;
  status: DeviceStatusSource;
  /** The device actors; commands go through `commandService`, never straight to a link. */
  fleet: Fleet;
  /** Every device command, rtty included (it holds the rtty settings: src/runtime/serve.ts). */
  commandService: CommandService;
  /** Telemetry streams to websocket clients (and NATS when configured). */
  telemetry: TelemetryRegistry;
  /** The OpenWiFi UI's notification socket (/api/v1/ws). */
  uiNotifications: UiNotifications;
  logging: Logging;
  /** Whether a serial is blacklisted (the blacklist repository answers it). */
  isBlacklisted: (serial: string) => boolean;
  version: string;
  startedAt: number;
}
