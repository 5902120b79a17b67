import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VARCHAR } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { DUCKDB_THREADS, Store } from '../../../src/store/duckdb.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Store: settings', () => {
  it('opens DuckDB with our memory limit, checkpoint threshold and thread count, not its defaults', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const store = await Store.open(dir);
    try {
      const [s] = await store.query(`SELECT current_setting('threads')::DOUBLE AS threads,
        current_setting('memory_limit') AS memory, current_setting('checkpoint_threshold') AS checkpoint`);
      expect(s).toEqual({ threads: Number(DUCKDB_THREADS), memory: expect.stringMatching(/^(488\.2 MiB|512\.0 MB)$/), checkpoint: expect.stringMatching(/^(122\.0 MiB|128\.0 MB)$/) });
    } finally {
      await store.close();
    }
  });
});

describe('Store: checkpoints', () => {
  it('keeps appending past DuckDB\'s 16 MB default before it checkpoints, and checkpoints on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const store = await Store.open(dir);
    const { appender: a, close } = await store.appender('statistics');
    const doc = JSON.stringify({ unit: { load: [0.1, 0.2, 0.3] }, pad: 'x'.repeat(8000) });
    // ~24 MB of state documents, flushed (committed) every 500 rows as the ingest does.
    for (let i = 1; i <= 3000; i++) {
      a.appendDouble(i);
      a.appendVarchar('aabbccddeeff');
      a.appendDouble(1);
      a.appendVarchar(doc);
      a.appendDouble(1_700_000_000 + i);
      a.endRow();
      if (i % 500 === 0) a.flushSync();
    }
    close();
    const wal = join(dir, 'airtwin.duckdb.wal');
    // Not checkpointed at 16 MB: the WAL holds everything committed since the last checkpoint.
    expect(statSync(wal).size).toBeGreaterThan(20e6);
    expect(await store.query('SELECT count(*)::DOUBLE AS n FROM statistics')).toEqual([{ n: 3000 }]);
    await store.close();
    const reopened = await Store.open(dir);
    expect(await reopened.query('SELECT count(*)::DOUBLE AS n FROM statistics')).toEqual([{ n: 3000 }]);
    await reopened.close();
    expect(() => statSync(wal).size).toThrow(); // close checkpointed the WAL into the file
  });
});

describe('Store: close', () => {
  it('finishes statements queued before close, and refuses later ones with STORE_FAILURE instead of touching closed handles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const store = await Store.open(dir);
    const queued = store.run(`INSERT INTO blacklist VALUES ('aabbccddeeff', 'r', 'a', 1)`);
    const closing = store.close();
    await expect(queued).resolves.toBe(1);
    await expect(store.query('SELECT 1')).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    await expect(store.tableInserter('device_logs', [['log', VARCHAR]])).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    await closing;
    await expect(store.run('SELECT 1')).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    const reopened = await Store.open(dir);
    expect(await reopened.query('SELECT serial FROM blacklist')).toEqual([{ serial: 'aabbccddeeff' }]);
    await reopened.close();
  });
});
