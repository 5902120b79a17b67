import type { Store } from './duckdb.js';
import { byKey, MirroredTable, type Column } from './mirrored-table.js';
import type { ScriptEntry } from './records.js';

const SCRIPT_COLUMNS: Column<ScriptEntry>[] = [
  { field: 'id', column: 'id' }, { field: 'name', column: 'name' }, { field: 'description', column: 'description' },
  { field: 'uri', column: 'uri' }, { field: 'content', column: 'content' }, { field: 'version', column: 'version' },
  { field: 'type', column: 'type' }, { field: 'created', column: 'created', kind: 'number' },
  { field: 'modified', column: 'modified', kind: 'number' }, { field: 'author', column: 'author' },
  { field: 'restricted', column: 'restricted', kind: 'json' }, { field: 'deferred', column: 'deferred', kind: 'boolean' },
  { field: 'timeout', column: 'timeout', kind: 'number' }, { field: 'defaultUploadURI', column: 'default_upload_uri' },
];


/** Stored scripts (GET/POST/PUT/DELETE /script/{id}), ordered by name. */
export type ScriptsRepo = MirroredTable<ScriptEntry>;
export const loadScripts = (store: Store): Promise<ScriptsRepo> => MirroredTable.load(store, 'scripts', SCRIPT_COLUMNS, byKey((s) => `${s.name}\u0000${s.id}`));

