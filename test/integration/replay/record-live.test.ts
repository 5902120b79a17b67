import { execFileSync } from 'node:child_process';
import { closeSync, constants, createReadStream, existsSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../actors/device/device.types.js';
import { Fleet, type DeviceDetails } from '../../../actors/fleet.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { loadScenario, scenarioStart } from '../../../simulator/scenario.js';
import { runReplay, type ReplayResult } from '../../../src/runtime/replay.js';
import { partPath } from '../../../src/links/record/ndjson-writer.js';
import { closeRecorder, createRecorder, type Recorder } from '../../../src/links/record/recording-link.js';
import { readRecording } from '../../../src/links/replay/read-recording.js';
import { startReplay } from '../../../src/links/replay/replayer.js';
import { startTestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';
import { Store } from '../../../src/store/duckdb.js';
import { FakeLink } from '../../helpers/fake-link.js';
import { labFleet } from '../../helpers/lab-fleet.js';

const sink = () => new PassThrough().resume();

/** The lab venue live: actors on recorded SimLinks, a command service, one VirtualClock. */
function liveLab(recorder: (clock: VirtualClock) => Recorder) {
  const clock = new VirtualClock(scenarioStart(loadScenario('lab').scenario));
  const rec = recorder(clock);
  const { fleet, svc, advance, settle, serials } = labFleet({ seed: 7, wrap: (link) => rec.wrap(link), clock });
  return { fleet, svc, rec, advance, settle, serials };
}

function lines(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

describe('recorder around live links, then replay (lab venue, seed 7)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-record-'));
  const file = join(dir, 'live.ndjson');
  const live: Record<string, DeviceDetails> = {};
  let scan: Command;
  let configure: Command;
  let replayed: ReplayResult;
  let scanEntries = 0;

  beforeAll(async () => {
    const lab = liveLab((clock) => createRecorder({ path: file, clock }));
    await lab.advance(60_000);
    const s = lab.serials[0]!;
    lab.fleet.events$.subscribe((e) => { if (e.type === 'wifiscan-result' && e.payload.source === 'command') scanEntries += e.payload.entries.length; });
    scan = await lab.settle(lab.svc.wifiscan(s, {}));
    const uuid = lab.fleet.status(s)!.UUID + 100;
    configure = await lab.settle(lab.svc.configure(s, { configuration: { radios: [{ band: '5G', channel: 44, 'channel-width': 20, 'tx-power': 15 }] }, uuid }));
    await lab.advance(120_000);
    for (const serial of lab.serials) live[serial] = lab.fleet.details(serial)!;
    await lab.rec.close();
    replayed = await runReplay({ file, dataDir: join(dir, 'data'), speed: 'max', keepTime: true }, { out: sink() });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes whole lines ordered by t, commands down and their results up with the same id', () => {
    const recs = lines(file).map((l) => JSON.parse(l) as { t: number; serial: string; dir?: string; event?: string; frame?: { id?: number; method?: string; result?: unknown } });
    for (let i = 1; i < recs.length; i++) expect(recs[i]!.t).toBeGreaterThanOrEqual(recs[i - 1]!.t);
    const downs = recs.filter((r) => r.dir === 'down');
    expect(downs.map((d) => d.frame!.method)).toEqual(['wifiscan', 'configure']);
    for (const d of downs) {
      const reply = recs.find((r) => r.dir === 'up' && r.serial === d.serial && r.frame!.id === d.frame!.id && r.frame!.result !== undefined);
      expect(reply, `result of ${d.frame!.method}`).toBeDefined();
      expect(reply!.t).toBeGreaterThanOrEqual(d.t);
    }
    expect(recs.filter((r) => r.event === 'connect')).toHaveLength(3);
  });

  it('ingests a recorded command result as the result of that command', async () => {
    expect(scan.status).toBe('completed');
    expect(configure.status).toBe('completed');
    expect(replayed.summary.unmatched).toEqual([]);
    const store = await Store.open(join(dir, 'data'));
    try {
      const cmds = await store.query<{ command: string; status: string; results: string }>('SELECT command, status, results FROM commands ORDER BY submitted, command');
      expect(cmds.map((c) => [c.command, c.status])).toEqual([['wifiscan', 'completed'], ['configure', 'completed']]);
      expect(JSON.parse(cmds[0]!.results)).toEqual(JSON.parse(scan.results));
      expect(JSON.parse(cmds[1]!.results)).toEqual(JSON.parse(configure.results));
      const [rows] = await store.query<{ n: number }>(`SELECT count(*) AS n FROM wifi_scan_entries WHERE source = 'command'`);
      expect(scanEntries).toBeGreaterThan(0);
      expect(rows!.n).toBe(scanEntries);
    } finally {
      await store.close();
    }
  });

  it('writes a device record per recorded AP, with the recorded configure as its configuration, so serve lists them', async () => {
    const s = Object.keys(live)[0]!;
    const sent = JSON.parse(configure.details) as { uuid: number; config: unknown };
    const server = await startTestServer({ sim: false, dataDir: join(dir, 'data') });
    try {
      const list = await server.gw('GET', '/devices?serialOnly=true');
      expect([...list.body.serialNumbers].sort()).toEqual(Object.keys(live).sort());
      const device = await server.gw('GET', `/device/${s}`);
      expect(device.status).toBe(200);
      expect(device.body.UUID).toBe(sent.uuid);
      expect(JSON.parse(device.body.configuration)).toEqual(sent.config);
      // The others keep the configuration they connected with.
      for (const other of Object.keys(live).filter((x) => x !== s)) {
        expect((await server.gw('GET', `/device/${other}`)).body.UUID).toBe(live[other]!.status.UUID);
      }
    } finally {
      await server.close();
    }
  });

  it('records a replay of the recording as the same file (wrapLink with the recorder)', async () => {
    const again = join(dir, 'again.ndjson');
    const first = JSON.parse(lines(file)[0]!) as { t: number };
    const clock = new VirtualClock(first.t);
    const fleet = new Fleet({ clock, newId: () => '00000000-0000-4000-8000-000000000001' });
    const rec = createRecorder({ path: again, clock });
    const summary = await startReplay({ file, fleet, clock, speed: 'max', keepTime: true, wrapLink: (l) => rec.wrap(l) }).done;
    await rec.close();
    expect(summary.unmatched).toEqual([]);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('ends each replayed device where the live one ended (configuration, reports, connection)', () => {
    for (const [serial, d] of Object.entries(live)) {
      const r = replayed.devices[serial]!;
      expect(r.status.UUID).toBe(d.status.UUID);
      expect(r.status.connected).toBe(d.status.connected);
      expect(r.lastState).toEqual(d.lastState);
      expect(r.lastHealthcheck).toEqual(d.lastHealthcheck);
      expect(r.capabilities).toEqual(d.capabilities);
      expect(r.state).toBe(d.state);
      // The live harness lets admission resolve after its 1 s clock step; replay within the same step.
      expect(Math.abs(r.status.started - d.status.started)).toBeLessThanOrEqual(1);
      const same = { ipAddress: '', verifiedCertificate: '', started: 0 }; // not in the recording format / see above
      expect({ ...r.status, ...same }).toEqual({ ...d.status, ...same });
    }
  });
});

describe('recorder rotation by size', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rotate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cuts FILE, FILE.1, ... at line boundaries, each under the limit, and replays them as one recording', async () => {
    const file = join(dir, 'rot.ndjson');
    const maxBytes = 16_000;
    const lab = liveLab((clock) => createRecorder({ path: file, clock, maxBytes }));
    await lab.advance(300_000);
    await lab.rec.close();
    const stats = lab.rec.stats();
    expect(stats.files.length).toBeGreaterThan(2);
    expect(stats.files[0]).toBe(file);
    expect(stats.files[1]).toBe(partPath(file, 1));
    let total = 0;
    for (const f of stats.files) {
      const ls = lines(f);
      for (const l of ls) expect(() => JSON.parse(l)).not.toThrow();
      const size = readFileSync(f).length;
      if (ls.length > 1) expect(size).toBeLessThanOrEqual(maxBytes);
      total += ls.length;
    }
    expect(total).toBe(stats.lines);
    expect(stats.droppedLines).toBe(0);

    const r = await runReplay({ file, dataDir: join(dir, 'data'), speed: 'max' }, { out: sink() });
    expect(r.summary.rejectedCount).toBe(0);
    expect(r.summary.frames + 3).toBe(total); // every line but the three connect events is a frame
  });

  it('writes FILE.gz, FILE.1.gz, ... when the name ends in .gz: the same text, cut by its size, replayed alike', async () => {
    const plain = join(dir, 'same.ndjson');
    // Not same.ndjson.gz: FILE.gz is FILE compressed, one recording whose parts FILE.1 or FILE.1.gz are shared.
    const zipped = join(dir, 'other.ndjson.gz');
    const maxBytes = 16_000;
    const stats = [];
    for (const path of [plain, zipped]) {
      const lab = liveLab((clock) => createRecorder({ path, clock, maxBytes }));
      await lab.advance(300_000);
      await lab.rec.close();
      stats.push(lab.rec.stats());
    }
    const [p, z] = stats as [ReturnType<Recorder['stats']>, ReturnType<Recorder['stats']>];
    expect(z.files).toEqual(p.files.map((f, i) => (i === 0 ? zipped : `${f.replace('same.ndjson', 'other.ndjson')}.gz`)));
    z.files.forEach((f, i) => {
      const bytes = readFileSync(f);
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      // --record-max-bytes counts the text, so the parts hold the same lines.
      expect(gunzipSync(bytes).toString('utf8')).toBe(readFileSync(p.files[i]!, 'utf8'));
    });
    // Recorded times kept: the end states are then comparable (a shifted start would be the wall's now).
    const fromPlain = await runReplay({ file: plain, dataDir: join(dir, 'same-plain'), speed: 'max', keepTime: true }, { out: sink() });
    const fromZipped = await runReplay({ file: zipped, dataDir: join(dir, 'same-gz'), speed: 'max', keepTime: true }, { out: sink() });
    expect(fromZipped.summary.rejectedCount).toBe(0);
    expect(fromZipped.summary.frames).toBe(fromPlain.summary.frames);
    expect(fromZipped.devices).toEqual(fromPlain.devices);

    // Parts gzipped after the recording (as logrotate does) are found under FILE.1.gz, ...
    for (const f of p.files.slice(1)) {
      writeFileSync(`${f}.gz`, gzipSync(readFileSync(f)));
      unlinkSync(f);
    }
    const rotated = await runReplay({ file: plain, dataDir: join(dir, 'same-rotated'), speed: 'max', keepTime: true }, { out: sink() });
    expect(rotated.summary.frames).toBe(fromPlain.summary.frames);
    expect(rotated.devices).toEqual(fromPlain.devices);
  });

  it('removes stale parts of an earlier recording to the same path', async () => {
    const file = join(dir, 'again.ndjson');
    const first = liveLab((clock) => createRecorder({ path: file, clock, maxBytes: 4_000 }));
    await first.advance(120_000);
    await first.rec.close();
    const before = first.rec.stats().files.length;
    const second = liveLab((clock) => createRecorder({ path: file, clock }));
    await second.advance(10_000);
    await second.rec.close();
    expect(before).toBeGreaterThan(1);
    expect(existsSync(partPath(file, 1))).toBe(false);
  });
});

