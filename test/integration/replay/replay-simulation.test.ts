import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplay, type ReplayResult } from '../../../src/runtime/replay.js';
import { runSimulate } from '../../../src/runtime/simulate.js';
import { buildModel, type DeviceDocuments } from '../../../src/rrm/model/build.js';
import { queryModel } from '../../../src/rrm/model-query.js';
import { Store } from '../../../src/store/duckdb.js';

const sink = () => new PassThrough().resume();
/** An output stream and what was written to it. */
const text = () => {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, read: () => Buffer.concat(chunks).toString('utf8') };
};
/** The wall clock of a test: "now" is fixed so a replay without --keep-time is repeatable. */
const fixedWall = { now: () => 1_800_000_000_000, setTimeout: () => 0, clearTimeout: () => undefined };

interface Counts { [serial: string]: { state: number; healthcheck: number; log: number; connect: number } }

/** What the recording holds per serial, read straight from the file. */
function countRecording(file: string): Counts {
  const out: Counts = {};
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text) continue;
    const l = JSON.parse(text) as { serial: string; dir?: string; frame?: { method?: string } };
    const c = (out[l.serial] ??= { state: 0, healthcheck: 0, log: 0, connect: 0 });
    const m = l.frame?.method;
    if (m === 'state' || m === 'healthcheck' || m === 'log' || m === 'connect') c[m]++;
  }
  return out;
}

async function tableCounts(dataDir: string): Promise<Record<string, Record<string, number>>> {
  const store = await Store.open(dataDir);
  try {
    const out: Record<string, Record<string, number>> = {};
    for (const table of ['statistics', 'health_checks', 'device_logs', 'capabilities']) {
      const rows = await store.query<{ serial: string; n: number }>(`SELECT serial, count(*) AS n FROM ${table} GROUP BY serial ORDER BY serial`);
      out[table] = Object.fromEntries(rows.map((r) => [r.serial, r.n]));
    }
    return out;
  } finally {
    await store.close();
  }
}

/** The RRM data model from a data dir's states, scans and capabilities (what `currentModel` is built from). */
async function modelOf(dataDir: string) {
  const store = await Store.open(dataDir);
  try {
    const docs = new Map<string, DeviceDocuments>();
    const doc = (serial: string) => {
      let d = docs.get(serial);
      if (!d) docs.set(serial, (d = { serial, states: [], scans: [] }));
      return d;
    };
    for (const r of await store.query<{ serial: string; recorded: number; data: string }>('SELECT serial, recorded, data FROM statistics ORDER BY id')) {
      doc(r.serial).states.push({ recorded: r.recorded * 1000, state: JSON.parse(r.data) });
    }
    for (const r of await store.query<{ serial: string; capabilities: string }>('SELECT serial, capabilities FROM capabilities')) {
      doc(r.serial).capabilities = JSON.parse(r.capabilities);
    }
    return buildModel([...docs.values()].sort((a, b) => (a.serial < b.serial ? -1 : 1)));
  } finally {
    await store.close();
  }
}

