import type { DeviceStatus } from '../protocol/device-status.js';
import type { JsonObject } from '../protocol/frame.js';

/** What a device actor knows of its AP's connection; the gateway adds what it derives (src/gateway/live-status.ts). */
export type LiveStatus = Omit<DeviceStatus, 'hasGPS' | 'hasRADIUSSessions'>;

/**
 * What the gateway needs to know about live devices. The fleet runtime implements it (serve
 * always runs a fleet, even with no APs); `offlineStatusSource` is the all-offline stand-in that
 * route tests build on.
 */
export interface DeviceStatusSource {
  status(serial: string): LiveStatus | undefined;
  /** The last state document the AP sent in this process (undefined: none yet). */
  lastState(serial: string): JsonObject | undefined;
  connectionStatistics(): { averageConnectionTime: number; connectedDevices: number; connectingDevices: number };
}

export const offlineStatusSource: DeviceStatusSource = {
  status: () => undefined,
  lastState: () => undefined,
  connectionStatistics: () => ({ averageConnectionTime: 0, connectedDevices: 0, connectingDevices: 0 }),
};
