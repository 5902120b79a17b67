import { Type, type Static } from 'typebox';
import { DeviceStatus } from '../../protocol/device-status.js';
import { Device } from '../../store/records.js';

/**
 * What a client may send: every field optional; `configuration` may be an object; `locale`
 * exactly 2 letters; `deviceType` in any case; `UUID` a number or its digits as text (upstream
 * converts it).
 */
export const DeviceInput = Type.Object({
  serialNumber: Type.Optional(Type.String()),
  deviceType: Type.Optional(Type.String({ pattern: '^([Aa][Pp]|[Ss][Ww][Ii][Tt][Cc][Hh])$', description: 'AP or SWITCH, any case.' })),
  macAddress: Type.Optional(Type.String()),
  manufacturer: Type.Optional(Type.String()),
  UUID: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,18}$' })], { description: 'A number, or its digits as text.' })),
  configuration: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })])),
  notes: Type.Optional(Type.Array(Type.Object({ note: Type.String(), created: Type.Optional(Type.Integer()), createdBy: Type.Optional(Type.String()) }))),
  firmware: Type.Optional(Type.String()),
  devicePassword: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  venue: Type.Optional(Type.String()),
  subscriber: Type.Optional(Type.String()),
  entity: Type.Optional(Type.String()),
  locale: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Exactly 2 letters.' })),
  createdTimestamp: Type.Optional(Type.Integer()),
  lastConfigurationChange: Type.Optional(Type.Integer()),
  lastConfigurationDownload: Type.Optional(Type.Integer()),
  modified: Type.Optional(Type.Integer()),
  compatible: Type.Optional(Type.String()),
  blackListed: Type.Optional(Type.Boolean()),
}, { additionalProperties: true });
export type DeviceInput = Static<typeof DeviceInput>;

/** A Device merged with its DeviceStatus (GET /devices?deviceWithStatus=true). */
export const DeviceWithStatus = Type.Object({ ...Device.properties, ...DeviceStatus.properties });

export const DeviceListResponse = Type.Object({
  devices: Type.Optional(Type.Array(Device)),
  devicesWithStatus: Type.Optional(Type.Array(DeviceWithStatus)),
  serialNumbers: Type.Optional(Type.Array(Type.String())),
  count: Type.Optional(Type.Integer()),
  list: Type.Optional(Type.Array(Type.String())),
  averageConnectionTime: Type.Optional(Type.Integer({ description: 'Seconds, rounded.' })),
  connectedDevices: Type.Optional(Type.Integer()),
  connectingDevices: Type.Optional(Type.Integer()),
}, { description: 'One of: devices, devicesWithStatus, serialNumbers (serialOnly, health), count, list (orderSpec) or the connection statistics.' });

export const ValidateResponse = Type.Object({ valid: Type.Boolean(), error: Type.Optional(Type.String()) });
