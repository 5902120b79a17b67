import type { DeviceStatus } from '../protocol/device-status.js';

/**
 * What the gateway needs to know about live devices. The fleet (actors/) implements it;
 * `offlineStatusSource` stands in when no fleet runs (e.g. `serve --no-sim` without NATS).
 */
export interface DeviceStatusSource {
  status(serial: string): DeviceStatus | undefined;
  connectionStatistics(): { averageConnectionTime: number; connectedDevices: number; connectingDevices: number };
}

export const offlineStatusSource: DeviceStatusSource = {
  status: () => undefined,
  connectionStatistics: () => ({ averageConnectionTime: 0, connectedDevices: 0, connectingDevices: 0 }),
};
