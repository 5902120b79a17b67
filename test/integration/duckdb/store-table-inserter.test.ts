import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkType, fillChunk } from '../../../src/pipelines/row-chunks.js';
import { TABLES, type Cell } from '../../../src/pipelines/tables.js';
import { Store } from '../../../src/store/duckdb.js';

/**
 * Store.tableInserter: an INSERT on a pool thread whose rows the event loop writes into DuckDB's
 * chunks when the statement asks for them. All rows of a statement land, or none do.
 */

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir = mkdtempSync(join(tmpdir(), 'airtwin-inserter-'))): Promise<{ store: Store; dir: string }> {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = await Store.open(dir);
  stores.push(store);
  return { store, dir };
}

const spec = TABLES.device_logs;
const kinds = spec.columns.map(([, k]) => k).filter((k) => k !== 'id');
const columns = spec.columns.map(([name, kind]) => [name, chunkType(kind)] as const);
/** device_logs values after the id: serial, log, data, severity, recorded, log_type, uuid. */
const logRow = (log: string, severity = 6): { values: Cell[] } => ({ values: ['aabbccddeeff', log, '{}', severity, 1_700_000_000, 0, 1] });
const logs = async (store: Store) => (await store.query<{ id: number; log: string; severity: number | null }>('SELECT id, log, severity FROM device_logs ORDER BY id'));

/** A fill over `rows` with ids from `firstId`, counting the chunks DuckDB asked for. */
function filler(rows: readonly { values: Cell[] }[], firstId: number, onChunk?: (n: number) => void) {
  const ids = rows.map((_, i) => firstId + i);
  let from = 0;
  return (chunk: { chunk: Parameters<typeof fillChunk>[0] }) => {
    const n = fillChunk(chunk.chunk, kinds, rows, ids, from);
    from += n;
    onChunk?.(n);
    return n;
  };
}

