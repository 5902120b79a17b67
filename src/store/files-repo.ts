import { blobValue } from '@duckdb/node-api';
import type { Store } from './duckdb.js';
import type { StoredFile } from './records.js';

/** Upload types a command may attach (reference §2.8); anything else is served as `.bin`. */
export const FILE_TYPES = ['pcap', 'tgz', 'txt', 'bin'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export function fileType(type: string): FileType {
  return (FILE_TYPES as readonly string[]).includes(type) ? (type as FileType) : 'bin';
}

/**
 * Files APs upload for commands (trace captures, script output), keyed by the command's UUID.
 * Content lives in DuckDB as a BLOB: uploads are small (the upload endpoint caps them) and this
 * keeps one file per data dir.
 */
export class FilesRepo {
  constructor(private readonly store: Store) {}

  /** Stores (or replaces) the file of a command. */
  async put(file: StoredFile): Promise<void> {
    await this.store.run(
      `INSERT INTO files (uuid, serial, type, created, content) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (uuid) DO UPDATE SET serial = excluded.serial, type = excluded.type, created = excluded.created, content = excluded.content`,
      [file.uuid, file.serialNumber, fileType(file.type), file.created, blobValue(new Uint8Array(file.content))],
    );
  }

  /** The file of command `uuid` if it belongs to `serial`. */
  async get(uuid: string, serial: string): Promise<StoredFile | undefined> {
    const rows = await this.store.query<{ uuid: string; serial: string; type: string; created: number; content: Buffer }>(
      'SELECT uuid, serial, type, created, content FROM files WHERE uuid = $1 AND serial = $2', [uuid, serial],
    );
    const r = rows[0];
    return r ? { uuid: r.uuid, serialNumber: r.serial, type: r.type, created: r.created, content: Buffer.from(r.content) } : undefined;
  }

  /** Deletes the file of command `uuid` if it belongs to `serial`; false when there was none. */
  async delete(uuid: string, serial: string): Promise<boolean> {
    return (await this.store.run('DELETE FROM files WHERE uuid = $1 AND serial = $2', [uuid, serial])) > 0;
  }
}
