import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulate } from '../../../src/runtime/simulate.js';
import type { ReplaySummary } from '../../../src/links/replay/replayer.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { Store } from '../../../src/store/duckdb.js';
import { startTestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

describe('serve --record, then serve --replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rr-'));
  const file = join(dir, 'lab.ndjson');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays into a fresh data dir and stores one statistics row per recorded state', async () => {
    let log = '';
    const logs = new PassThrough().on('data', (d: Buffer) => { log += d.toString(); });
    const live = await startTestServer({ sim: true, scenario: 'lab', speed: 'max', record: file, dataDir: join(dir, 'live'), logLevel: 'info' }, { logDestination: logs });
    await until('recorded states', async () => (await live.running.store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n, (n) => n >= 12, 30_000);
    await live.close();

    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // Shutdown says what the recording holds (and would warn about dropped lines).
    const closed = log.split('\n').filter((l) => l.includes('"recording closed"')).map((l) => JSON.parse(l));
    expect(closed).toEqual([expect.objectContaining({ level: 30, lines: lines.length, droppedLines: 0, files: [file] })]);
    const states = lines.filter((l) => l.dir === 'up' && l.frame.method === 'state').length;
    const serials = new Set(lines.map((l) => l.serial));
    expect(states).toBeGreaterThanOrEqual(12);
    expect(serials.size).toBe(3);

    const printed: string[] = [];
    let bar = '';
    // A terminal as cli-progress sees one (it draws nothing on a stream that is not a TTY).
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    terminal.on('data', (d: Buffer) => { bar += d.toString(); });
    const replay = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'replayed') }, { print: (l) => printed.push(l), progress: terminal });
    try {
      const summary = await replay.running.replay!.done;
      expect(summary.rejectedCount).toBe(0);
      expect(summary.dropped).toBe(0);
      // The progress bar went to the terminal and ended full; the summary followed the banner.
      expect(bar).toMatch(/replay \[.*\] 100% \| \d+ frames \| 3 devices/);
      expect(printed).toContainEqual(expect.stringMatching(new RegExp(`^replay: ${summary.frames} frames from 3 devices, .* played in`)));
      expect(printed).toContain('replay: 0 rejected lines');
      await replay.running.ingest.flush();
      const stored = (await replay.running.store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n;
      expect(stored).toBe(states);
      const devices = await replay.gw('GET', '/devices?serialOnly=true');
      expect(new Set(devices.body.serialNumbers)).toEqual(serials);
      // The recording was placed to end when the replay started, and the clock then caught up
      // with the wall: no row is dated after now, and the service's time is the wall's.
      const [newest] = await replay.running.store.query<{ t: number }>('SELECT max(recorded)::DOUBLE AS t FROM statistics');
      expect(newest!.t * 1000).toBeLessThanOrEqual(Date.now());
      await until('the clock at the wall\'s time', async () => replay.running.clock.now() - Date.now(), (d) => Math.abs(d) < 1_000, 10_000);
    } finally {
      await replay.close();
    }
  }, 60_000);

  it('finds the same rows in DuckDB after a replay with --keep-time as the live run stored', async () => {
    const recording = join(dir, 'same.ndjson');
    const live = await startTestServer({ sim: true, scenario: 'lab', speed: 'max', record: recording, dataDir: join(dir, 'same-live') });
    await until('recorded states', async () => (await live.running.store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n, (n) => n >= 12, 30_000);
    await live.close();
    const replay = await startTestServer({ sim: false, replay: recording, speed: 'max', keepTime: true, dataDir: join(dir, 'same-replayed') });
    try {
      await replay.running.replay!.done;
      await replay.running.ingest.flush();
    } finally {
      await replay.close();
    }
    // Every column but the generated ids, in a stable order.
    const TABLES: Record<string, string> = {
      statistics: 'serial, uuid, data, recorded',
      health_checks: 'serial, uuid, data, sanity, recorded',
      device_logs: 'serial, log, data, severity, recorded, log_type, uuid',
      state_radios: '*',
      state_associations: '*',
    };
    const rows = async (dataDir: string) => {
      const store = await Store.open(dataDir);
      try {
        const out: Record<string, string[]> = {};
        for (const [table, cols] of Object.entries(TABLES)) {
          out[table] = (await store.query(`SELECT ${cols} FROM ${table}`)).map((r) => JSON.stringify(r)).sort();
        }
        return out;
      } finally {
        await store.close();
      }
    };
    const [stored, replayed] = [await rows(join(dir, 'same-live')), await rows(join(dir, 'same-replayed'))];

    // Served again without a replay, each AP's status says when it was last heard from (its last
    // up frame, connect or disconnect, at its recorded time, kept), never 0.
    const lastUp = new Map<string, number>();
    for (const l of readFileSync(recording, 'utf8').trim().split('\n').map((x) => JSON.parse(x) as { t: number; serial: string; dir?: string; event?: string })) {
      if (l.dir !== 'down') lastUp.set(l.serial, Math.max(lastUp.get(l.serial) ?? 0, Math.floor(l.t / 1000)));
    }
    const served = await startTestServer({ sim: false, dataDir: join(dir, 'same-replayed') });
    try {
      for (const [serial, t] of lastUp) {
        const tail = readFileSync(recording, 'utf8').trim().split('\n').filter((l) => l.includes(serial)).slice(-3).map((l) => l.slice(0, 90)).join('\n');
        expect((await served.gw('GET', `/device/${serial}/status`)).body, `${serial}\n${tail}`).toMatchObject({ connected: false, lastContact: t });
      }
    } finally {
      await served.close();
    }
    expect(lastUp.size).toBe(3);
    expect(stored.statistics!.length).toBeGreaterThanOrEqual(12);
    expect(stored.state_associations!.length).toBeGreaterThan(0);
    for (const table of Object.keys(TABLES)) expect(replayed[table], table).toEqual(stored[table]);

    // Replayed with --keep-time into the live run's own data dir, every row lands a second time:
    // serve says so, with the counts, before the first line plays.
    const printed: string[] = [];
    let log = '';
    const logs = new PassThrough().on('data', (d: Buffer) => { log += d.toString(); });
    const again = await startTestServer({ sim: false, replay: recording, speed: 'max', keepTime: true, dataDir: join(dir, 'same-live'), logLevel: 'info' }, { print: (l) => printed.push(l), logDestination: logs });
    try {
      await again.running.replay!.done;
    } finally {
      await again.close();
    }
    const notes = printed.filter((l) => l.startsWith('replay: note:'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`already holds ${stored.statistics!.length} statistics, ${stored.health_checks!.length} health check and ${stored.device_logs!.length} log rows of these devices`);
    const warned = log.split('\n').filter((l) => l.includes('already holds rows')).map((l) => JSON.parse(l));
    expect(warned).toEqual([expect.objectContaining({ level: 40, statistics: stored.statistics!.length })]);
  }, 60_000);
});