describe('recorder on a quiet link', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-quiet-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes buffered lines within flushEveryMs of wall time, before the chunk fills or the recorder closes', async () => {
    const file = join(dir, 'quiet.ndjson');
    // A virtual clock that never moves: the flush runs on wall time.
    const rec = createRecorder({ path: file, clock: new VirtualClock(1_767_600_000_000), flushEveryMs: 50 });
    rec.tap.connect('aabbccddee03');
    rec.tap.up('aabbccddee03', '{"jsonrpc":"2.0","method":"log","params":{"serial":"aabbccddee03","log":"hi","severity":6}}');
    const onDisk = async () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    const text = await until('lines on disk', onDisk, (t) => t.split('\n').length === 3, 5_000);
    expect(text.endsWith('\n')).toBe(true);
    await rec.close();
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('recorder memory bound', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-bound-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('drops and counts lines past maxBufferedBytes instead of growing, and still leaves whole lines', async () => {
    const file = join(dir, 'bound.ndjson');
    const clock = new VirtualClock(1_767_600_000_000);
    const reports: number[] = [];
    let wall = 0;
    const rec = createRecorder({ path: file, clock, maxBufferedBytes: 300_000, onDropped: (n) => reports.push(n), wallNow: () => wall });
    const link = new FakeLink('aabbccddee02', () => clock.now());
    rec.wrap(link).subscribe(() => undefined);
    const big = 'x'.repeat(1000);
    // A producer that never yields: the disk cannot catch up within the loop.
    for (let i = 0; i < 5000; i++) {
      link.frame({ jsonrpc: '2.0', method: 'log', params: { serial: link.serial, log: big, severity: 6, n: i } });
      // The process clock may race (a replay at --speed max): an hour of it is not a minute.
      if (i % 500 === 0) clock.runUntil(clock.now() + 3_600_000);
      if (i === 2500) wall += 60_000;
    }
    await rec.close();
    const st = rec.stats();
    expect(st.droppedLines).toBeGreaterThan(0);
    expect(st.lines + st.droppedLines).toBe(5000);
    // The owner hears of the drops at the first one and once per minute of wall time after.
    expect(reports[0]).toBe(1);
    expect(reports).toHaveLength(2);
    expect(reports[1]).toBeGreaterThan(1);
    expect(reports[1]).toBeLessThanOrEqual(st.droppedLines);
    const written = lines(file);
    expect(written).toHaveLength(st.lines);
    const ns = written.map((l) => (JSON.parse(l) as { frame: { params: { n: number } } }).frame.params.n);
    expect(ns).toEqual([...ns].sort((a, b) => a - b));
  });
});

