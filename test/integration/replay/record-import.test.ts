import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecordImport, type RecordImportSummary } from '../../../src/runtime/record-import.js';
import { runReplay, type ReplayResult } from '../../../src/runtime/replay.js';
import { runSimulate } from '../../../src/runtime/simulate.js';
import { Store } from '../../../src/store/duckdb.js';
import { startTestServer } from '../../helpers/server.js';

/** Real AP captures (shared, read-only, never copied into the repo). */
const FIXTURES = join(process.cwd(), '..', 'shared', 'fixtures', 'real-ap');
const present = existsSync(FIXTURES);
const sink = () => new PassThrough().resume();
const NAMED = 'a0b1c2d3e4f5';
const BIN = new URL('../../../bin/airtwin.mjs', import.meta.url).pathname;

describe.skipIf(!present)(`airtwin record --from-states on the real AP captures${present ? '' : ` (skipped: ${FIXTURES} is absent)`}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-import-'));
  const src = join(dir, 'captures');
  const out = join(dir, 'imported.ndjson');
  let summary: RecordImportSummary;
  let replayed: ReplayResult;

  beforeAll(async () => {
    const put = (from: string, to: string) => {
      mkdirSync(join(src, to, '..'), { recursive: true });
      copyFileSync(join(FIXTURES, from), join(src, to));
    };
    // One AP folder with its capabilities, two old-firmware states and its configuration...
    put('capabilities/edgecore_eap101.json', 'lab-ap/capabilities.json');
    put('states/eap101-bridge-stats.json', 'lab-ap/state-a.json');
    put('states/eap101-bridge-wifi-clients.json', 'lab-ap/state-b.json');
    put('states/eap101-bridge-wifi-clients-config.json', 'lab-ap/config.json');
    // ...one named by its serial with a current-firmware state and no capabilities...
    put('states/state-2-9.json', `${NAMED}/state.json`);
    // ...two capabilities alone (one device each), and a file that is none of these.
    put('capabilities/edgecore_eap102.json', 'models/eap102.json');
    put('capabilities/linksys_ea8300.json', 'models/ea8300.json');
    writeFileSync(join(src, 'notes.json'), '{"hello":"world"}');
    summary = await runRecordImport({ fromStates: src, out }, sink());
    replayed = await runReplay({ file: out, dataDir: join(dir, 'data'), speed: 'max', keepTime: true }, { out: sink() });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes one device per AP folder or capabilities file and says which files it skipped', () => {
    expect(summary.devices).toBe(4);
    expect(summary.skipped).toEqual([{ file: 'notes.json', reason: expect.stringMatching(/not a state, healthcheck, capabilities or configuration/) }]);
  });

  it('writes the same file from the same folder (stable order and times)', async () => {
    const again = join(dir, 'again.ndjson');
    await runRecordImport({ fromStates: src, out: again }, sink());
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(out, 'utf8'));
  });

  it('writes gzip when --out ends in .gz: the same text, replayed alike', async () => {
    const zipped = join(dir, 'again.ndjson.gz');
    await runRecordImport({ fromStates: src, out: zipped }, sink());
    expect(gunzipSync(readFileSync(zipped)).toString('utf8')).toBe(readFileSync(out, 'utf8'));
    const r = await runReplay({ file: zipped, dataDir: join(dir, 'data-gz'), speed: 'max', keepTime: true }, { out: sink() });
    expect(r.summary.rejected).toEqual([]);
    expect(r.summary.frames).toBe(replayed.summary.frames);
  });

  it('produces a recording that replays without a rejected line or protocol error', async () => {
    expect(replayed.summary.rejected).toEqual([]);
    expect(replayed.summary.devices).toBe(4);
    expect(replayed.summary.frames).toBe(4 + 3); // four connects, three states
    for (const d of Object.values(replayed.devices)) expect(d.state).toBe('online.idle');
  });

  it('connects with the capabilities and config uuid of the folder, and stores every state', async () => {
    const named = replayed.devices[NAMED]!;
    expect(named.lastState).toEqual(JSON.parse(readFileSync(join(FIXTURES, 'states/state-2-9.json'), 'utf8')));
    expect(named.capabilities).toMatchObject({ compatible: 'imported', platform: 'ap' });
    const labAp = Object.values(replayed.devices).find((d) => d.capabilities?.compatible === 'edgecore_eap101')!;
    expect(labAp.status.UUID).toBe(1656004318);
    // Ordered by the capture's own unit.localtime: bridge-stats (1659464802) before wifi-clients (1659465004).
    expect((labAp.lastState!.unit as { localtime: number }).localtime).toBe(1659465004);
    const store = await Store.open(join(dir, 'data'));
    try {
      const stats = await store.query<{ serial: string; n: number }>('SELECT serial, count(*) AS n FROM statistics GROUP BY serial ORDER BY serial');
      expect(Object.fromEntries(stats.map((r) => [r.serial, r.n]))).toEqual({ [NAMED]: 1, [labAp.status.serialNumber]: 2 });
      const [caps] = await store.query<{ n: number }>('SELECT count(*) AS n FROM capabilities');
      expect(caps!.n).toBe(4);
    } finally {
      await store.close();
    }
  });

  it('gives a capture without capabilities ones the RRM model reads: both radios are planned after a replay', async () => {
    // An old-firmware state names no band: its radios are known by their phy alone.
    const bare = join(dir, 'bare');
    mkdirSync(join(bare, '903cb3bb1e07'), { recursive: true });
    copyFileSync(join(FIXTURES, 'states/eap101-bridge-stats.json'), join(bare, '903cb3bb1e07', 'state.json'));
    const file = join(dir, 'bare.ndjson');
    await runRecordImport({ fromStates: bare, out: file }, sink());
    const served = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'bare-data') });
    try {
      await served.running.replay!.done;
      await served.running.ingest.flush();
      // The serial as a MAC, as a user copies it from the AP's label.
      expect((await served.rrm('POST', '/setTopology', { body: { venue: ['90:3C:B3:BB:1E:07'] } })).status).toBe(200);
      const model = (await served.rrm('GET', '/currentModel')).body as { latestDeviceStatusRadios: Record<string, { band: string; channel: number }[]> };
      expect(model.latestDeviceStatusRadios['903cb3bb1e07']!.map((r) => [r.band, r.channel]).sort()).toEqual([['2G', 6], ['5G', 100]]);
      const plan = await served.rrm('GET', '/optimizeChannel?mode=random&zone=venue&dry_run=true');
      expect(plan.status, plan.text).toBe(200);
      expect(Object.keys((plan.body.data as Record<string, Record<string, number>>)['903cb3bb1e07'] ?? {}).sort()).toEqual(['2G', '5G']);
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('airtwin record --from-states: where the recording cannot be written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-import-out-'));
  const src = join(dir, 'docs');
  mkdirSync(src);
  writeFileSync(join(src, 'state.json'), JSON.stringify({
    jsonrpc: '2.0', method: 'state', params: { serial: 'a0b1c2000001', uuid: 1, state: { unit: { uptime: 10 }, radios: [] } },
  }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says whether --from-states is missing or is not a folder', async () => {
    await expect(runRecordImport({ fromStates: join(dir, 'nope'), out: join(dir, 'x.ndjson') }, sink()))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--from-states: ${join(dir, 'nope')} does not exist` });
    await expect(runRecordImport({ fromStates: join(src, 'state.json'), out: join(dir, 'x.ndjson') }, sink()))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--from-states: ${join(src, 'state.json')} is not a folder` });
  });

  it('refuses an --out in a missing folder or naming a folder before it reads a document', async () => {
    await expect(runRecordImport({ fromStates: src, out: join(dir, 'missing', 'x.ndjson') }, sink()))
      .rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(/^--out: cannot write .*\(its folder: ENOENT\)$/) });
    await expect(runRecordImport({ fromStates: src, out: dir }, sink()))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--out: ${dir} is a folder` });
  });

  it('fails with a RecordingError naming the file when the disk is full (/dev/full)', async () => {
    await expect(runRecordImport({ fromStates: src, out: '/dev/full' }, sink()))
      .rejects.toMatchObject({ name: 'RecordingError', file: '/dev/full', code: 'ENOSPC', message: expect.stringMatching(/^recording \/dev\/full: ENOSPC/) });
  });

  it('writes the recording when the file can be written', async () => {
    const out = join(dir, 'ok.ndjson');
    const summary = await runRecordImport({ fromStates: src, out }, sink());
    expect(summary).toMatchObject({ devices: 1, skipped: [] });
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(summary.lines);
  });
});

