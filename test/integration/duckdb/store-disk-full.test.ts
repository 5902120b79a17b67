/**
 * Issue 33 point 10, the store: a checkpoint that runs out of space invalidates a DuckDB
 * database until the process restarts, so with a full disk the store puts checkpoints off. A
 * commit that cannot write its WAL fails alone, as 507 INSUFFICIENT_STORAGE.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../simulator/clock.js';
import { isAirtwinError } from '../../../src/errors.js';
import { SPACE_CHECK_MS, Store } from '../../../src/store/duckdb.js';
import { smallDisk } from '../../helpers/tmpfs.js';
import { until } from '../../helpers/until.js';

const disk = smallDisk(40);

describe.skipIf(disk === undefined)('Store on a full disk', () => {
  afterAll(() => disk?.unmount());

  it('refuses writes with INSUFFICIENT_STORAGE, skips its checkpoints, and writes again once there is room', async () => {
    const dir = join(disk!.dir, 'data');
    const clock = new VirtualClock(1_767_600_000_000);
    const store = await Store.open(dir, undefined, { checkpointEveryMs: 50, clock });
    const threshold = async () => (await store.query<{ v: string }>("SELECT current_setting('checkpoint_threshold') AS v"))[0]!.v;
    await store.run('CREATE TABLE t (i INTEGER, s VARCHAR)');
    await store.run("INSERT INTO t SELECT i, repeat('x', 200) FROM range(1000) r(i)");
    disk!.fill();
    let refused: unknown;
    for (let i = 0; i < 50 && refused === undefined; i++) {
      await store.run("INSERT INTO t SELECT i, repeat('y', 2000) FROM range(2000) r(i)").catch((e: unknown) => { refused = e; });
    }
    expect(isAirtwinError(refused) && [refused.code, refused.status]).toEqual(['INSUFFICIENT_STORAGE', 507]);
    expect(store.spaceLow).toBe(true);
    // A free-space check and twenty checkpoint ticks pass while the disk is full: each checkpoint
    // would have invalidated the database, so none ran (the WAL still holds the rows), and
    // DuckDB's own automatic checkpoint is put off.
    clock.increment(SPACE_CHECK_MS);
    expect(statSync(`${store.path}.wal`).size).toBeGreaterThan(0);
    await until('automatic checkpoints put off', threshold, (v) => /T(i)?B$/.test(v));
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
