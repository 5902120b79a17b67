import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/duckdb.js';
import { FilesRepo } from '../../../src/store/files-repo.js';

const SERIAL = 'a0b1c2000001';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NOW = 1_800_000_000;

describe('FilesRepo retention (real DuckDB file, real files)', () => {
  let dir: string;
  let store: Store;
  let files: FilesRepo;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airtwin-files-'));
    store = await Store.open(dir);
    files = new FilesRepo(store, join(dir, 'uploads'));
    // Four files of 100 bytes, one a day from 4 days ago.
    for (let i = 1; i <= 4; i++) await files.put({ uuid: uuid(i), serialNumber: SERIAL, type: 'pcap', created: NOW - (5 - i) * 86_400, content: Buffer.alloc(100, i) });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kept = async () => {
    const out: number[] = [];
    for (let i = 1; i <= 4; i++) if (await files.get(uuid(i), SERIAL)) out.push(i);
    return out;
  };

  it('removes files older than the age limit, oldest first', async () => {
    expect(await files.prune({ maxAgeS: 2.5 * 86_400, maxTotalBytes: 1e9 }, NOW)).toBe(2);
    expect(await kept()).toEqual([3, 4]);
  });

  it('removes the oldest until all fit in the total size', async () => {
    expect(await files.prune({ maxAgeS: 30 * 86_400, maxTotalBytes: 250 }, NOW)).toBe(2);
    expect(await kept()).toEqual([3, 4]);
    expect(readdirSync(join(dir, 'uploads')).sort()).toEqual(['.partial', `${uuid(3)}.pcap`, `${uuid(4)}.pcap`]);
  });

  it('removes leftovers: partial files no upload writes, and settled bytes without an index row', async () => {
    const busy = join(dir, 'uploads', '.partial', uuid(8));
    writeFileSync(busy, 'in progress');
    writeFileSync(join(dir, 'uploads', '.partial', uuid(9)), 'left by a crash');
    const orphan = join(dir, 'uploads', `${uuid(7)}.pcap`);
    writeFileSync(orphan, 'row gone with its command');
    utimesSync(orphan, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    writeFileSync(join(dir, 'uploads', `${uuid(6)}.pcap`), 'renamed into place a moment ago');
    await files.prune({ maxAgeS: 30 * 86_400, maxTotalBytes: 1e9 }, NOW, new Set([busy]));
    expect(readdirSync(join(dir, 'uploads', '.partial'))).toEqual([uuid(8)]);
    expect(readdirSync(join(dir, 'uploads')).filter((n) => n.startsWith(uuid(6)) || n.startsWith(uuid(7)))).toEqual([`${uuid(6)}.pcap`]);
    expect(await kept()).toEqual([1, 2, 3, 4]);
  });

  it('a file survives a reopen of the store', async () => {
    await store.close();
    store = await Store.open(dir);
    files = new FilesRepo(store, join(dir, 'uploads'));
    expect((await files.get(uuid(2), SERIAL))?.content.equals(Buffer.alloc(100, 2))).toBe(true);
    expect(await files.delete(uuid(2), SERIAL)).toBe(true);
    expect(readdirSync(join(dir, 'uploads'))).not.toContain(`${uuid(2)}.pcap`);
  });
});
