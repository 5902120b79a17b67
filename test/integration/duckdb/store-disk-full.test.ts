/**
 * Issue 33 point 10, the store: a checkpoint that runs out of space invalidates a DuckDB
 * database until the process restarts, so with a full disk the store puts checkpoints off. A
 * commit that cannot write its WAL fails alone, as 507 INSUFFICIENT_STORAGE.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAirtwinError } from '../../../src/errors.js';
import { Store } from '../../../src/store/duckdb.js';
import { smallDisk } from '../../helpers/tmpfs.js';

const disk = smallDisk(40);

describe.skipIf(disk === undefined)('Store on a full disk', () => {
  afterAll(() => disk?.unmount());

  it('refuses writes with INSUFFICIENT_STORAGE, skips its checkpoints, and writes again once there is room', async () => {
    const dir = join(disk!.dir, 'data');
    const store = await Store.open(dir, undefined, { checkpointEveryMs: 50 });
    await store.run('CREATE TABLE t (i INTEGER, s VARCHAR)');
    await store.run("INSERT INTO t SELECT i, repeat('x', 200) FROM range(1000) r(i)");
    disk!.fill();
    let refused: unknown;
    for (let i = 0; i < 50 && refused === undefined; i++) {
      await store.run("INSERT INTO t SELECT i, repeat('y', 2000) FROM range(2000) r(i)").catch((e: unknown) => { refused = e; });
    }
    expect(isAirtwinError(refused) && [refused.code, refused.status]).toEqual(['INSUFFICIENT_STORAGE', 507]);
    expect(store.spaceLow).toBe(true);
    // Ticks of the checkpoint timer pass while the disk is full (each would have invalidated the database).
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 50));
    disk!.free();
    await store.run("INSERT INTO t VALUES (-1, 'after')");
    expect((await store.query<{ n: number }>('SELECT count(*) AS n FROM t'))[0]!.n).toBe(1001);
    await store.close();
    const again = await Store.open(dir, undefined, { checkpointEveryMs: 0 });
    expect((await again.query<{ n: number }>('SELECT count(*) AS n FROM t'))[0]!.n).toBe(1001);
    await again.close();
  });

  it('closes without a checkpoint when the disk is full; the next open replays the WAL', async () => {
    const dir = join(disk!.dir, 'data2');
    const store = await Store.open(dir, undefined, { checkpointEveryMs: 0 });
    await store.run('CREATE TABLE t (i INTEGER)');
    await store.run('INSERT INTO t SELECT * FROM range(100)');
    disk!.fill();
    await store.close();
    disk!.free();
    const again = await Store.open(dir, undefined, { checkpointEveryMs: 0 });
    expect((await again.query<{ n: number }>('SELECT count(*) AS n FROM t'))[0]!.n).toBe(100);
    await again.close();
  });
});
