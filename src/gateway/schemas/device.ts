import { Type, type Static } from 'typebox';
import { DEVICE_TYPES } from '../../store/records.js';

/** What a client may send: every field optional; `configuration` may be an object; `locale` exactly 2 letters. */
export const DeviceInput = Type.Object({
  serialNumber: Type.Optional(Type.String()),
  deviceType: Type.Optional(Type.String({ enum: [...DEVICE_TYPES, 'ap', 'switch'] })),
  macAddress: Type.Optional(Type.String()),
  manufacturer: Type.Optional(Type.String()),
  UUID: Type.Optional(Type.Integer()),
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

