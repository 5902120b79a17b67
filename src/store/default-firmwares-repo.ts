import type { Store } from './duckdb.js';
import { byKey, MirroredTable, type Column } from './mirrored-table.js';
import type { DefaultFirmware } from './records.js';

const FIRMWARE_COLUMNS: Column<DefaultFirmware>[] = [
  { field: 'deviceType', column: 'device_type' }, { field: 'description', column: 'description' }, { field: 'uri', column: 'uri' },
  { field: 'revision', column: 'revision' }, { field: 'imageCreationDate', column: 'image_creation_date', kind: 'number' },
  { field: 'created', column: 'created', kind: 'number' }, { field: 'lastModified', column: 'last_modified', kind: 'number' },
];

/** Default firmware per device type (GET/POST/PUT/DELETE /default_firmware/{deviceType}), ordered by type. */
export type DefaultFirmwaresRepo = MirroredTable<DefaultFirmware>;
export const loadDefaultFirmwares = (store: Store): Promise<DefaultFirmwaresRepo> =>
  MirroredTable.load(store, 'default_firmwares', FIRMWARE_COLUMNS, byKey((f) => f.deviceType));
