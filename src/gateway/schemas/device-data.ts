import { Type } from 'typebox';
import { DateRange, Pagination } from '../../server/schemas.js';
import { DeviceLog, HealthCheck, StatisticsRecord } from '../../store/records.js';

/** Queries and canonical answers of the per-device data routes (spec "Per-device data"). */

const LogType = Type.Optional(Type.Integer({
  minimum: 0, maximum: 2, default: 0,
  description: 'spec: 0 any kind (default), 1 normal logs (reboot logs included), 2 crash logs; the same for GET and DELETE.',
}));
const Newest = Type.Optional(Type.Boolean({ description: 'Newest first; with limit, the newest N. Otherwise oldest first.' }));
const LastOnly = Type.Optional(Type.Boolean({ description: 'Only the latest stored record (404 if none); other parameters are ignored.' }));

export const LogsQuery = Type.Object({ ...DateRange, ...Pagination, logType: LogType, newest: Newest }, { additionalProperties: false });
export const LogsDeleteQuery = Type.Object({ ...DateRange, logType: LogType }, { additionalProperties: false });
export const RecordsQuery = Type.Object({
  ...DateRange, ...Pagination, newest: Newest, lastOnly: LastOnly,
  countOnly: Type.Optional(Type.Boolean({ description: 'Statistics only: answer {"count": n} of the records in the date range.' })),
}, { additionalProperties: false });
export const RangeQuery = Type.Object({ ...DateRange }, { additionalProperties: false });

export const DeviceLogs = Type.Object({ serialNumber: Type.String(), values: Type.Array(DeviceLog) }, {
  $id: 'DeviceLogs', title: 'DeviceLogs',
  description: 'data is a JSON document as text. The logType of each value is the stored kind: 0 normal, 1 crash or recovery, 2 reboot log.',
});
export const DeviceHealthChecks = Type.Object({ serialNumber: Type.String(), values: Type.Array(HealthCheck) }, {
  $id: 'DeviceHealthChecks', title: 'DeviceHealthChecks', description: 'data is the healthcheck object as JSON text. lastOnly answers one value.',
});
export const DeviceStatistics = Type.Object({ serialNumber: Type.String(), values: Type.Array(StatisticsRecord) }, {
  $id: 'DeviceStatistics', title: 'DeviceStatistics', description: 'data is the state object as JSON text. lastOnly answers one value.',
});

/** spec "DeviceTypes". */
export const DeviceTypes = Type.Object({
  device_types: Type.Array(Type.Object({
    deviceType: Type.String({ description: 'The `compatible` model id the APs report.' }),
    capabilities: Type.String({ description: 'JSON text: the latest capabilities object stored for a device of this type.' }),
  })),
}, { $id: 'DeviceTypes', title: 'DeviceTypes' });