describe('recorder on a full disk', () => {
  it('stops recording with one RecordingError naming the file, while the links go on', async () => {
    const clock = new VirtualClock(1_767_600_000_000);
    const errors: Error[] = [];
    // /dev/full opens like a file and fails every write with ENOSPC.
    const rec = createRecorder({ path: '/dev/full', clock, onError: (e) => errors.push(e) });
    const link = new FakeLink('aabbccddee04', () => clock.now());
    const seen: number[] = [];
    rec.wrap(link).subscribe((e) => { if (e.type === 'frame') seen.push((e.frame as unknown as { params: { n: number } }).params.n); });
    const big = 'x'.repeat(1000);
    for (let i = 0; i < 600; i++) {
      link.frame({ jsonrpc: '2.0', method: 'log', params: { serial: link.serial, log: big, severity: 6, n: i } });
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
    await rec.close();
    expect(seen).toHaveLength(600);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'RecordingError', file: '/dev/full', code: 'ENOSPC' });
    expect(rec.stats().error).toMatch(/^recording \/dev\/full: ENOSPC/);
  });
});

describe('closeRecorder (serve and edge at shutdown)', () => {
  const logged = () => {
    const entries: { level: string; o: Record<string, unknown>; msg: string }[] = [];
    const at = (level: string) => (o: object, msg: string) => { entries.push({ level, o: o as Record<string, unknown>, msg }); };
    return { entries, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
  };

  it('gives up on a target that takes no more lines after waitMs, and says so at error level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-stall-'));
    const fifo = join(dir, 'stalled.fifo');
    execFileSync('mkfifo', [fifo]);
    // A reader that never reads: the pipe fills and the recorder's writes wait for good.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const clock = new VirtualClock(1_767_600_000_000);
      const rec = createRecorder({ path: fifo, clock });
      const big = 'x'.repeat(1000);
      for (let i = 0; i < 2000; i++) rec.tap.up('aabbccddee05', { jsonrpc: '2.0', method: 'log', params: { serial: 'aabbccddee05', log: big, severity: 6, n: i } });
      const { entries, logger } = logged();
      const closing = closeRecorder(rec, logger, 300, clock);
      await new Promise((r) => setImmediate(r));
      expect(entries).toEqual([]);
      clock.increment(300);
      await closing;
      expect(entries).toEqual([{ level: 'error', o: expect.objectContaining({ waitedMs: 300 }), msg: expect.stringMatching(/^recording not finished/) }]);
    } finally {
      // The blocked write ends (EPIPE) once the pipe has no reader.
      closeSync(reader);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records into a FIFO that a reader drains: every line arrives, and the reader sees the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-fifo-'));
    const fifo = join(dir, 'drained.fifo');
    execFileSync('mkfifo', [fifo]);
    try {
      const rec = createRecorder({ path: fifo, clock: new VirtualClock(1_767_600_000_000) });
      // The recorder opened the FIFO read-write, so this open does not wait for it.
      const chunks: Buffer[] = [];
      const reader = createReadStream(fifo).on('data', (d) => chunks.push(d as Buffer));
      const ended = new Promise<void>((r) => reader.on('end', () => r()));
      for (let i = 0; i < 3000; i++) rec.tap.up('aabbccddee07', { jsonrpc: '2.0', method: 'log', params: { serial: 'aabbccddee07', log: 'x'.repeat(100), severity: 6, n: i } });
      const { entries, logger } = logged();
      await closeRecorder(rec, logger);
      await ended;
      const lines = Buffer.concat(chunks).toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => (JSON.parse(l) as { frame: { params: { n: number } } }).frame.params.n)).toEqual([...Array(3000).keys()]);
      expect(entries).toEqual([{ level: 'info', o: expect.objectContaining({ lines: 3000, droppedLines: 0 }), msg: 'recording closed' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs a recording that a failed write stopped at error level, with why', async () => {
    const rec = createRecorder({ path: '/dev/full', clock: new VirtualClock(1_767_600_000_000) });
    rec.tap.connect('aabbccddee06');
    const { entries, logger } = logged();
    await closeRecorder(rec, logger);
    expect(entries).toEqual([{ level: 'error', o: expect.objectContaining({ error: expect.stringMatching(/^recording \/dev\/full: ENOSPC/) }), msg: 'recording closed after a failed write' }]);
  });
});