describe('serve --replay --speed N, after the last line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rr-speed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs N times faster while lines remain, ending at the wall\'s time, then on at wall speed', async () => {
    const file = join(dir, 'lab.ndjson');
    await runSimulate({ scenario: 'lab', until: '2m', record: file }, new PassThrough().resume());
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: number });
    const span = lines.at(-1)!.t - lines[0]!.t;
    // The wall is virtual: the test moves it to its next timer once the event loop has nothing
    // else to run, so the pace does not depend on how busy the machine is.
    const wall = new VirtualClock(Date.UTC(2026, 0, 10));
    const replay = await startTestServer({ sim: false, replay: file, speed: 60, dataDir: join(dir, 'data') }, { clock: wall });
    try {
      const clock = replay.running.clock;
      const [t0, w0] = [clock.now(), wall.now()];
      let summary: ReplaySummary | undefined;
      void replay.running.replay!.done.then((s) => { summary = s; });
      while (summary === undefined) {
        await new Promise((r) => setImmediate(r));
        if (summary === undefined) wall.step();
      }
      expect(summary.rejectedCount).toBe(0);
      // The two recorded minutes passed on the clock; on the wall, no faster than 60x and about
      // 60x (the wall also moved on while the data dir and the fleet opened, before the first line).
      expect(Math.abs(clock.now() - t0 - span)).toBeLessThanOrEqual(1);
      expect(wall.now() - w0).toBeGreaterThanOrEqual(span / 60);
      expect(wall.now() - w0).toBeLessThan(span / 20);
      // The replay was placed to end at the wall's time, and the replayer followed the wall from
      // where it was (no jump) before anyone else saw the end: a minute of wall, a minute of clock.
      expect(Math.abs(clock.now() - wall.now())).toBeLessThan(10_000);
      const end = clock.now();
      wall.increment(60_000);
      expect(Math.abs(clock.now() - end - 60_000)).toBeLessThanOrEqual(1);
    } finally {
      await replay.close();
    }
  }, 60_000);
});

describe('serve --replay on a port in use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rr-port-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails before it replays: the data dir holds no replayed device or row', async () => {
    const file = join(dir, 'lab.ndjson');
    await runSimulate({ scenario: 'lab', until: '1m', record: file }, new PassThrough().resume());
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = (busy.address() as AddressInfo).port;
      await expect(startTestServer({ sim: false, replay: file, speed: 'max', gatewayPort: port, dataDir: join(dir, 'data') }))
        .rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining(`port in use: ${port}`) });
    } finally {
      busy.close();
    }
    // Before the fix the whole recording was replayed into it, then the port was found taken.
    const store = await Store.open(join(dir, 'data'));
    try {
      for (const table of ['devices', 'statistics']) {
        expect((await store.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`))[0]!.n, table).toBe(0);
      }
    } finally {
      await store.close();
    }
  });

  it('serve --record on a port in use leaves an earlier recording and its parts as they were', async () => {
    const file = join(dir, 'earlier.ndjson');
    await runSimulate({ scenario: 'lab', until: '2m', record: file, recordMaxBytes: 8192 }, new PassThrough().resume());
    const before = [file, `${file}.1`].map((f) => readFileSync(f, 'utf8'));
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = (busy.address() as AddressInfo).port;
      await expect(startTestServer({ sim: true, scenario: 'lab', speed: 'max', record: file, rrmPort: port, dataDir: join(dir, 'rec-data') }))
        .rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining(`port in use: ${port}`) });
    } finally {
      busy.close();
    }
    // Before the fix the file was truncated to the simulated APs' first lines and FILE.1... deleted.
    expect([file, `${file}.1`].map((f) => readFileSync(f, 'utf8'))).toEqual(before);
  });

  it('a started serve --record says that it replaces an earlier recording at its path', async () => {
    const file = join(dir, 'again.ndjson');
    await runSimulate({ scenario: 'lab', until: '1m', record: file }, new PassThrough().resume());
    const bytes = readFileSync(file).length;
    let log = '';
    const logs = new PassThrough().on('data', (d: Buffer) => { log += d.toString(); });
    const live = await startTestServer({ sim: true, scenario: 'lab', speed: 'max', record: file, dataDir: join(dir, 'again-data'), logLevel: 'info' }, { logDestination: logs });
    await live.close();
    const warned = log.split('\n').filter((l) => l.includes('replaces an earlier one')).map((l) => JSON.parse(l));
    expect(warned).toEqual([expect.objectContaining({ level: 40, file, bytes, parts: 0 })]);
  });
});
