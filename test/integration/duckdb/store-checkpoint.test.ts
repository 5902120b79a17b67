import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VARCHAR } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { DUCKDB_THREADS, Store } from '../../../src/store/duckdb.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { until } from '../../helpers/until.js';

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
      expect(s).toEqual({ threads: Number(DUCKDB_THREADS), memory: expect.stringMatching(/^(488\.2 MiB|512\.0 MB)$/), checkpoint: expect.stringMatching(/^(30\.5 MiB|32\.0 MB)$/) });
    } finally {
      await store.close();
    }
  });
});

describe('Store: checkpoints', () => {
  it('keeps the WAL a restart replays bounded under sustained ingest, and checkpoints on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const store = await Store.open(dir);
    const { appender: a, close } = await store.appender('statistics');
    const doc = JSON.stringify({ unit: { load: [0.1, 0.2, 0.3] }, pad: 'x'.repeat(8000) });
    const wal = join(dir, 'airtwin.duckdb.wal');
    const walSize = () => (existsSync(wal) ? statSync(wal).size : 0);
    // ~80 MB of state documents, committed every 500 rows (~4 MB) as the ingest does.
    let largest = 0;
    let shrank = 0;
    for (let i = 1; i <= 10_000; i++) {
      a.appendDouble(i);
      a.appendVarchar('aabbccddeeff');
      a.appendDouble(1);
      a.appendVarchar(doc);
      a.appendDouble(1_700_000_000 + i);
      a.endRow();
      if (i % 500 === 0) {
        const before = walSize();
        a.flushSync();
        const after = walSize();
        if (after < before) shrank++;
        largest = Math.max(largest, after);
      }
    }
    close();
    // Checkpointed as it went (32 MB of WAL): what a start after kill -9 replays stays near that.
    expect(shrank).toBeGreaterThanOrEqual(2);
    expect(largest).toBeLessThan(32e6 + 2 * 4.5e6);
    expect(await store.query('SELECT count(*)::DOUBLE AS n FROM statistics')).toEqual([{ n: 10_000 }]);
    await store.close();
    const reopened = await Store.open(dir);
    expect(await reopened.query('SELECT count(*)::DOUBLE AS n FROM statistics')).toEqual([{ n: 10_000 }]);
    await reopened.close();
    expect(existsSync(wal)).toBe(false); // close checkpointed the WAL into the file
  });

  it('has no ART index on the ingest tables, whose checkpoints then cost the same however large they grow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const store = await Store.open(dir);
    try {
      const tables = `('statistics', 'health_checks', 'device_logs')`;
      expect(await store.query(`SELECT index_name FROM duckdb_indexes() WHERE table_name IN ${tables}`)).toEqual([]);
      expect(await store.query(`SELECT table_name FROM duckdb_constraints() WHERE table_name IN ${tables} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('keeps the rows and ids of a data dir made before the indexes went (migration 5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const old = await Store.open(dir, MIGRATIONS.filter((m) => m.version < 5));
    await old.run(`INSERT INTO statistics (serial, uuid, data, recorded) VALUES ('aabbccddeeff', 1, '{"a":1}', 10), ('aabbccddeeff', 1, '{"a":2}', 20)`);
    await old.run(`INSERT INTO health_checks (serial, uuid, data, sanity, recorded) VALUES ('aabbccddeeff', 1, '{}', 100, 10)`);
    await old.run(`INSERT INTO device_logs (serial, log, data, severity, recorded, log_type, uuid) VALUES ('aabbccddeeff', 'l', '{}', 6, 10, 0, 1)`);
    await old.close();
    const store = await Store.open(dir);
    try {
      expect(await store.query('SELECT id::DOUBLE AS id, data FROM statistics ORDER BY id')).toEqual([{ id: 1, data: '{"a":1}' }, { id: 2, data: '{"a":2}' }]);
      expect(await store.query('SELECT count(*)::DOUBLE AS n FROM health_checks')).toEqual([{ n: 1 }]);
      expect(await store.query('SELECT log FROM device_logs')).toEqual([{ log: 'l' }]);
      // New rows go on from the same sequences.
      await store.run(`INSERT INTO statistics (serial, uuid, data, recorded) VALUES ('aabbccddeeff', 1, '{}', 30)`);
      expect(await store.query('SELECT max(id)::DOUBLE AS id FROM statistics')).toEqual([{ id: 3 }]);
    } finally {
      await store.close();
    }
  });

  it('checkpoints at once the WAL a killed process left, so a crash loop does not replay it at every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const wal = join(dir, 'airtwin.duckdb.wal');
    const script = `
      import { Store } from ${JSON.stringify(new URL('../../../src/store/duckdb.ts', import.meta.url).pathname)};
      const store = await Store.open(${JSON.stringify(dir)}, undefined, { checkpointEveryMs: 0 });
      for (let i = 0; i < 100; i++) await store.run("INSERT INTO blacklist VALUES ('s" + i + "', 'r', 'a', 1)");
      process.kill(process.pid, 'SIGKILL');`;
    const killed = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(statSync(wal).size).toBeGreaterThan(0);
    return (async () => {
      // A period far longer than the test: only the checkpoint at open can empty the WAL.
      const store = await Store.open(dir, MIGRATIONS, { checkpointEveryMs: 3_600_000 });
      try {
        await until('the checkpoint at open', async () => (existsSync(wal) ? statSync(wal).size : 0), (n) => n === 0);
        expect(await store.query('SELECT count(*)::DOUBLE AS n FROM blacklist')).toEqual([{ n: 100 }]);
      } finally {
        await store.close();
      }
    })();
  }, 30_000);

  it('checkpoints a WAL of many small transactions on its own, so a start after a crash replays few', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-store-'));
    dirs.push(dir);
    const wal = join(dir, 'airtwin.duckdb.wal');
    const walSize = async () => (existsSync(wal) ? statSync(wal).size : 0);
    const store = await Store.open(dir, MIGRATIONS, { checkpointEveryMs: 50 });
    try {
      // API writes: one transaction each, a few hundred bytes, far below the size threshold.
      for (let i = 0; i < 200; i++) await store.run(`INSERT INTO blacklist VALUES ($1, 'r', 'a', 1)`, [`s${i}`]);
      await until('the periodic checkpoint', walSize, (n) => n === 0);
      await store.run(`INSERT INTO blacklist VALUES ('late', 'r', 'a', 1)`);
      expect(await walSize()).toBeGreaterThan(0);
      await until('the next periodic checkpoint', walSize, (n) => n === 0);
    } finally {
      await store.close();
    }
    const reopened = await Store.open(dir);
    expect(await reopened.query('SELECT count(*)::DOUBLE AS n FROM blacklist')).toEqual([{ n: 201 }]);
    await reopened.close();
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