describe('airtwin replay of a seeded simulation (lab, seed 7, 10 simulated minutes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-replay-'));
  const file = join(dir, 'lab.ndjson');
  let first: ReplayResult;
  let second: ReplayResult;

  beforeAll(async () => {
    await runSimulate({ scenario: 'lab', seed: 7, until: '10m', record: file }, sink());
    first = await runReplay({ file, dataDir: join(dir, 'data-1'), speed: 'max' }, { out: sink(), clock: fixedWall });
    second = await runReplay({ file, dataDir: join(dir, 'data-2'), speed: 'max' }, { out: sink(), clock: fixedWall });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays every recorded frame of every device and rejects no line', () => {
    const recorded = countRecording(file);
    const frames = Object.values(recorded).reduce((n, c) => n + c.state + c.healthcheck + c.log + c.connect, 0);
    expect(Object.keys(recorded)).toHaveLength(3);
    expect(first.summary.devices).toBe(3);
    expect(first.summary.frames).toBeGreaterThanOrEqual(frames);
    expect(first.summary.rejected).toEqual([]);
    expect(first.summary.dropped).toBe(0);
  });

  it('finds one statistics row per recorded state, one health check per healthcheck, one capabilities row per device', async () => {
    const recorded = countRecording(file);
    const counts = await tableCounts(join(dir, 'data-1'));
    for (const [serial, c] of Object.entries(recorded)) {
      expect(counts.statistics![serial]).toBe(c.state);
      expect(counts.health_checks![serial]).toBe(c.healthcheck);
      expect(counts.capabilities![serial]).toBe(1);
    }
  });

  it('leaves each device online with its last recorded state', () => {
    for (const d of Object.values(first.devices)) {
      expect(d.status.connected).toBe(true);
      expect(d.lastState).toBeDefined();
    }
  });

  it('gives the same end state per device and the same rows when the same file is replayed twice', async () => {
    expect(second.devices).toEqual(first.devices);
    expect(await tableCounts(join(dir, 'data-2'))).toEqual(await tableCounts(join(dir, 'data-1')));
  });

  it('builds the same RRM model from both replays, with every device in it', async () => {
    const a = await modelOf(join(dir, 'data-1'));
    expect(Object.keys(a.latestStates)).toHaveLength(3);
    expect(Object.keys(a.latestDeviceStatusRadios)).toHaveLength(3);
    expect(await modelOf(join(dir, 'data-2'))).toEqual(a);
  });

  it('fills the RRM model with the APs\' periodic scans: no wifiscan command was sent, scans name the neighbours\' widths', async () => {
    const store = await Store.open(join(dir, 'data-1'));
    try {
      const serials = Object.keys(countRecording(file)).sort();
      const model = await queryModel(store, serials);
      expect(Object.keys(model.latestWifiScans).sort()).toEqual(serials);
      for (const serial of serials) {
        const scans = model.latestWifiScans[serial]!;
        expect(scans.length).toBeGreaterThanOrEqual(5); // lab: one every 60 s for 10 minutes
        const managed = scans.at(-1)!.filter((e) => serials.some((o) => o !== serial && e.bssid.endsWith(o.slice(2).match(/../g)!.join(':'))));
        expect(managed.length).toBeGreaterThan(0);
        for (const e of managed) expect(e.ht_oper).toEqual(expect.any(String));
      }
      const [commands] = await store.query<{ n: number }>('SELECT count(*) AS n FROM commands');
      expect(Number(commands!.n)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('places the recording so its last line plays now, unless --keep-time', async () => {
    const recorded = readFileSync(file, 'utf8').trim().split('\n');
    const [firstT, lastT] = [recorded[0]!, recorded.at(-1)!].map((l) => (JSON.parse(l) as { t: number }).t) as [number, number];
    const kept = await runReplay({ file, dataDir: join(dir, 'data-3'), speed: 'max', keepTime: true }, { out: sink(), clock: fixedWall });
    const started = (r: ReplayResult) => Math.min(...Object.values(r.devices).map((d) => d.status.started));
    const lastContact = (r: ReplayResult) => Math.max(...Object.values(r.devices).map((d) => d.status.lastContact));
    expect(started(kept) * 1000).toBeGreaterThanOrEqual(Math.floor(firstT / 1000) * 1000); // started is in seconds
    expect(started(kept) * 1000).toBeLessThan(firstT + 60_000);
    expect(lastContact(kept) * 1000).toBeLessThanOrEqual(lastT);
    // Without --keep-time the recording ends now: nothing the replay wrote is dated after it
    // (its first line playing now dated the last ten minutes ahead of the wall).
    const now = fixedWall.now();
    expect(lastContact(first) * 1000).toBeLessThanOrEqual(now);
    expect(lastContact(first) * 1000).toBeGreaterThan(now - 60_000);
    expect(started(first) * 1000).toBeGreaterThanOrEqual(Math.floor((now - (lastT - firstT)) / 1000) * 1000);
    expect(started(first) * 1000).toBeLessThan(now - (lastT - firstT) + 60_000);
  });

  it('says before a --keep-time replay when the data dir already holds rows of the recording\'s devices and time', async () => {
    const dataDir = join(dir, 'data-kept-twice');
    const a = text();
    const once = await runReplay({ file, dataDir, speed: 'max', keepTime: true }, { out: a.out, clock: fixedWall });
    expect(once.overlap).toEqual({ statistics: 0, health_checks: 0, device_logs: 0 });
    expect(a.read()).not.toContain('note:');
    const written = await tableCounts(dataDir);
    const total = (t: string) => Object.values(written[t]!).reduce((n, c) => n + c, 0);
    const b = text();
    const twice = await runReplay({ file, dataDir, speed: 'max', keepTime: true }, { out: b.out, clock: fixedWall });
    // Everything the first replay wrote is in the recording's span, so all of it is counted.
    expect(twice.overlap).toEqual({ statistics: total('statistics'), health_checks: total('health_checks'), device_logs: total('device_logs') });
    expect(total('statistics')).toBeGreaterThan(0);
    const recorded = readFileSync(file, 'utf8').trim().split('\n');
    const [firstT, lastT] = [recorded[0]!, recorded.at(-1)!].map((l) => (JSON.parse(l) as { t: number }).t);
    expect(b.read()).toContain(`replay: note: ${dataDir} already holds ${total('statistics')} statistics, ${total('health_checks')} health check and ${total('device_logs')} log rows of these devices within the recording's span (${new Date(firstT!).toISOString()} to ${new Date(lastT!).toISOString()})`);
    // The note is true: the rows are there twice now.
    const after = await tableCounts(dataDir);
    for (const [serial, n] of Object.entries(written.statistics!)) expect(after.statistics![serial]).toBe(2 * n);
    // Without --keep-time the rows are new history at a new time: no note.
    const c = text();
    const shifted = await runReplay({ file, dataDir, speed: 'max' }, { out: c.out, clock: fixedWall });
    expect(shifted.overlap).toBeUndefined();
    expect(c.read()).not.toContain('note:');
    // Those rows are dated after the recording's end (at the wall's now): a later --keep-time
    // replay counts the two kept copies, not them.
    const d = text();
    const thrice = await runReplay({ file, dataDir, speed: 'max', keepTime: true }, { out: d.out, clock: fixedWall });
    expect(thrice.overlap).toEqual({ statistics: 2 * total('statistics'), health_checks: 2 * total('health_checks'), device_logs: 2 * total('device_logs') });
  });

  it('stores the rest and reports the one row DuckDB cannot hold, when a recorded value is out of range', async () => {
    // An event whose timestamp is 1e300 after the first state: valid JSON, a frame the actor
    // takes (the data is the AP's own), too big for device_events' BIGINT column.
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"method":"state"'));
    const { t, serial } = JSON.parse(lines[at]!) as { t: number; serial: string };
    const event = (ts: number) => JSON.stringify({ t, serial, dir: 'up', frame: { jsonrpc: '2.0', method: 'event', params: { serial, data: { event: [ts, { type: 'wifi.start', payload: {} }] } } } });
    lines.splice(at + 1, 0, event(1), event(1e300), event(2));
    const bad = join(dir, 'bad-value.ndjson');
    writeFileSync(bad, lines.join('\n'));
    const out = text();
    // Before the fix the retry waited on the virtual clock, which stands still after the last
    // line: this never settled (the CLI exited 13 with the batch unwritten).
    const r = await runReplay({ file: bad, dataDir: join(dir, 'data-bad'), speed: 'max' }, { out: out.out, clock: fixedWall });
    expect(r.summary.rejected).toEqual([]);
    expect(r.summary.refusedCount).toBe(0);
    expect(r.ingest).toMatchObject({ rowsRejected: 1, retries: 0 });
    const printed = out.read();
    expect(printed).toContain('out of range for the destination type INT64');
    expect(printed).toContain('replay: 1 rows DuckDB refused were not stored (each is logged above)');
    const store = await Store.open(join(dir, 'data-bad'));
    try {
      const rows = await store.query<{ timestamp: number }>('SELECT timestamp FROM device_events WHERE event_type = \'wifi.start\' ORDER BY timestamp');
      expect(rows.map((x) => Number(x.timestamp))).toEqual([1, 2]);
    } finally {
      await store.close();
    }
    // The rest of the batch is all there.
    expect(await tableCounts(join(dir, 'data-bad'))).toEqual(await tableCounts(join(dir, 'data-1')));
  });

  it('refuses a connect whose uuid is out of range, as a live one, and replays the other devices', async () => {
    // One insert provisions every recorded device: one bad connect must not fail it.
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"method":"connect"'));
    const serial = (JSON.parse(lines[at]!) as { serial: string }).serial;
    lines[at] = lines[at]!.replace(/"uuid":\d+/, '"uuid":1e30');
    const bad = join(dir, 'bad-uuid.ndjson');
    writeFileSync(bad, lines.join('\n'));
    const r = await runReplay({ file: bad, dataDir: join(dir, 'data-bad-uuid'), speed: 'max' }, { out: sink(), clock: fixedWall });
    expect(r.summary.refused[0]).toEqual({ line: at + 1, reason: 'refused by the device actor: connect: params.uuid 1e+30 is out of the range of a 64-bit integer' });
    // Its later frames are refused too (no session), and no record was made for it.
    const counts = await tableCounts(join(dir, 'data-bad-uuid'));
    expect(counts.statistics![serial]).toBeUndefined();
    const others = Object.keys(first.devices).filter((s) => s !== serial);
    for (const s of others) expect(counts.statistics![s]).toBe(countRecording(file)[s]!.state);
    const store = await Store.open(join(dir, 'data-bad-uuid'));
    try {
      const rows = await store.query<{ serial: string }>('SELECT serial FROM devices ORDER BY serial');
      expect(rows.map((x) => x.serial)).toEqual(others.sort());
    } finally {
      await store.close();
    }
  });

  it('provisions an AP whose first connect is refused from its next, valid one', async () => {
    // The bad connect, then the AP reconnects with its real one: provisioning must look past
    // the first connect, or this AP would be admitted mid-replay (a record written on wall time
    // while the virtual clock raced past the admission timeout: dropped, its frames lost).
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"method":"connect"'));
    const good = JSON.parse(lines[at]!) as { t: number; serial: string };
    const serial = good.serial;
    lines[at] = lines[at]!.replace(/"uuid":\d+/, '"uuid":1e30');
    lines.splice(at + 1, 0,
      JSON.stringify({ t: good.t, serial, event: 'disconnect' }),
      JSON.stringify({ t: good.t, serial, event: 'connect' }),
      JSON.stringify(good));
    const bad = join(dir, 'bad-then-good.ndjson');
    writeFileSync(bad, lines.join('\n'));
    const r = await runReplay({ file: bad, dataDir: join(dir, 'data-bad-then-good'), speed: 'max' }, { out: sink(), clock: fixedWall });
    expect(r.summary.refused.map((x) => x.line)).toEqual([at + 1]);
    expect(r.summary.dropped).toBe(0);
    const counts = await tableCounts(join(dir, 'data-bad-then-good'));
    expect(counts.statistics![serial]).toBe(countRecording(file)[serial]!.state);
  });

  it('stores each state at its recorded time in a paced --keep-time replay (speed 1000)', async () => {
    // Before the fix the scaled clock ran on 1000x while the data dir opened, and a line played a
    // millisecond late was stamped a second late: states landed seconds to minutes after their time.
    const r = await runReplay({ file, dataDir: join(dir, 'data-paced'), speed: 1000, keepTime: true }, { out: sink() });
    expect(r.summary.rejected).toEqual([]);
    const recorded = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: number; serial: string; dir?: string; frame?: { method?: string } })
      .filter((l) => l.dir === 'up' && l.frame?.method === 'state').map((l) => `${l.serial} ${Math.floor(l.t / 1000)}`).sort();
    const store = await Store.open(join(dir, 'data-paced'));
    try {
      const rows = await store.query<{ serial: string; recorded: number }>('SELECT serial, recorded FROM statistics');
      expect(rows.map((x) => `${x.serial} ${x.recorded}`).sort()).toEqual(recorded);
    } finally {
      await store.close();
    }
  });

  it('writes the command records the end of the replay changes before the data dir closes', async () => {
    // A recorded reboot with no result: the end of the replay fails it ("The replay ended."),
    // written before the store closes, so it is not left pending for good.
    // Then a state reporting config uuid 1, older than the stored one: a live AP would get the
    // stored configuration pushed; a replayed one plays back only what was recorded, so no
    // configure is submitted.
    const all = readFileSync(file, 'utf8').split('\n');
    const head = all.slice(0, 8);
    const first = JSON.parse(head.find((l) => l.includes('"method":"connect"'))!) as { serial: string };
    const t = (JSON.parse(head.at(-1)!) as { t: number }).t;
    const reboot = { t: t + 1000, serial: first.serial, dir: 'down', frame: { jsonrpc: '2.0', method: 'reboot', id: 5, params: { serial: first.serial, when: 0 } } };
    const state = JSON.parse(all.find((l) => l.includes(`"serial":"${first.serial}","dir":"up"`) && l.includes('"method":"state"'))!) as { t: number; frame: { params: { uuid: number } } };
    state.t = t + 2000;
    state.frame.params.uuid = 1;
    const cut = join(dir, 'unanswered.ndjson');
    writeFileSync(cut, `${head.join('\n')}\n${JSON.stringify(reboot)}\n${JSON.stringify(state)}\n`);
    const out = text();
    await runReplay({ file: cut, dataDir: join(dir, 'data-unanswered'), speed: 'max' }, { out: out.out, clock: fixedWall });
    expect(out.read()).not.toContain('write failed');
    const store = await Store.open(join(dir, 'data-unanswered'));
    try {
      const rows = await store.query<{ command: string; status: string; error_text: string }>('SELECT command, status, error_text FROM commands ORDER BY command');
      expect(rows).toEqual([
        { command: 'reboot', status: 'failed', error_text: 'The replay ended.' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('ends what is still open with "The replay ended." at the last line\'s time in a paced replay too', async () => {
    // A reboot with no recorded result one second before the end: at --speed 1000 its 30 s
    // timeout is 30 ms of wall time, which the clock must not run into while the replay closes.
    const all = readFileSync(file, 'utf8').trim().split('\n');
    const last = JSON.parse(all.at(-1)!) as { t: number; serial: string };
    const reboot = { t: last.t - 1000, serial: last.serial, dir: 'down', frame: { jsonrpc: '2.0', method: 'reboot', id: 9_999, params: { serial: last.serial, when: 0 } } };
    const paced = join(dir, 'paced-unanswered.ndjson');
    writeFileSync(paced, `${[...all.slice(0, -1), JSON.stringify(reboot), all.at(-1)].join('\n')}\n`);
    await runReplay({ file: paced, dataDir: join(dir, 'data-paced-unanswered'), speed: 1000, keepTime: true }, { out: sink() });
    const store = await Store.open(join(dir, 'data-paced-unanswered'));
    try {
      const rows = await store.query<{ status: string; error_text: string; completed: number }>('SELECT status, error_text, completed FROM commands WHERE command = \'reboot\'');
      expect(rows).toEqual([{ status: 'failed', error_text: 'The replay ended.', completed: Math.floor(last.t / 1000) }]);
    } finally {
      await store.close();
    }
  });

  it('cuts the same recording into parts with --record-max-bytes, and replays the parts as the one file', async () => {
    const parted = join(dir, 'parted.ndjson');
    const sim = await runSimulate({ scenario: 'lab', seed: 7, until: '10m', record: parted, recordMaxBytes: 100_000 }, sink());
    expect(sim.files.length).toBeGreaterThan(2);
    expect(sim.files).toEqual(sim.files.map((_, i) => (i === 0 ? parted : `${parted}.${i}`)));
    for (const f of sim.files) {
      expect(statSync(f).size).toBeLessThanOrEqual(100_000);
      expect(readFileSync(f, 'utf8').endsWith('\n')).toBe(true);
    }
    // Cut at line boundaries only: the parts together are the unparted file, byte for byte.
    expect(Buffer.concat(sim.files.map((f) => readFileSync(f))).equals(readFileSync(file))).toBe(true);
    const replayed = await runReplay({ file: parted, dataDir: join(dir, 'data-parted'), speed: 'max' }, { out: sink(), clock: fixedWall });
    expect(replayed.summary).toEqual(first.summary);
    expect(replayed.devices).toEqual(first.devices);
  });
});

describe('airtwin simulate --record to a file it cannot write', () => {
  it('refuses a path in a missing folder before simulating (a usage error)', async () => {
    await expect(runSimulate({ scenario: 'lab', until: '1m', record: '/nonexistent-airtwin-dir/x.ndjson' }, new PassThrough().resume()))
      .rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(/^--record: cannot write \/nonexistent-airtwin-dir\/x\.ndjson \(its folder: ENOENT\)/) });
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-sim-folder-'));
    try {
      await expect(runSimulate({ scenario: 'lab', until: '1m', record: dir }, new PassThrough().resume()))
        .rejects.toMatchObject({ name: 'ConfigError', message: `--record: ${dir} is a folder` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with a RecordingError naming the file when the disk is full (/dev/full)', async () => {
    await expect(runSimulate({ scenario: 'lab', until: '10m', record: '/dev/full' }, new PassThrough().resume()))
      .rejects.toMatchObject({ name: 'RecordingError', file: '/dev/full', code: 'ENOSPC', message: expect.stringMatching(/^recording \/dev\/full: ENOSPC/) });
  });
});
