/** LayeredConfig (spec: rrm-service-api.md "LayeredConfig"; docs/upstream.md#rrm-behaviour). */
import { Type, type Static } from 'typebox';
import { DeviceConfig } from './device-config.js';

export const LayeredConfig = Type.Object({
  apConfig: Type.Record(Type.String(), DeviceConfig),
  zoneConfig: Type.Record(Type.String(), DeviceConfig),
  networkConfig: DeviceConfig,
}, { $id: 'LayeredConfig', title: 'LayeredConfig' });
export type LayeredConfig = Static<typeof LayeredConfig>;

export const emptyLayeredConfig = (): LayeredConfig => ({ apConfig: {}, zoneConfig: {}, networkConfig: {} });
