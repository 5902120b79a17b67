import type { DeviceStatus } from '../protocol/device-status.js';

/**
 * What the gateway needs to know about live devices. The fleet runtime implements it (serve
 * always runs a fleet, even with no APs); `offlineStatusSource` is the all-offline stand-in that
 * route tests build on.
 */
export interface DeviceStatusSource {
  status(serial: string): DeviceStatus | undefined;
  connectionStatistics(): { averageConnectionTime: number; connectedDevices: number; connectingDevices: number };
}

export const offlineStatusSource: DeviceStatusSource = {
  status: () => undefined,
  connectionStatistics: () => ({ averageConnectionTime: 0, connectedDevices: 0, connectingDevices: 0 }),
};
