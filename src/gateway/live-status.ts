import { offlineStatus, type DeviceStatus } from '../protocol/device-status.js';
import { isObject } from '../protocol/frame.js';
import type { Device } from '../store/records.js';
import type { DeviceStatusSource } from './device-status-source.js';
import { hasSessions } from './radius-sessions.js';

/**
 * A device's status as the API shows it: what its actor knows (or the offline status from its
 * record), plus what the gateway derives from the last state: `hasGPS` (it carries a gps object)
 * and `hasRADIUSSessions` (a connected AP with associated stations: GET /radiusSessions/{serial}).
 */
export function deviceStatus(source: DeviceStatusSource, d: Pick<Device, 'serialNumber' | 'firmware' | 'UUID' | 'lastRecordedContact'>): DeviceStatus {
  const live = source.status(d.serialNumber);
  if (!live) return offlineStatus(d.serialNumber, d.firmware, d.UUID, d.lastRecordedContact);
  const state = source.lastState(d.serialNumber);
  return { ...live, hasGPS: isObject(state?.gps), hasRADIUSSessions: live.connected && hasSessions(state) };
}
