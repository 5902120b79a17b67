import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { blobValue } from '@duckdb/node-api';
import { dirname, join } from 'node:path';
import type { Store } from './duckdb.js';
import type { StoredFile } from './records.js';

/** Upload types a command may attach (docs/upstream.md#rest-conventions); anything else is served as `.bin`. */
export const FILE_TYPES = ['pcap', 'tgz', 'txt', 'bin'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export function fileType(type: string): FileType {
  return (FILE_TYPES as readonly string[]).includes(type) ? (type as FileType) : 'bin';
}

/** What GET /file answers as Content-Type, per upload type. */
export const FILE_CONTENT_TYPES: Record<FileType, string> = {
  pcap: 'application/vnd.tcpdump.pcap', tgz: 'application/gzip', txt: 'text/plain', bin: 'application/octet-stream',
};

/** A stored file's index row. */
export interface FileEntry {
  uuid: string;
  serialNumber: string;
  type: FileType;
  /** Epoch seconds. */
  created: number;
  size: number;
}

/** Limits of what the data dir keeps; the oldest files go first. */
export interface FileRetention {
  /** Seconds a file is kept. */
  maxAgeS: number;
  /** Bytes all files may take together. */
  maxTotalBytes: number;
}

const TMP = '.partial';

/**
 * Files APs upload for commands (trace captures, script output), keyed by the command's UUID.
 * The index (who, what type, when) is the `files` table; the bytes are files of their own in
 * `<data dir>/uploads/` (`content` stays empty): a 10 MB capture as a BLOB went through the
 * WAL and every checkpoint. A file is written under `.partial/` and renamed into place only once
 * whole, so a crash or a full disk leaves no half-file that looks complete; `prune` removes
 * leftovers (partials, bytes whose row is gone with its command or device).
 */
export class FilesRepo {
  readonly dir: string;

  constructor(private readonly store: Store, dir = join(dirname(store.path), 'uploads')) {
    this.dir = dir;
    mkdirSync(join(dir, TMP), { recursive: true });
  }

  /** Where the upload of command `uuid` is written until whole (one upload per command at a time). */
  partialPath(uuid: string): string {
    return join(this.dir, TMP, uuid);
  }

  private pathOf(uuid: string, type: FileType): string {
    return join(this.dir, `${uuid}.${type}`);
  }

  /**
   * Makes a finished partial file the file of command `uuid`: renamed into place, then indexed.
   * When the index write fails the bytes are removed again, so nothing is half-kept.
   */
  async commit(entry: FileEntry, partial: string): Promise<void> {
    const type = fileType(entry.type);
    const target = this.pathOf(entry.uuid, type);
    await rename(partial, target);
    try {
      await this.store.run(
        `INSERT INTO files (uuid, serial, type, created, content) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (uuid) DO UPDATE SET serial = excluded.serial, type = excluded.type, created = excluded.created, content = excluded.content`,
        [entry.uuid, entry.serialNumber, type, entry.created, blobValue(new Uint8Array())],
      );
    } catch (e) {
      await rm(target, { force: true });
      throw e;
    }
  }

  /** Stores (or replaces) the file of a command from bytes in memory. */
  async put(file: StoredFile): Promise<void> {
    const partial = `${this.partialPath(file.uuid)}.put`;
    await writeFile(partial, file.content);
    await this.commit({ uuid: file.uuid, serialNumber: file.serialNumber, type: fileType(file.type), created: file.created, size: file.content.length }, partial);
  }

  /** The index row of command `uuid`'s file if it belongs to `serial` and its bytes are there. */
  async entry(uuid: string, serial: string): Promise<(FileEntry & { path: string }) | undefined> {
    const rows = await this.store.query<{ uuid: string; serial: string; type: string; created: number }>(
      'SELECT uuid, serial, type, created FROM files WHERE uuid = $1 AND serial = $2', [uuid, serial],
    );
    const r = rows[0];
    if (!r) return undefined;
    const type = fileType(r.type);
    const path = this.pathOf(r.uuid, type);
    const size = sizeOf(path);
    return size === undefined ? undefined : { uuid: r.uuid, serialNumber: r.serial, type, created: Number(r.created), size, path };
  }

  /** The file of command `uuid` if it belongs to `serial`. */
  async get(uuid: string, serial: string): Promise<StoredFile | undefined> {
    const e = await this.entry(uuid, serial);
    if (!e) return undefined;
    const content = await readFile(e.path).catch(() => undefined);
    return content ? { uuid: e.uuid, serialNumber: e.serialNumber, type: e.type, created: e.created, content } : undefined;
  }

  /** Deletes the file of command `uuid` if it belongs to `serial`; false when there was none. */
  async delete(uuid: string, serial: string): Promise<boolean> {
    const e = await this.store.query<{ type: string }>('SELECT type FROM files WHERE uuid = $1 AND serial = $2', [uuid, serial]);
    const deleted = (await this.store.run('DELETE FROM files WHERE uuid = $1 AND serial = $2', [uuid, serial])) > 0;
    if (e[0]) await rm(this.pathOf(uuid, fileType(e[0].type)), { force: true });
    return deleted;
  }

  /**
   * Applies the retention limits (oldest first: older than maxAgeS, then until the total fits)
   * and removes leftovers: partial files no upload is writing (`busy` names the ones that are)
   * and bytes without an index row. Returns how many files it removed.
   */
  async prune(limits: FileRetention, nowS: number, busy: ReadonlySet<string> = new Set()): Promise<number> {
    const rows = await this.store.query<{ uuid: string; type: string; created: number }>('SELECT uuid, type, created FROM files ORDER BY created, uuid');
    const indexed = new Set<string>();
    const live: { uuid: string; path: string; created: number; size: number }[] = [];
    for (const r of rows) {
      const path = this.pathOf(r.uuid, fileType(r.type));
      indexed.add(path);
      live.push({ uuid: r.uuid, path, created: Number(r.created), size: sizeOf(path) ?? 0 });
    }
    let total = live.reduce((s, f) => s + f.size, 0);
    let removed = 0;
    for (const f of live) {
      if (f.created >= nowS - limits.maxAgeS && total <= limits.maxTotalBytes) break;
      await this.store.run('DELETE FROM files WHERE uuid = $1', [f.uuid]);
      await rm(f.path, { force: true });
      total -= f.size;
      removed++;
    }
    // Bytes renamed into place after the SELECT above are not orphans: only older ones are.
    const settled = Date.now() - 60_000;
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (name !== TMP && !indexed.has(path) && (mtimeOf(path) ?? 0) < settled) {
        await rm(path, { force: true });
        removed++;
      }
    }
    for (const name of readdirSync(join(this.dir, TMP))) {
      if (!busy.has(join(this.dir, TMP, name))) await rm(join(this.dir, TMP, name), { force: true });
    }
    return removed;
  }
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