describe('airtwin record --from-states on a folder with links, pipes and junk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-import-odd-'));
  const src = join(dir, 'captures');
  const state = (serial: string) => JSON.stringify({ jsonrpc: '2.0', method: 'state', params: { serial, uuid: 1, state: { unit: { uptime: 10 }, radios: [] } } });
  beforeAll(() => {
    mkdirSync(join(src, 'ap1', 'deeper'), { recursive: true });
    writeFileSync(join(src, 'ap1', 'state.json'), state('a0b1c2000001'));
    symlinkSync('..', join(src, 'ap1', 'deeper', 'up')); // a loop back to captures/
    symlinkSync('ap1', join(src, 'latest')); // a second way into ap1
    symlinkSync('state.json', join(src, 'ap1', 'last.json')); // a second way to a file
    linkSync(join(src, 'ap1', 'state.json'), join(src, 'ap1', 'state2.json')); // and a second name of it
    symlinkSync('nowhere.json', join(src, 'gone.json')); // a broken link
    execFileSync('mkfifo', [join(src, 'pipe.json')]); // reading it would wait for a writer forever
    writeFileSync(join(src, 'bin.json'), Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x07, 0x0a]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads each folder once, skips what it cannot read with why, and prints no control byte', async () => {
    let printed = '';
    const out = new PassThrough().on('data', (d: Buffer) => { printed += d.toString(); });
    const summary = await runRecordImport({ fromStates: src, out: join(dir, 'odd.ndjson') }, out);
    expect(summary.devices).toBe(1);
    // One connect event, one connect frame and the one state: ap1 was not imported twice.
    expect(summary.lines).toBe(3);
    expect(summary.skipped).toEqual([
      { file: 'ap1/deeper/up', reason: 'folder already read (a link to it or to a folder above it)' },
      { file: 'ap1/last.json', reason: 'a link to ap1/state.json, already read' },
      { file: 'ap1/state2.json', reason: 'the same file as ap1/state.json, already read' },
      { file: 'gone.json', reason: 'cannot read (ENOENT)' },
      { file: 'latest', reason: 'folder already read (a link to it or to a folder above it)' },
      { file: 'pipe.json', reason: 'not a regular file' },
      { file: 'bin.json', reason: expect.stringMatching(/^not JSON \(/) },
    ]);
    // eslint-disable-next-line no-control-regex
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(printed).toContain('record: skipped bin.json: not JSON (');
    expect(printed).toContain('\\u001b');
  });

  it('writes nothing and fails (exit 1) when not one file can be imported', () => {
    const junk = join(dir, 'junk');
    mkdirSync(junk);
    writeFileSync(join(junk, 'notes.json'), '{"hello":"world"}');
    const outFile = join(dir, 'none.ndjson');
    const r = spawnSync(process.execPath, [BIN, 'record', '--from-states', junk, '--out', outFile], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('record: skipped notes.json: not a state, healthcheck, capabilities or configuration document\n');
    expect(r.stderr).toBe(`airtwin: ${junk} holds no state, healthcheck, capabilities or configuration document (1 files skipped): nothing recorded\n`);
    expect(existsSync(outFile)).toBe(false);
  }, 30_000);

  it('refuses an --out that is one of the captures it would read (a usage error), and leaves it as it was', async () => {
    const capture = join(src, 'ap1', 'state.json');
    const before = readFileSync(capture);
    for (const out of [capture, join(src, 'latest', 'state.json')]) {
      await expect(runRecordImport({ fromStates: src, out }, sink()))
        .rejects.toMatchObject({ name: 'ConfigError', message: `--out: ${out} is ap1/state.json, one of the documents being imported` });
    }
    expect(readFileSync(capture)).toEqual(before);
  });

  it('says so for an empty folder too', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(runRecordImport({ fromStates: empty, out: join(dir, 'empty.ndjson') }, sink()))
      .rejects.toMatchObject({ name: 'NothingToRecordError', message: `${empty} holds no state, healthcheck, capabilities or configuration document (0 files skipped): nothing recorded` });
    expect(existsSync(join(dir, 'empty.ndjson'))).toBe(false);
  });
});

