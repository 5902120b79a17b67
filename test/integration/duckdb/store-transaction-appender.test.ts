import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/duckdb.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-txappender-'));
  dirs.push(dir);
  const store = await Store.open(dir);
  stores.push(store);
  return store;
}

const logs = async (store: Store) => (await store.query<{ log: string }>('SELECT log FROM device_logs ORDER BY id')).map((r) => r.log);

function appendLog(a: { appendDouble(v: number): void; appendVarchar(v: string): void; endRow(): void }, id: number, log: string): void {
  a.appendDouble(id);
  a.appendVarchar('aabbccddeeff');
  a.appendVarchar(log);
  a.appendVarchar('{}');
  a.appendDouble(6);
  a.appendDouble(1_700_000_000);
  a.appendDouble(0);
  a.appendDouble(1);
  a.endRow();
}

describe('Store.transactionAppender', () => {
  it('keeps flushed rows out of the table until commit, then writes them all', async () => {
    const store = await open();
    const t = await store.transactionAppender('device_logs');
    await t.begin();
    appendLog(t.appender, 1, 'one');
    appendLog(t.appender, 2, 'two');
    t.appender.flushSync();
    expect(await logs(store)).toEqual([]); // another connection does not see an uncommitted batch
    await t.commit();
    expect(await logs(store)).toEqual(['one', 'two']);
    // The next batch is a transaction of its own.
    await t.begin();
    appendLog(t.appender, 3, 'three');
    t.appender.flushSync();
    await t.commit();
    expect(await logs(store)).toEqual(['one', 'two', 'three']);
    t.close();
  });

  it('discards a batch whose connection closes before its commit', async () => {
    const store = await open();
    const t = await store.transactionAppender('device_logs');
    await t.begin();
    appendLog(t.appender, 1, 'lost');
    t.appender.flushSync();
    t.close();
    expect(await logs(store)).toEqual([]);
  });

  it('rejects a batch that breaks a constraint at flush, and the table stays as it was', async () => {
    const store = await open();
    const t = await store.transactionAppender('device_logs');
    await t.begin();
    appendLog(t.appender, 7, 'first');
    t.appender.flushSync();
    await t.commit();
    const u = await store.transactionAppender('device_logs');
    await u.begin();
    appendLog(u.appender, 7, 'same id');
    let failed = false;
    try {
      u.appender.flushSync();
      await u.commit();
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    try {
      u.close();
    } catch {
      u.appender.connection.closeSync();
    }
    expect(await logs(store)).toEqual(['first']);
    t.close();
  });
});
