import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecordImport, type RecordImportSummary } from '../../../src/commands/record-import.js';
import { runReplay, type ReplayResult } from '../../../src/commands/replay.js';
import { Store } from '../../../src/store/duckdb.js';

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
