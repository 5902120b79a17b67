import { Type, type Static } from 'typebox';

/** Connection status of a device (spec "DeviceStatus") plus the live figures the dashboard uses. */
export const DeviceStatus = Type.Object({
  serialNumber: Type.String(),
  ipAddress: Type.String(),
  firmware: Type.String(),
  txBytes: Type.Integer(),
  rxBytes: Type.Integer(),
  messageCount: Type.Integer(),
  UUID: Type.Integer(),
  lastContact: Type.Integer(),
  associations_2G: Type.Integer(),
  associations_5G: Type.Integer(),
  associations_6G: Type.Integer(),
  connected: Type.Boolean(),
  verifiedCertificate: Type.String({ enum: ['NO_CERTIFICATE', 'VALID_CERTIFICATE', 'MISMATCH_SERIAL', 'VERIFIED', 'SIMULATED'] }),
  sanity: Type.Integer(),
  memoryUsed: Type.Number({ description: 'Percent of memory in use (last state).' }),
  load: Type.Number({ description: '5-minute load average of the last state (fraction of one core).' }),
  temperature: Type.Number({ description: 'First temperature sensor of the last state, Celsius.' }),
  uptime: Type.Integer(),
  started: Type.Integer(),
  hasGPS: Type.Boolean({ description: 'The last state carries a gps object.' }),
  hasRADIUSSessions: Type.Boolean({ description: 'GET /radiusSessions/{serial} has sessions for this AP.' }),
}, { $id: 'DeviceStatus', title: 'DeviceStatus' });
export type DeviceStatus = Static<typeof DeviceStatus>;

/**
 * The status of a device no link has connected in this process: `lastContact` is the last one
 * on its record (seconds; 0: never), so a data dir served again, whatever its links, still says
 * when each AP was last heard from.
 */
export function offlineStatus(serial: string, firmware = '', uuid = 0, lastContact = 0): DeviceStatus {
  return {
    serialNumber: serial, ipAddress: '', firmware, txBytes: 0, rxBytes: 0, messageCount: 0, UUID: uuid,
    lastContact, associations_2G: 0, associations_5G: 0, associations_6G: 0, connected: false,
    verifiedCertificate: 'NO_CERTIFICATE', sanity: 0, memoryUsed: 0, load: 0, temperature: 0, uptime: 0, started: 0,
    hasGPS: false, hasRADIUSSessions: false,
  };
}