describe('airtwin record --from-states on exports of the gateway API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-import-api-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports saved statistics, health check and capabilities answers; a --keep-time replay serves the same values', async () => {
    // A gateway with history: a simulated lab replayed with its recorded times.
    const recording = join(dir, 'lab.ndjson');
    await runSimulate({ scenario: 'lab', seed: 7, until: '10m', record: recording }, sink());
    const source = await startTestServer({ sim: false, replay: recording, speed: 'max', keepTime: true, dataDir: join(dir, 'source') });
    const exports = join(dir, 'exports');
    mkdirSync(exports);
    let serial: string;
    let stats: { serialNumber: string; values: { recorded: number; UUID: number; data: string }[] };
    let checks: { values: { recorded: number; UUID: number; sanity: number; data: string }[] };
    let capabilities: { capabilities: string };
    try {
      await source.running.replay!.done;
      await source.running.ingest.flush();
      serial = (await source.gw<{ devices: { serialNumber: string }[] }>('GET', '/devices')).body.devices[0]!.serialNumber;
      stats = (await source.gw('GET', `/device/${serial}/statistics?limit=1000`)).body;
      checks = (await source.gw('GET', `/device/${serial}/healthchecks?limit=1000`)).body;
      capabilities = (await source.gw('GET', `/device/${serial}/capabilities`)).body;
      // Saved as a user would: curl ... > file. One value of the statistics is broken, and a
      // log export is not imported.
      writeFileSync(join(exports, 'statistics.json'), JSON.stringify({ ...stats, values: [...stats.values, { recorded: 1, UUID: 1, data: 'not json' }] }));
      writeFileSync(join(exports, 'healthchecks.json'), JSON.stringify(checks));
      writeFileSync(join(exports, 'capabilities.json'), JSON.stringify(capabilities));
      writeFileSync(join(exports, 'logs.json'), JSON.stringify((await source.gw('GET', `/device/${serial}/logs`)).body));
    } finally {
      await source.close();
    }
    expect(stats.values.length).toBeGreaterThan(3);
    expect(checks.values.length).toBeGreaterThan(0);

    const out = join(dir, 'imported.ndjson');
    const summary = await runRecordImport({ fromStates: exports, out }, sink());
    expect(summary.devices).toBe(1);
    expect(summary.skipped).toContainEqual({ file: 'statistics.json', reason: `values[${stats.values.length}]: data is not a JSON object (or JSON text of one)` });
    const replayed = await runReplay({ file: out, dataDir: join(dir, 'imported'), speed: 'max', keepTime: true }, { out: sink() });
    expect(replayed.summary).toMatchObject({ rejectedCount: 0, refusedCount: 0 });

    const served = await startTestServer({ sim: false, dataDir: join(dir, 'imported') });
    try {
      // The same answers: times, UUIDs and documents as the source gateway gave them.
      expect((await served.gw('GET', `/device/${serial}/statistics?limit=1000`)).body).toEqual(stats);
      expect((await served.gw('GET', `/device/${serial}/healthchecks?limit=1000`)).body).toEqual(checks);
      expect((await served.gw('GET', `/device/${serial}/capabilities`)).body.capabilities).toBe(capabilities.capabilities);
    } finally {
      await served.close();
    }
  }, 60_000);

  it('imports saved log answers (logs, crash and recovery logs, reboot logs) as the frames that made them', async () => {
    const S = 'a0b1c2000031';
    const T0 = 1_790_000_000_000;
    const up = (t: number, method: string, params: Record<string, unknown>) => JSON.stringify({ t: T0 + t, serial: S, dir: 'up', frame: { jsonrpc: '2.0', method, params: { serial: S, ...params } } });
    const state = { unit: { uptime: 5 }, radios: [{ channel: 36, band: '5G' }] };
    const recording = join(dir, 'logs.ndjson');
    writeFileSync(recording, [
      JSON.stringify({ t: T0, serial: S, event: 'connect' }),
      up(0, 'connect', { uuid: 5, firmware: 'fw', capabilities: { compatible: 'x', platform: 'ap', wifi: {} } }),
      up(1_000, 'state', { uuid: 5, state }),
      up(2_000, 'log', { log: 'dhcp lease renewed', severity: 5, data: { iface: 'up0' } }),
      up(3_000, 'crashlog', { uuid: 5, loglines: ['oops', 'at line 1'] }),
      up(4_000, 'recovery', { uuid: 5, firmware: 'fw-2', reboot: false, loglines: ['watchdog'] }),
      up(5_000, 'rebootLog', { uuid: 5, type: 'cold', date: 1_789_999_000, info: ['power loss'] }),
      up(6_000, 'state', { uuid: 5, state }),
    ].join('\n') + '\n');
    const source = await startTestServer({ sim: false, replay: recording, speed: 'max', keepTime: true, dataDir: join(dir, 'logs-source') });
    const exports = join(dir, 'log-exports');
    mkdirSync(exports);
    const logs: unknown[] = [];
    try {
      await source.running.replay!.done;
      await source.running.ingest.flush();
      writeFileSync(join(exports, 'statistics.json'), JSON.stringify((await source.gw('GET', `/device/${S}/statistics`)).body));
      // Every kind (the default, logType 0), then the normal (1) and the crash logs (2) again:
      // overlapping answers, as a user saving them one by one gets, each entry imported once.
      for (const logType of [0, 1, 2]) {
        const answer = (await source.gw('GET', `/device/${S}/logs?logType=${logType}`)).body;
        logs.push(answer);
        writeFileSync(join(exports, `logs-${logType}.json`), JSON.stringify(answer));
      }
    } finally {
      await source.close();
    }
    // Stored kinds: 0 the log, 1 the crash and the recovery, 2 the reboot log.
    expect((logs[0] as { values: { logType: number }[] }).values.map((v) => v.logType).sort()).toEqual([0, 1, 1, 2]);
    const summary = await runRecordImport({ fromStates: exports, out: join(dir, 'logs-imported.ndjson') }, sink());
    expect(summary).toMatchObject({ devices: 1, skipped: [] });
    // connect event and frame, two states, four logs: no entry twice.
    expect(summary.lines).toBe(8);
    const replayed = await runReplay({ file: join(dir, 'logs-imported.ndjson'), dataDir: join(dir, 'logs-imported'), speed: 'max', keepTime: true }, { out: sink() });
    expect(replayed.summary).toMatchObject({ rejectedCount: 0, refusedCount: 0 });
    const served = await startTestServer({ sim: false, dataDir: join(dir, 'logs-imported') });
    try {
      for (const [logType, answer] of logs.entries()) expect((await served.gw('GET', `/device/${S}/logs?logType=${logType}`)).body).toEqual(answer);
    } finally {
      await served.close();
    }
  }, 60_000);

  it('says why an export it cannot use is skipped, and spaces reports without times as captures', async () => {
    const odd = join(dir, 'odd');
    mkdirSync(odd);
    const state = { unit: { uptime: 5 }, radios: [{ channel: 36, band: '5G' }] };
    writeFileSync(join(odd, 'bad-capabilities.json'), JSON.stringify({ serialNumber: 'a0b1c2000011', capabilities: '{not json' }));
    writeFileSync(join(odd, 'empty.json'), JSON.stringify({ serialNumber: 'a0b1c2000012', values: [] }));
    writeFileSync(join(odd, 'all-bad.json'), JSON.stringify({ serialNumber: 'a0b1c2000013', values: [7, { data: 3 }] }));
    // One value without its time: this device's reports get the synthetic spacing.
    writeFileSync(join(odd, 'untimed.json'), JSON.stringify({ serialNumber: 'a0b1c2000014', values: [{ UUID: 3, recorded: 1_790_000_000, data: JSON.stringify(state) }, { UUID: 3, data: state }] }));
    const out = join(dir, 'odd.ndjson');
    const summary = await runRecordImport({ fromStates: odd, out, startMs: 1_700_000_000_000, intervalMs: 60_000 }, sink());
    expect(summary.skipped).toEqual([
      { file: 'all-bad.json', reason: 'values[0]: not a JSON object' },
      { file: 'all-bad.json', reason: 'values[1]: data is not a JSON object (or JSON text of one)' },
      { file: 'all-bad.json', reason: 'an API export with no usable value' },
      { file: 'bad-capabilities.json', reason: 'capabilities is not a JSON object (or JSON text of one)' },
      { file: 'empty.json', reason: 'an API export with no values' },
    ]);
    const times = readFileSync(out, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { t: number }).t);
    expect(times).toEqual([1_700_000_000_000, 1_700_000_000_000, 1_700_000_060_000, 1_700_000_120_000]);
  });

  it('imports an entry once when answers overlap, but keeps equal entries of one answer', async () => {
    const twice = join(dir, 'twice');
    mkdirSync(twice);
    const value = { UUID: 2, recorded: 1_790_000_000, data: { unit: { uptime: 5 }, radios: [] } };
    writeFileSync(join(twice, 'a.json'), JSON.stringify({ serialNumber: 'a0b1c2000041', values: [value, value] }));
    writeFileSync(join(twice, 'b.json'), JSON.stringify({ serialNumber: 'a0b1c2000041', values: [value, { ...value, recorded: 1_790_000_060 }] }));
    const summary = await runRecordImport({ fromStates: twice, out: join(dir, 'twice.ndjson') }, sink());
    const states = readFileSync(join(dir, 'twice.ndjson'), 'utf8').trim().split('\n').filter((l) => l.includes('"method":"state"'));
    expect(summary.skipped).toEqual([]);
    expect(states.map((l) => (JSON.parse(l) as { t: number }).t)).toEqual([1_790_000_000_000, 1_790_000_000_000, 1_790_000_060_000]);
  });

  it('keeps one time base per file: exported times for all devices or for none', async () => {
    const state = { unit: { uptime: 5 }, radios: [{ channel: 36, band: '5G' }] };
    const T = 1_790_000_000;
    const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: number; serial: string; dir?: string });
    // Exported statistics of one AP and the capabilities alone of another: the latter connects with the first report.
    const timed = join(dir, 'timed');
    mkdirSync(timed);
    writeFileSync(join(timed, 'a-statistics.json'), JSON.stringify({ serialNumber: 'a0b1c2000021', values: [{ UUID: 2, recorded: T + 60, data: state }, { UUID: 2, recorded: T, data: state }] }));
    writeFileSync(join(timed, 'b-capabilities.json'), JSON.stringify({ serialNumber: 'a0b1c2000022', capabilities: JSON.stringify({ compatible: 'x', platform: 'ap', wifi: {} }) }));
    expect((await runRecordImport({ fromStates: timed, out: join(dir, 'timed.ndjson') }, sink())).timeBase).toBe('recorded');
    expect(lines(join(dir, 'timed.ndjson')).map((l) => [l.serial, l.t])).toEqual([
      ['a0b1c2000021', T * 1000], ['a0b1c2000021', T * 1000], ['a0b1c2000021', T * 1000],
      ['a0b1c2000022', T * 1000], ['a0b1c2000022', T * 1000], ['a0b1c2000021', (T + 60) * 1000],
    ]);
    // The same export next to a raw capture with no time: the synthetic spacing for both, not 2023 and 2026 in one file.
    const mixed = join(dir, 'mixed');
    mkdirSync(join(mixed, 'ap'), { recursive: true });
    writeFileSync(join(mixed, 'a-statistics.json'), readFileSync(join(timed, 'a-statistics.json')));
    writeFileSync(join(mixed, 'ap', 'state.json'), JSON.stringify(state));
    let said = '';
    const told = new PassThrough().on('data', (d: Buffer) => { said += d.toString(); });
    const summary = await runRecordImport({ fromStates: mixed, out: join(dir, 'mixed.ndjson'), startMs: 1_700_000_000_000 }, told);
    expect(summary.timeBase).toBe('synthetic');
    // Said, not silent.
    expect(said).toContain(`record: 2 of 3 reports carry their recorded time, the others (${join('ap', 'state.json')} first) do not: `
      + 'all are on made-up times from 2023-11-14T22:13:20.000Z, one every 60 s (import the exports alone to keep their times)\n');
    const t = lines(join(dir, 'mixed.ndjson')).map((l) => l.t);
    expect(Math.min(...t)).toBe(1_700_000_000_000);
    expect(Math.max(...t)).toBeLessThan(1_700_000_000_000 + 3 * 60_000);
  });
});
