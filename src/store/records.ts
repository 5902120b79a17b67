import { Type, type Static } from 'typebox';

/**
 * Shapes of stored records, shared by the store's repositories and the API schemas
 * (one source for validation, types and OpenAPI).
 */

export const Note = Type.Object({
  created: Type.Integer(),
  createdBy: Type.String(),
  note: Type.String(),
});

export const DEVICE_TYPES = ['AP', 'SWITCH'] as const;

/** The Device record (spec "Device"), plus the read-only upstream extras clients rely on. */
export const Device = Type.Object({
  serialNumber: Type.String(),
  deviceType: Type.String({ enum: [...DEVICE_TYPES], default: 'AP' }),
  macAddress: Type.String(),
  manufacturer: Type.String(),
  UUID: Type.Integer(),
  configuration: Type.String({ description: 'A JSON document, as a string (the spec says string). POST/PUT also accept an object.' }),
  notes: Type.Array(Note),
  createdTimestamp: Type.Integer(),
  lastConfigurationChange: Type.Integer(),
  lastConfigurationDownload: Type.Integer(),
  firmware: Type.String(),
  devicePassword: Type.String(),
  owner: Type.String(),
  location: Type.String(),
  venue: Type.String(),
  subscriber: Type.String(),
  entity: Type.String(),
  modified: Type.Integer(),
  locale: Type.String(),
  compatible: Type.String({ description: 'Model id reported by the AP (read-only).' }),
  blackListed: Type.Boolean({ description: 'Whether the serial is on the blacklist (read-only).' }),
  lastFWUpdate: Type.Integer(),
  lastRecordedContact: Type.Integer(),
  simulated: Type.Boolean(),
  connectReason: Type.String(),
}, { $id: 'Device', title: 'Device' });
export type Device = Static<typeof Device>;