describe('recorder tap (producers that are not links, e.g. the websocket edge)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-tap-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes raw frame text and events as replayable lines, serials normalised, t never decreasing (a late line says when it happened)', async () => {
    const file = join(dir, 'tap.ndjson');
    const clock = new VirtualClock(1_767_600_000_000);
    const rec = createRecorder({ path: file, clock });
    const serial = 'AA:BB:CC:DD:EE:03';
    rec.tap.connect(serial);
    rec.tap.up(serial, ' {"jsonrpc":"2.0","method":"connect","params":{"serial":"aabbccddee03","uuid":1,"firmware":"fw","capabilities":{}}}\n');
    rec.tap.down(serial, { jsonrpc: '2.0', id: 3, method: 'ping', params: { serial: 'aabbccddee03' } }, clock.now() + 10);
    rec.tap.up(serial, '{"jsonrpc":"2.0","id":3,"result":{"serial":"aabbccddee03","status":{"error":0}}}', clock.now() + 5);
    rec.tap.up(serial, '{\n  "jsonrpc": "2.0",\n  "method": "log",\n  "params": {"serial": "aabbccddee03", "log": "pretty", "severity": 6}\n}', clock.now() + 15);
    rec.tap.up(serial, '{"jsonrpc":"2.0", broken', clock.now() + 15);
    rec.tap.disconnect(serial, clock.now() + 20);
    await rec.close();
    expect(rec.stats().malformedSkipped).toBe(1);
    const items = [];
    for await (const item of readRecording(file)) items.push(item);
    expect(items.every((i) => i.ok)).toBe(true);
    const recs = items.flatMap((i) => (i.ok ? [i.rec] : []));
    expect(recs.map((r) => r.kind)).toEqual(['connect', 'up', 'down', 'up', 'up', 'disconnect']);
    expect(new Set(recs.map((r) => r.serial))).toEqual(new Set(['aabbccddee03']));
    expect(recs.map((r) => r.t)).toEqual([0, 0, 10, 10, 15, 20].map((d) => 1_767_600_000_000 + d));
    // The result came in at +5, before the command's +10: written at +10, saying when it came.
    expect(recs.map((r) => (r.kind === 'down' ? undefined : r.at))).toEqual([undefined, undefined, undefined, 1_767_600_000_005, undefined, undefined]);
  });
});
