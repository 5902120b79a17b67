import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Fleet, type FleetEvent } from '../../../actors/fleet.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { clockScheduler } from '../../../src/pipelines/clock-scheduler.js';
import type { PipelineLogger } from '../../../src/pipelines/duckdb-sink.js';
import { startIngest, type IngestOptions } from '../../../src/pipelines/ingest.js';
import { chunkType } from '../../../src/pipelines/row-chunks.js';
import { chunkWriter, type OpenTableWriter } from '../../../src/pipelines/table-writer.js';
import { TABLES, type TableName } from '../../../src/pipelines/tables.js';
import { Store } from '../../../src/store/duckdb.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { labFleet } from '../../helpers/lab-fleet.js';

/** Collects log calls so tests can assert that failures are reported, not silent. */
function recordingLogger() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const logger: PipelineLogger = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { logger, lines };
}

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openStore(dir?: string): Promise<{ store: Store; dir: string }> {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'airtwin-ingest-'));
  if (!dir) dirs.push(d);
  const store = await Store.open(d);
  stores.push(store);
  return { store, dir: d };
}

const count = async (store: Store, table: string, where = ''): Promise<number> =>
  (await store.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} ${where}`))[0]!.n;

/** The lab venue on a VirtualClock: real device actors on SimLinks, the ingest on the same clock. */
async function lab(ingestOpts: Partial<IngestOptions> = {}) {
  const { store, dir } = await openStore();
  const log = recordingLogger();
  let ingest!: ReturnType<typeof startIngest>;
  const { clock, fleet, events, svc, advance, settle, serials } = labFleet({
    // Subscribed before any AP connects, as serve does.
    beforeAttach: (f, c) => { ingest = startIngest({ events$: f.events$, store, scheduler: clockScheduler(c), logger: log.logger, ...ingestOpts }); },
  });
  return { store, dir, clock, fleet, events, ingest, svc, advance, settle, log, serials };
}

const of = <T extends FleetEvent['type']>(events: FleetEvent[], type: T) => events.filter((e): e is Extract<FleetEvent, { type: T }> => e.type === type);

describe('ingest pipeline: fleet events -> DuckDB', () => {
  it('turns what the lab APs report into rows of every table', async () => {
    const { store, events, ingest, advance, settle, svc, serials } = await lab();
    await advance(60_000);
    const scan = await settle(svc.wifiscan(serials[0]!, {}));
    await settle(svc.telemetry(serials[1]!, { interval: 2, lifetime: 10 }));
    await advance(20_000);
    await ingest.flush();

    const states = of(events, 'state');
    expect(states.length).toBeGreaterThanOrEqual(15);
    expect(await count(store, 'statistics')).toBe(states.length);
    const radios = states.reduce((s, e) => s + (e.payload.state.radios as unknown[]).length, 0);
    expect(await count(store, 'state_radios')).toBe(radios);
    const assocs = states.reduce((s, e) => s + (e.payload.state.interfaces as { ssids: { associations: unknown[] }[] }[])
      .flatMap((i) => i.ssids).reduce((k, ssid) => k + ssid.associations.length, 0), 0);
    expect(assocs).toBeGreaterThan(0);
    expect(await count(store, 'state_associations')).toBe(assocs);
    expect(await count(store, 'health_checks')).toBe(of(events, 'healthcheck').length);
    expect(await count(store, 'device_logs')).toBe(of(events, 'log').length + of(events, 'crashlog').length);
    expect(await count(store, 'device_events')).toBe(of(events, 'event').length + of(events, 'alarm').length);
    expect(await count(store, 'capabilities')).toBe(3);
    const scanRows = await count(store, 'wifi_scan_entries', `WHERE source = 'command' AND command_uuid = '${scan.UUID}'`);
    expect(scanRows).toBe(of(events, 'wifiscan-result')[0]!.payload.entries.length);
    expect(scanRows).toBeGreaterThan(0);
    const telemetry = of(events, 'telemetry');
    expect(telemetry.length).toBeGreaterThan(0);
    expect(await count(store, 'telemetry')).toBe(telemetry.length);

    // The stored document is the one the AP sent, and the extracted columns match it.
    const last = states.at(-1)!;
    const [stat] = await store.query<{ data: string; uuid: number; recorded: number }>(
      `SELECT data, uuid, recorded FROM statistics WHERE serial = $1 ORDER BY recorded DESC, id DESC LIMIT 1`, [last.serial]);
    expect(JSON.parse(stat!.data)).toEqual(last.payload.state);
    expect(stat).toMatchObject({ uuid: last.payload.uuid, recorded: Math.floor(last.at / 1000) });
    const radio0 = (last.payload.state.radios as Record<string, any>[])[0]!;
    const [row] = await store.query(`SELECT * FROM state_radios WHERE serial = $1 AND recorded = $2 AND radio = 0`, [last.serial, stat!.recorded]);
    expect(row).toMatchObject({
      band: radio0.band[0], channel: radio0.channel, channel_width: radio0.channel_width, tx_power: radio0.tx_power,
      frequency: radio0.frequency[0], noise: radio0.survey[0].noise, chan_util: radio0.chanUtil, busy_ms: radio0.survey[0].busy,
    });
    const [assoc] = await store.query(`SELECT rssi, station, rx_rate, bssid FROM state_associations WHERE rssi IS NOT NULL LIMIT 1`);
    expect(assoc!.rssi).toBeLessThan(0);
    expect(assoc!.station).toMatch(/^[0-9a-f:]{17}$/);
    expect(assoc!.rx_rate).toBeGreaterThan(0);

    const m = ingest.metrics();
    expect(m).toMatchObject({ rowsQueued: 0, failures: 0, rowsRejected: 0, oddDocuments: 0 });
    expect(m.rowsWritten).toBe(Object.values(m.rowsByTable).reduce((a, b) => a + b, 0));
    expect(m.batchesWritten).toBeGreaterThan(0);
    await ingest.close();
  });

  it('keeps capabilities first_update across reconnects (upsert)', async () => {
    const { store, ingest, advance, settle, svc, serials } = await lab();
    await advance(30_000);
    await ingest.flush();
    const [before] = await store.query<{ first_update: number; last_update: number }>('SELECT * FROM capabilities WHERE serial = $1', [serials[1]!]);
    await settle(svc.reboot(serials[1]!));
    await advance(180_000);
    await ingest.flush();
    const [after] = await store.query<{ first_update: number; last_update: number }>('SELECT * FROM capabilities WHERE serial = $1', [serials[1]!]);
    expect(after!.first_update).toBe(before!.first_update);
    expect(after!.last_update).toBeGreaterThan(before!.last_update);
    await ingest.close();
  });

  it('loses nothing on shutdown: rows still batched at close are in DuckDB after it', async () => {
    // Limits so large that nothing is written before the shutdown.
    const { store, dir, events, fleet, ingest, advance } = await lab({ maxRows: 1_000_000, maxDelayMs: 3_600_000 });
    await advance(45_000);
    const states = of(events, 'state').length;
    expect(states).toBeGreaterThan(5);
    expect(await count(store, 'statistics')).toBe(0);
    expect(ingest.metrics().rowsQueued).toBeGreaterThan(states);

    // SIGTERM order: stop the fleet, close the ingest, close the store; then read the file again.
    fleet.stopAll();
    await ingest.close();
    await store.close();
    const { store: reopened } = await openStore(dir);
    expect(await count(reopened, 'statistics')).toBe(states);
    expect(await count(reopened, 'health_checks')).toBe(of(events, 'healthcheck').length);
    expect(ingest.metrics().rowsQueued).toBe(0);
  });
});

describe('ingest pipeline: odd input and failing writes', () => {
  const A = 'aabbccddeeff';

  async function fakeDevice(opts: Partial<IngestOptions> = {}) {
    const { store } = await openStore();
    const clock = new VirtualClock(1_700_000_000_000);
    const fleet = new Fleet({ clock, newId: () => 'id' });
    const log = recordingLogger();
    const ingest = startIngest({ events$: fleet.events$, store, scheduler: clockScheduler(clock), logger: log.logger, maxDelayMs: 100, ...opts });
    const link = new FakeLink(A, () => clock.now());
    fleet.attach(link);
    link.up();
    link.connect();
    await flush();
    return { store, clock, fleet, link, ingest, log };
  }

  it('stores a state as the text its link parsed it from, carried on the frame event, and serialises one that came without', async () => {
    const { store, link, ingest } = await fakeDevice();
    const state = (n: number) => ({ jsonrpc: '2.0', method: 'state', params: { serial: A, uuid: 1, state: { unit: { uptime: n } } } });
    // Spaces no serialiser writes: what is stored can only be the text the event carried.
    link.frame(state(1), '{ "unit": { "uptime": 1 } }');
    link.frame(state(2), new TextEncoder().encode('{ "unit": {"uptime":2} }'));
    link.frame(state(3));
    await ingest.flush();
    expect((await store.query<{ data: string }>('SELECT data FROM statistics ORDER BY id')).map((r) => r.data))
      .toEqual(['{ "unit": { "uptime": 1 } }', '{ "unit": {"uptime":2} }', '{"unit":{"uptime":3}}']);
    await ingest.close();
  });

  it('counts an odd state document, stores it anyway and keeps going', async () => {
    const { store, link, ingest, log } = await fakeDevice();
    link.notify('state', {
      uuid: 1,
      state: {
        radios: 'not-a-list',
        interfaces: [{ ssids: [{ ssid: 'x', associations: [{ rssi: -50 }, { station: '11:22:33:44:55:66', rssi: 4294967246, rx_rate: 'fast' }] }] }],
      },
    });
    link.notify('state', { uuid: 1, state: { radios: [{ phy: 'p', channel: 6, channel_width: '80p80', tx_power: 20, noise: 4294967193 }] } });
    await ingest.flush();
    expect(await count(store, 'statistics')).toBe(2);
    const [assoc] = await store.query(`SELECT station, rssi, rx_rate FROM state_associations`);
    expect(assoc).toEqual({ station: '11:22:33:44:55:66', rssi: -50, rx_rate: null });
    const [radio] = await store.query(`SELECT band, channel_width, noise FROM state_radios`);
    expect(radio).toEqual({ band: '2G', channel_width: 160, noise: -103 });
    expect(ingest.metrics()).toMatchObject({ oddDocuments: 1, unmappable: 0, rowsQueued: 0 });
    expect(log.lines.some((l) => l.level === 'warn' && /odd/.test(l.msg))).toBe(true);
    await ingest.close();
  });

  it('stores null for a number an INTEGER column cannot hold, without failing or retrying the batch', async () => {
    const { store, link, ingest } = await fakeDevice();
    link.notify('state', {
      uuid: 1,
      state: {
        radios: [{ phy: 'p', channel: 5e9, channel_width: 2 ** 31, frequency: [2147483647.6], tx_power: 20 }],
        interfaces: [{ ssids: [{ ssid: 'x', radio: { $ref: '#/radios/99999999999' }, associations: [{ station: '11:22:33:44:55:66', rssi: -50 }] }] }],
      },
    });
    link.notify('wifiscan', { data: [{ bssid: 'aa:bb:cc:dd:ee:ff', channel: 2 ** 40, frequency: 2412, capability: -(2 ** 32), sta_count: 3, ch_util: 1e12 }] });
    await ingest.flush();
    expect(await store.query('SELECT channel, channel_width, frequency, tx_power FROM state_radios')).toEqual([
      { channel: null, channel_width: null, frequency: null, tx_power: 20 },
    ]);
    expect(await store.query('SELECT radio, station FROM state_associations')).toEqual([{ radio: null, station: '11:22:33:44:55:66' }]);
    expect(await store.query('SELECT channel, frequency, capability, sta_count, ch_util FROM wifi_scan_entries')).toEqual([
      { channel: null, frequency: 2412, capability: null, sta_count: 3, ch_util: null },
    ]);
    expect(ingest.metrics()).toMatchObject({ failures: 0, retries: 0, rowsRejected: 0, rowsQueued: 0 });
    await ingest.close();
  });

  /**
   * A fake AP on a VirtualClock whose inserters pass through `faults`, to drive the sink's retry
   * paths against real DuckDB: `before` fails a statement before it runs; `value` sees each text
   * value as DuckDB's chunk holds it and `end` the last call of a statement, both inside the
   * statement (what they throw fails it, and DuckDB rolls back the rows it had, as for a commit
   * that fails).
   */
  async function faulty(
    faults: { before?: (table: string) => void; value?: (table: string, v: string) => void; end?: (table: string) => void },
    retry = { attempts: 5, firstDelayMs: 1000 },
    extra: Partial<IngestOptions> = {},
  ) {
    const dev = await openStore();
    const opened: string[] = [];
    const openWriter: OpenTableWriter = async (table: TableName) => {
      const h = await dev.store.tableInserter(TABLES[table].name, TABLES[table].columns.map(([c, k]) => [c, chunkType(k)] as const));
      opened.push(table);
      return chunkWriter(table, {
        close: () => h.close(),
        insert: async (fill) => {
          faults.before?.(table);
          await h.insert((chunk) => {
            const n = fill(chunk);
            for (let c = 0; c < chunk.columnCount; c++) for (const v of chunk.getColumnValues(c)) if (typeof v === 'string') faults.value?.(table, v);
            if (n === 0) faults.end?.(table);
            return n;
          });
        },
      });
    };
    const clock = new VirtualClock(1_700_000_000_000);
    const fleet = new Fleet({ clock, newId: () => 'id' });
    const log = recordingLogger();
    const ingest = startIngest({
      events$: fleet.events$, store: dev.store, scheduler: clockScheduler(clock), logger: log.logger, maxDelayMs: 100,
      retry, openWriter, ...extra,
    });
    const link = new FakeLink(A, () => clock.now());
    fleet.attach(link);
    link.up();
    link.connect();
    await flush();
    /** flush(), stepping the virtual clock through the retry waits. */
    const flushAll = async () => {
      let done = false;
      void ingest.flush().then(() => { done = true; });
      for (let i = 0; i < 5_000 && !done; i++) {
        const next = clock.nextAt();
        if (next !== undefined) clock.runUntil(next);
        // DuckDB works on libuv's thread pool: give its callbacks a turn (a poll, not a timed wait).
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(done).toBe(true);
    };
    return { store: dev.store, link, ingest, log, opened, flushAll, clock };
  }

  it('logs, counts and retries a failed write without losing or duplicating rows', async () => {
    let failuresLeft = 2;
    const { store, link, ingest, log, opened, flushAll } = await faulty({
      before: (table) => {
        if (table === 'statistics' && failuresLeft-- > 0) throw new Error('disk hiccup');
      },
    });
    for (let i = 0; i < 3; i++) link.notify('state', { uuid: 1, state: { unit: { uptime: i } } });
    await flushAll();
    expect(await count(store, 'statistics')).toBe(3);
    expect(ingest.metrics()).toMatchObject({ failures: 2, retries: 2, rowsRejected: 0, rowsQueued: 0 });
    expect(opened.filter((t) => t === 'statistics')).toHaveLength(1); // the same writer retries: a failed statement leaves nothing behind
    expect(log.lines.filter((l) => l.level === 'warn' && /retrying/.test(l.msg))).toHaveLength(2);
    await ingest.close();
  });

  it('retries a statement that failed after all its rows (as a failed commit does) on a fresh inserter: each row lands once', async () => {
    let failuresLeft = 2;
    const { store, link, ingest, log, opened, flushAll } = await faulty({
      end: (table) => {
        if (table === 'statistics' && failuresLeft-- > 0) throw new Error('disk full');
      },
    });
    for (let i = 0; i < 3; i++) link.notify('state', { uuid: 1, state: { unit: { uptime: i } } });
    await flushAll();
    expect(await count(store, 'statistics')).toBe(3);
    expect(ingest.metrics()).toMatchObject({ failures: 2, retries: 2, rowsRejected: 0, rowsQueued: 0 });
    expect(opened.filter((t) => t === 'statistics')).toHaveLength(1);
    expect(log.lines.filter((l) => l.level === 'warn' && /retrying/.test(l.msg))).toHaveLength(2);
    await ingest.close();
  });

  it('holds rows while the disk is full, bounded and counted, and writes them once it has room (#33 point 10)', async () => {
    let full = true;
    const { store, link, ingest, log, flushAll, clock } = await faulty({
      before: (table) => {
        if (table === 'device_logs' && full) throw new Error('TransactionContext Error: Failed to commit: Could not write file "x.wal": No space left on device');
      },
    }, { attempts: 2, firstDelayMs: 10 }, { maxHeldRows: 4 });
    // Held: the capabilities of the connect and two logs.
    link.notify('log', { log: 'held-1', severity: 6 });
    link.notify('log', { log: 'held-2', severity: 6 });
    // Far past the retries a refusal of another kind gets: rows are held, never rejected.
    for (let i = 0; i < 20 && !ingest.metrics().diskFull; i++) await flushSome();
    expect(ingest.metrics()).toMatchObject({ diskFull: true, rowsHeld: 3, rowsRejected: 0 });
    await flushSome(40);
    expect(ingest.metrics()).toMatchObject({ diskFull: true, rowsHeld: 3, rowsRejected: 0, rowsDropped: 0 });
    // The bound (maxHeldRows 4): one more fits, the next are dropped and counted.
    for (let i = 0; i < 4; i++) link.notify('log', { log: `more-${i}`, severity: 6 });
    expect(ingest.metrics()).toMatchObject({ rowsHeld: 4, rowsDropped: 3 });
    expect(log.lines.filter((l) => l.level === 'error' && /disk is full/.test(l.msg))).toHaveLength(1);
    full = false;
    await flushAll();
    const logs = await store.query<{ log: string }>('SELECT log FROM device_logs ORDER BY id');
    expect(logs.map((r) => r.log)).toEqual(['held-1', 'held-2', 'more-0']);
    expect(ingest.metrics()).toMatchObject({ diskFull: false, rowsHeld: 0, rowsRejected: 0, rowsDropped: 3, rowsQueued: 0 });
    await ingest.close();

    /** Steps the virtual clock through `n` pending timers, giving DuckDB's callbacks a turn after each. */
    async function flushSome(n = 1) {
      for (let i = 0; i < n; i++) {
        const next = clock.nextAt();
        if (next !== undefined) clock.runUntil(next);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  });

  it('after the retries of a statement that keeps failing at its end, rejects those rows and stores the next batch', async () => {
    let failing = true;
    const { store, link, ingest, flushAll } = await faulty({
      end: (table) => {
        if (table === 'device_logs' && failing) throw new Error('disk full');
      },
    }, { attempts: 2, firstDelayMs: 10 });
    link.notify('log', { log: 'lost-1', severity: 6 });
    link.notify('log', { log: 'lost-2', severity: 6 });
    await flushAll();
    expect(ingest.metrics()).toMatchObject({ rowsRejected: 2, rowsQueued: 0 });
    failing = false;
    link.notify('log', { log: 'after', severity: 6 });
    await flushAll();
    const logs = await store.query<{ log: string }>('SELECT log FROM device_logs ORDER BY id');
    expect(logs.map((r) => r.log)).toEqual(['after']);
    await ingest.close();
  });

  it('writes a batch holding a value DuckDB cannot store row by row at once, with no retry waits', async () => {
    const { store, link, ingest, log, flushAll } = await faulty({});
    const event = (timestamp: number) => ({ data: { event: [timestamp, { type: 'wifi.start', payload: {} }] } });
    link.notify('event', event(90));
    // A finite JSON number out of BIGINT's range (inside the AP's own data): every try would fail the same way.
    link.notify('event', event(1e300));
    link.notify('event', event(100));
    await flushAll();
    const rows = await store.query<{ timestamp: number }>('SELECT timestamp FROM device_events ORDER BY timestamp');
    expect(rows.map((r) => Number(r.timestamp))).toEqual([90, 100]);
    expect(ingest.metrics()).toMatchObject({ retries: 0, rowsRejected: 1, rowsQueued: 0 });
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['ingest: a value of the batch cannot be stored; writing its rows one by one']);
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({ obj: expect.objectContaining({ table: 'device_events', serial: A }) }),
    ]);
    await ingest.close();
  });

  it('after the retries, writes the rows one by one and rejects only the unstorable one, loudly', async () => {
    const { store, link, ingest, log, opened, flushAll } = await faulty({
      value: (table, v) => {
        if (table === 'device_logs' && v === 'poison') throw new Error('value refused');
      },
    }, { attempts: 2, firstDelayMs: 10 });
    link.notify('log', { log: 'before', severity: 6 });
    link.notify('log', { log: 'poison', severity: 3 });
    link.notify('log', { log: 'after', severity: 6 });
    link.notify('healthcheck', { uuid: 1, sanity: 100, data: {} });
    await flushAll();
    const logs = await store.query<{ log: string }>('SELECT log FROM device_logs ORDER BY id');
    expect(logs.map((r) => r.log)).toEqual(['before', 'after']);
    expect(await count(store, 'health_checks')).toBe(1);
    expect(ingest.metrics()).toMatchObject({ rowsRejected: 1, rowsQueued: 0 });
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({ obj: expect.objectContaining({ table: 'device_logs', serial: A }) }),
    ]);
    // Failed statements and row-by-row writes reuse the table's inserter: DuckDB keeps every table
    // function registered until it closes, so one per failure would grow without bound.
    expect(opened).toHaveLength(new Set(opened).size);
    const [fns] = await store.query<{ n: number }>(`SELECT count(DISTINCT function_name)::INTEGER AS n FROM duckdb_functions() WHERE function_name LIKE 'airtwin_rows_%'`);
    expect(fns!.n).toBe(opened.length);
    await ingest.close();
  });
});