describe('Store.tableInserter', () => {
  it('inserts every row the fill writes, over several chunks', async () => {
    const { store } = await open();
    const ins = await store.tableInserter(spec.name, columns);
    const rows = Array.from({ length: 5000 }, (_, i) => logRow(`line ${i}`, i % 8));
    const chunks: number[] = [];
    await ins.insert(filler(rows, 1, (n) => chunks.push(n)));
    expect(chunks).toEqual([2048, 2048, 904, 0]);
    const got = await logs(store);
    expect(got).toHaveLength(5000);
    expect(got[0]).toEqual({ id: 1, log: 'line 0', severity: 0 });
    expect(got[4999]).toEqual({ id: 5000, log: 'line 4999', severity: 4999 % 8 });
    // The next statement on the same inserter.
    await ins.insert(filler([logRow('more')], 5001));
    expect(await store.query('SELECT count(*)::INTEGER AS n FROM device_logs')).toEqual([{ n: 5001 }]);
    ins.close();
  });

  it('inserts nothing when the fill throws part way, and says why', async () => {
    const { store } = await open();
    const ins = await store.tableInserter(spec.name, columns);
    const rows = Array.from({ length: 3000 }, (_, i) => logRow(`line ${i}`));
    const fill = filler(rows, 1);
    let calls = 0;
    await expect(ins.insert((chunk) => {
      if (++calls === 2) throw new Error('the disk is on fire');
      return fill(chunk);
    })).rejects.toThrow(/the disk is on fire/);
    expect(await logs(store)).toEqual([]);
    ins.close();
  });

  it('rejects a statement that breaks a constraint, and the table stays as it was', async () => {
    const { store } = await open();
    const ins = await store.tableInserter(spec.name, columns);
    await ins.insert(filler([logRow('first')], 7));
    // device_logs.log is NOT NULL: the second row breaks the statement, and the first goes with it.
    const noLog: { values: Cell[] } = { values: ['aabbccddeeff', null, '{}', 6, 1_700_000_000, 0, 1] };
    await expect(ins.insert(filler([logRow('other'), noLog], 6))).rejects.toThrow(/constraint|null/i);
    expect((await logs(store)).map((r) => r.log)).toEqual(['first']);
    // The inserter still works after a failed statement.
    await ins.insert(filler([logRow('after')], 8));
    expect((await logs(store)).map((r) => r.log)).toEqual(['first', 'after']);
    ins.close();
  });

  it('writes nulls, casts doubles to the columns\' types, and rejects a value a column cannot hold as a whole statement', async () => {
    const { store } = await open();
    const radios = TABLES.state_radios;
    const ins = await store.tableInserter(radios.name, radios.columns.map(([name, kind]) => [name, chunkType(kind)] as const));
    const radioKinds = radios.columns.map(([, k]) => k);
    // serial recorded uuid radio phy band channel channel_width frequency tx_power noise chan_util active_ms busy_ms rx_ms tx_ms temperature
    const radio = (channel: number | null, phy: string | null): { values: Cell[] } => ({
      values: ['aabbccddeeff', 1_700_000_000, 9, 0, phy, '5G', channel, 80, 5180, 20.5, -95, null, 2 ** 40, null, null, null, null],
    });
    const fill = (rows: { values: Cell[] }[]) => {
      let from = 0;
      return (chunk: { chunk: Parameters<typeof fillChunk>[0] }) => {
        const n = fillChunk(chunk.chunk, radioKinds, rows, undefined, from);
        from += n;
        return n;
      };
    };
    await ins.insert(fill([radio(36, 'phy0'), radio(null, null)]));
    const got = await store.query('SELECT channel, phy, tx_power, chan_util, active_ms FROM state_radios ORDER BY channel NULLS LAST');
    expect(got).toEqual([
      { channel: 36, phy: 'phy0', tx_power: 20.5, chan_util: null, active_ms: 2 ** 40 },
      { channel: null, phy: null, tx_power: 20.5, chan_util: null, active_ms: 2 ** 40 },
    ]);
    // channel is an INTEGER: 2^40 does not fit, and the row before it does not land either.
    await expect(ins.insert(fill([radio(40, 'ok'), radio(2 ** 40, 'too big')]))).rejects.toThrow();
    expect(await store.query('SELECT count(*)::INTEGER AS n FROM state_radios')).toEqual([{ n: 2 }]);
    ins.close();
  });

  it('runs one insert at a time, refuses one after close, and two inserters write side by side', async () => {
    const { store } = await open();
    const a = await store.tableInserter(spec.name, columns);
    const b = await store.tableInserter(spec.name, columns);
    const first = a.insert(filler([logRow('a1')], 1));
    await expect(a.insert(filler([logRow('a2')], 2))).rejects.toThrow(/one insert at a time/);
    await Promise.all([first, b.insert(filler([logRow('b1')], 3))]);
    expect((await logs(store)).map((r) => r.log)).toEqual(['a1', 'b1']);
    a.close();
    await expect(a.insert(filler([logRow('late')], 4))).rejects.toThrow(/after close/);
    b.close();
  });

  it("the store's close waits for an insert in flight, and refuses new inserters", async () => {
    const { store, dir } = await open();
    const ins = await store.tableInserter(spec.name, columns);
    const rows = Array.from({ length: 10_000 }, (_, i) => logRow(`line ${i}`));
    let inserted = false;
    const inserting = ins.insert(filler(rows, 1)).then(() => { inserted = true; });
    // An inserter closed mid-statement closes its connection once the statement is done.
    ins.close();
    await store.close();
    expect(inserted).toBe(true);
    await inserting;
    await expect(store.tableInserter(spec.name, columns)).rejects.toMatchObject({ code: 'STORE_FAILURE' });
    const { store: reopened } = await open(dir);
    expect(await reopened.query('SELECT count(*)::INTEGER AS n FROM device_logs')).toEqual([{ n: 10_000 }]);
  });
});
