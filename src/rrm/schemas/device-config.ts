/**
 * DeviceConfig: one layer of the layered RRM configuration, and the effective configuration
 * (spec: rrm-service-api.md "DeviceConfig"; docs/upstream.md#rrm-behaviour).
 * Every field is optional in a layer (absent = "not set at this layer"); the effective
 * configuration has all 13 keys, null where no layer sets them (docs/upstream.md#rrm-api).
 */
import { Type, type Static } from 'typebox';

/**
 * One scheduled algorithm run: `name` is the type id, `args` the parsed `k=v` pairs
 * (docs/upstream.md#rrm-schedules).
 */
export const ScheduledAlgorithm = Type.Object({
  name: Type.String({ minLength: 1 }),
  args: Type.Optional(Type.Record(Type.String(), Type.String())),
}, { $id: 'ScheduledAlgorithm', title: 'ScheduledAlgorithm' });
export type ScheduledAlgorithm = Static<typeof ScheduledAlgorithm>;

/**
 * Schedule. The persisted upstream form is `crons: string[]` (docs/upstream.md#rrm-schedules); the
 * public spec table names a single `cron` string, so both are accepted and the scheduler fires on
 * the union.
 */
export const Schedule = Type.Object({
  cron: Type.Optional(Type.String()),
  crons: Type.Optional(Type.Array(Type.String())),
  algorithms: Type.Optional(Type.Array(ScheduledAlgorithm)),
}, { $id: 'Schedule', title: 'Schedule' });
export type Schedule = Static<typeof Schedule>;

const BandInts = Type.Record(Type.String(), Type.Array(Type.Integer()));
const BandInt = Type.Record(Type.String(), Type.Integer());

const fields = {
  enableRRM: Type.Boolean(),
  schedule: Schedule,
  enableConfig: Type.Boolean(),
  enableWifiScan: Type.Boolean(),
  boundary: Type.Integer({ format: 'int32' }),
  location: Type.Array(Type.Integer({ format: 'int32' })),
  allowedChannels: BandInts,
  allowedChannelWidths: BandInts,
  autoChannels: BandInt,
  userChannels: BandInt,
  allowedTxPowers: BandInts,
  autoTxPowers: BandInt,
  userTxPowers: BandInt,
} as const;

/** Names of every DeviceConfig field, in the order of the spec table. */
export const DEVICE_CONFIG_FIELDS = Object.keys(fields) as (keyof typeof fields)[];
export type DeviceConfigField = keyof typeof fields;

/**
 * One layer. Unknown keys are ignored by the caller (docs/upstream.md#rrm-behaviour), so
 * additionalProperties is allowed.
 */
export const DeviceConfig = Type.Object({
  enableRRM: Type.Optional(fields.enableRRM),
  schedule: Type.Optional(fields.schedule),
  enableConfig: Type.Optional(fields.enableConfig),
  enableWifiScan: Type.Optional(fields.enableWifiScan),
  boundary: Type.Optional(fields.boundary),
  location: Type.Optional(fields.location),
  allowedChannels: Type.Optional(fields.allowedChannels),
  allowedChannelWidths: Type.Optional(fields.allowedChannelWidths),
  autoChannels: Type.Optional(fields.autoChannels),
  userChannels: Type.Optional(fields.userChannels),
  allowedTxPowers: Type.Optional(fields.allowedTxPowers),
  autoTxPowers: Type.Optional(fields.autoTxPowers),
  userTxPowers: Type.Optional(fields.userTxPowers),
}, { $id: 'DeviceConfig', title: 'DeviceConfig' });
export type DeviceConfig = Static<typeof DeviceConfig>;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** The effective configuration: every key present, null when no layer sets it. */
export const EffectiveConfig = Type.Object({
  enableRRM: fields.enableRRM,
  schedule: nullable(fields.schedule),
  enableConfig: fields.enableConfig,
  enableWifiScan: fields.enableWifiScan,
  boundary: nullable(fields.boundary),
  location: nullable(fields.location),
  allowedChannels: nullable(fields.allowedChannels),
  allowedChannelWidths: nullable(fields.allowedChannelWidths),
  autoChannels: nullable(fields.autoChannels),
  userChannels: nullable(fields.userChannels),
  allowedTxPowers: nullable(fields.allowedTxPowers),
  autoTxPowers: nullable(fields.autoTxPowers),
  userTxPowers: nullable(fields.userTxPowers),
}, { $id: 'EffectiveConfig', title: 'EffectiveConfig' });
export type EffectiveConfig = Static<typeof EffectiveConfig>;
