import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, constants as fsConstants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { Store } from '../../src/store/duckdb.js';
import { startNats } from '../helpers/nats.js';
import { until } from '../helpers/until.js';

const BIN = new URL('../../bin/airtwin.mjs', import.meta.url).pathname;
/**
 * Bound of a test that runs one or two CLI processes. Each starts node and the tsx loader, which
 * takes well under a second on an idle machine and many seconds on a loaded one.
 */
const PROCESS_MS = 120_000;
const INGEST_TABLES = ['statistics', 'health_checks', 'device_logs', 'capabilities', 'state_radios', 'state_associations', 'wifi_scan_entries', 'device_events', 'telemetry'];

describe('airtwin serve as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the lab venue, serves both APIs, and loses nothing on SIGTERM', async () => {
    child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--gateway-port', '0', '--rrm-port', '0', '--scenario', 'lab', '--speed', '20', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const banner = await until('the banner', async () => out, (o) => /token\s+(\S+)/.test(o), 30_000);
    const gateway = /gateway\s+(http:\/\/\S+)\/api\/v1/.exec(banner)![1]!;
    const rrm = /rrm\s+(http:\/\/\S+)\/api\/v1/.exec(banner)![1]!;
    const token = /token\s+(\S+)/.exec(banner)![1]!;
    expect(banner).toMatch(/venue\s+lab: 3 APs/);

    const health = await until('3 connected APs', async () => (await (await fetch(`${gateway}/health`)).json()) as any,
      (h) => h.devices.connected === 3 && h.ingest.rowsWritten > 0, 30_000);
    expect(health.status).toBe('ok');
    const metrics = await (await fetch(`${gateway}/metrics`)).text();
    expect(metrics).toMatch(/airtwin_devices_connected 3/);

    const auth = { authorization: `Bearer ${token}` };
    const devices = (await (await fetch(`${gateway}/api/v1/devices?deviceWithStatus=true`, { headers: auth })).json()) as any;
    expect(devices.devicesWithStatus.filter((d: { connected: boolean }) => d.connected)).toHaveLength(3);
    expect((await fetch(`${rrm}/api/v1/system?command=info`, { headers: auth })).status).toBe(200);

    // Rows written per table and rows still queued, from one snapshot; capability upserts
    // collapse to one row per AP, so they are checked apart from the tables that only grow.
    const snapshot = await (await fetch(`${gateway}/metrics`)).text();
    const written: Record<string, number> = {};
    for (const m of snapshot.matchAll(/^airtwin_ingest_table_rows_written_total\{table="(\w+)"\} (\d+)$/gm)) written[m[1]!] = Number(m[2]);
    const queued = Number(/^airtwin_ingest_rows_queued (\d+)$/m.exec(snapshot)![1]);
    const exited = new Promise<number | null>((r) => child!.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const store = await Store.open(dataDir);
    try {
      const stored: Record<string, number> = {};
      for (const table of INGEST_TABLES) stored[table] = (await store.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n;
      const growing = INGEST_TABLES.filter((t) => t !== 'capabilities');
      const detail = JSON.stringify({ written, queued, stored });
      // Every row written before SIGTERM is still there...
      for (const table of growing) expect(stored[table], detail).toBeGreaterThanOrEqual(written[table] ?? 0);
      // ...and so is what was still queued (at most one of it per AP a capability upsert).
      const sum = (o: Record<string, number>) => growing.reduce((n, t) => n + (o[t] ?? 0), 0);
      expect(sum(stored), detail).toBeGreaterThanOrEqual(sum(written) + Math.max(0, queued - 3));
      expect(stored.capabilities, detail).toBe(3);
      const lab = await store.query<{ n: number }>('SELECT count(*) AS n FROM devices WHERE simulated');
      expect(lab[0]!.n).toBe(3);
    } finally {
      await store.close();
    }
  }, PROCESS_MS);

  it('exits 2 with one line for a bad flag or an unusable data dir', () => {
    const bad = spawnSync(process.execPath, [BIN, 'serve', '--gateway-port', 'abc'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--gateway-port/);
    const dir = spawnSync(process.execPath, [BIN, 'serve', '--data-dir', '/etc/passwd/x'], { encoding: 'utf8' });
    expect(dir.status).toBe(2);
    expect(dir.stderr).toMatch(/--data-dir/);
    // replay's data dir the same way (a recording of any content: its lines are checked later).
    const replayDir = spawnSync(process.execPath, [BIN, 'replay', BIN, '--data-dir', '/etc/passwd/x'], { encoding: 'utf8' });
    expect(replayDir.status).toBe(2);
    expect(replayDir.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: --data-dir: \/etc\/passwd\/x is not usable \(ENOTDIR\)$/)]);
    // A folder that cannot be made under one that exists: node's recursive mkdir spun there
    // forever at 100 % CPU (SIGKILL after 20 s, since the spinning process handles no signal).
    // (A file that is a recording: one that is not is refused before the data dir is opened.)
    const one = join(dataDir, 'one.ndjson');
    writeFileSync(one, `${JSON.stringify({ t: 1_767_600_000_000, serial: 'a0b1c2000001', event: 'connect' })}\n`);
    for (const cmd of [['replay', one], ['serve', '--no-sim', '--gateway-port', '0', '--rrm-port', '0']]) {
      const r = spawnSync(process.execPath, [BIN, ...cmd, '--data-dir', '/proc/airtwin-x'], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
      expect(r.status, cmd[0]).toBe(2);
      expect(r.stderr, cmd[0]).toBe('airtwin: --data-dir: /proc/airtwin-x is not usable (ENOENT)\n');
    }
  }, PROCESS_MS);

  it('edge: exits 2 with one line when NATS cannot be reached or its port is in use, as serve does', async () => {
    // Port 1: nothing listens there.
    const noNats = spawnSync(process.execPath, [BIN, 'edge', '--port', '0', '--nats', 'nats://127.0.0.1:1'], { encoding: 'utf8', timeout: 30_000 });
    expect([noNats.status, noNats.stderr]).toEqual([2, 'airtwin: --nats: cannot connect to nats://127.0.0.1:1 (connection refused)\n']);
    const badOutage = spawnSync(process.execPath, [BIN, 'edge', '--port', '0', '--outage-max-bytes', '1.5'], { encoding: 'utf8', timeout: 30_000 });
    expect([badOutage.status, badOutage.stderr]).toEqual([2, 'airtwin: --outage-max-bytes: 1.5 is not a whole number of bytes (0 holds nothing)\n']);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const { port } = busy.address() as AddressInfo;
    const nats = await startNats();
    try {
      const inUse = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, [BIN, 'edge', '--port', String(port), '--host', '127.0.0.1', '--nats', nats.url, '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
        p.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(inUse).toEqual({ code: 2, stderr: `airtwin: port in use: ${port} (choose another with --port)\n` });
    } finally {
      busy.close();
      await nats.stop();
    }
  }, PROCESS_MS);

  it('exits 2 for a scenario that is not there', () => {
    const missing = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', 'no-such-venue', '--record', join(dataDir, 'x.ndjson')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^airtwin: scenario 'no-such-venue' not found/);
  }, PROCESS_MS);

  it('exits 2 for a scenario that is not valid', () => {
    const file = join(dataDir, 'bad-venue.yaml');
    writeFileSync(file, 'name: bad\naps: many\n');
    const invalid = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', file, '--record', join(dataDir, 'x.ndjson')], { encoding: 'utf8' });
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(/^airtwin: .*bad-venue\.yaml: invalid scenario\n/);
  }, PROCESS_MS);

  it('prints its version', () => {
    const version = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  }, PROCESS_MS);

  const recordingCommands = () => [['serve', '--data-dir', dataDir], ['edge', '--port', '0'], ['simulate', '--scenario', 'lab']];

  it.each(recordingCommands().map((cmd) => [cmd[0]!, cmd]))('%s checks a --record path before starting (exit 2)', (_name, cmd) => {
    const r = spawnSync(process.execPath, [BIN, ...cmd, '--record', '/nonexistent-airtwin-dir/x.ndjson'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['airtwin: --record: cannot write /nonexistent-airtwin-dir/x.ndjson (its folder: ENOENT)']);
  }, PROCESS_MS);

  it('says which recording a full disk stopped (exit 1)', () => {
    const full = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', 'lab', '--until', '10m', '--record', '/dev/full'], { encoding: 'utf8' });
    expect(full.status).toBe(1);
    expect(full.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: recording \/dev\/full: ENOSPC: no space left on device/)]);
  }, PROCESS_MS);

  describe('record --from-states writes its --out the same way', () => {
    const docs = mkdtempSync(join(tmpdir(), 'airtwin-e2e-docs-'));
    writeFileSync(join(docs, 'state.json'), JSON.stringify({ jsonrpc: '2.0', method: 'state', params: { serial: 'a0b1c2000001', uuid: 1, state: { unit: { uptime: 1 } } } }));
    afterAll(() => rmSync(docs, { recursive: true, force: true }));

    it('checked first (exit 2)', () => {
      const missing = spawnSync(process.execPath, [BIN, 'record', '--from-states', docs, '--out', '/nonexistent-airtwin-dir/x.ndjson'], { encoding: 'utf8' });
      expect(missing.status).toBe(2);
      expect(missing.stderr.trim().split('\n')).toEqual(['airtwin: --out: cannot write /nonexistent-airtwin-dir/x.ndjson (its folder: ENOENT)']);
    }, PROCESS_MS);

    it('a full disk named (exit 1)', () => {
      const fullImport = spawnSync(process.execPath, [BIN, 'record', '--from-states', docs, '--out', '/dev/full'], { encoding: 'utf8' });
      expect(fullImport.status).toBe(1);
      expect(fullImport.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: recording \/dev\/full: ENOSPC: no space left on device/)]);
    }, PROCESS_MS);
  });

  describe('a --record file that is there but cannot be written, and an empty path (exit 2)', () => {
    // Root writes any file, so the check runs as nobody there: the folder open to all, the file read-only.
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-ro-'));
    chmodSync(dir, 0o777);
    const file = join(dir, 'ro.ndjson');
    writeFileSync(file, '');
    chmodSync(file, 0o444);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const commands = [['serve', '--data-dir', join(dir, 'data')], ['edge', '--port', '0'], ['simulate', '--scenario', 'lab']];

    it.each(commands.map((cmd) => [cmd[0]!, cmd]))('%s refuses a read-only file', (_name, cmd) => {
      const ro = spawnSync(process.execPath, [BIN, ...cmd, '--record', file], { encoding: 'utf8', ...asUser, env: { ...process.env, TMPDIR: dir, HOME: dir } });
      expect(ro.status).toBe(2);
      expect(ro.stderr.trim().split('\n')).toEqual([`airtwin: --record: cannot write ${file} (EACCES)`]);
      expect(readFileSync(file, 'utf8')).toBe('');
    }, PROCESS_MS);

    it.each(commands.map((cmd) => [cmd[0]!, cmd]))('%s refuses an empty path', (_name, cmd) => {
      const empty = spawnSync(process.execPath, [BIN, ...cmd, '--record', ''], { encoding: 'utf8' });
      expect(empty.status).toBe(2);
      expect(empty.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: --record: "" is invalid/)]);
    }, PROCESS_MS);

    it('simulate refuses an empty --edge URL', () => {
      const noUrl = spawnSync(process.execPath, [BIN, 'simulate', '--edge', ''], { encoding: 'utf8' });
      expect([noUrl.status, noUrl.stderr]).toEqual([2, 'airtwin: --edge: "" is invalid (no URL)\n']);
    }, PROCESS_MS);
  });
});

describe('a recording stopped by a file that cannot grow (disk full, file size limit)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-full-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /**
   * Runs `node args` with a file size limit of `kib` KiB: a write past it writes up to the limit,
   * then fails with EFBIG, as a disk that fills mid-write does (SIGXFSZ ignored, as the shell's
   * trap leaves it through exec, so the process sees the error).
   */
  const underFileLimit = (kib: number, args: string[]) =>
    spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, ...args], { encoding: 'utf8' });

  it('simulate --record: the file is cut back to its last whole line, and the count of lines in it is said', () => {
    const file = join(dir, 'sim.ndjson');
    // 1 MiB: the 256 KiB chunks of a 2 h recording of the default venue pass it mid-chunk.
    const run = underFileLimit(1024, [BIN, 'simulate', '--until', '2h', '--record', file]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^airtwin: recording ${file}: EFBIG`, 'm'));
    const said = Number(/stopped by a failed write: (\d+) lines are in the file, which ends with a whole line/.exec(run.stdout)?.[1]);
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(1024 * 1024);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(said);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ t: expect.any(Number), serial: expect.stringMatching(/^[0-9a-f]{12}$/) });
  }, PROCESS_MS);

  it('the recorder counts the lines that reached the file and the lines lost (serve and edge log them at close)', () => {
    const file = join(dir, 'rec.ndjson');
    const recorder = new URL('../../src/links/record/recording-link.ts', import.meta.url).pathname;
    const clock = new URL('../../simulator/clock.ts', import.meta.url).pathname;
    const script = `
      import { createRecorder, closeRecorder } from ${JSON.stringify(recorder)};
      import { VirtualClock } from ${JSON.stringify(clock)};
      const rec = createRecorder({ path: ${JSON.stringify(file)}, clock: new VirtualClock(1767600000000) });
      rec.open();
      const log = (level) => (o, msg) => console.log(JSON.stringify({ level, msg, ...o }));
      const big = 'x'.repeat(1000);
      for (let n = 0; n < 2000; n++) rec.tap.up('aabbccddee07', { jsonrpc: '2.0', method: 'log', params: { serial: 'aabbccddee07', log: big, severity: 6, n } });
      await closeRecorder(rec, { info: log('info'), warn: log('warn'), error: log('error') });`;
    const run = underFileLimit(600, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(run.status, run.stderr).toBe(0);
    const entry = JSON.parse(run.stdout.trim()) as { level: string; msg: string; lines: number; bytes: number; unwritten: number; error: string };
    expect(entry).toMatchObject({ level: 'error', msg: 'recording closed after a failed write', error: expect.stringMatching(/EFBIG/) });
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(entry.lines).toBe(text.split('\n').length - 1);
    expect(entry.bytes).toBe(Buffer.byteLength(text));
    expect(entry.lines).toBeGreaterThan(0);
    expect(entry.lines + entry.unwritten).toBe(2000);
  }, PROCESS_MS);
});

describe('airtwin serve --record to standard output or to a stalled pipe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-rec-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const serve = (record: string, data: string) => {
    child = spawn(process.execPath, [BIN, 'serve', '--data-dir', join(dir, data), '--gateway-port', '0', '--rrm-port', '0', '--scenario', 'lab', '--speed', '60', '--record', record], { stdio: ['ignore', 'pipe', 'pipe'] });
    const io = { out: '', err: '', exited: new Promise<{ code: number | null; signal: string | null }>((r) => child!.on('exit', (code, signal) => r({ code, signal }))) };
    child.stdout!.on('data', (d: Buffer) => (io.out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (io.err += d.toString()));
    return io;
  };

  it('--record /dev/stdout: standard output holds the recording alone; banner, token and logs go to stderr', async () => {
    const io = serve('/dev/stdout', 'stdout');
    await until('the banner on stderr', async () => io.err, (e) => /token\s+\S+/.test(e), 30_000);
    await until('recorded states on stdout', async () => io.out, (o) => (o.match(/"method":"state"/g) ?? []).length >= 3, 30_000);
    child!.kill('SIGTERM');
    expect(await io.exited).toEqual({ code: 0, signal: null });
    const lines = io.out.split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ t: expect.any(Number), serial: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(io.err).toMatch(/SIGTERM: shutting down/);
    expect(io.err).toMatch(/"msg":"recording closed"/);
  }, PROCESS_MS);

  it('a shutdown stuck on a pipe nobody reads ends at a second SIGINT, or by itself after 10 s', async () => {
    const fifo = join(dir, 'stalled.fifo');
    execFileSync('mkfifo', [fifo]);
    // A reader that never reads: once the pipe is full, the recorder's writes wait for good.
    const reader = openSync(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    try {
      // One bound for the whole test (its timeout): a loaded machine starts a process slowly.
      const io = serve(fifo, 'stalled');
      const banner = await until('the banner', async () => io.out, (o) => /gateway\s+http:\/\/\S+\/api\/v1/.test(o), PROCESS_MS);
      const gateway = /gateway\s+(http:\/\/\S+)\/api\/v1/.exec(banner)![1]!;
      // Twelve states of ~8 KB are past the pipe's 64 KiB.
      const rows = async () => Number(/^airtwin_ingest_table_rows_written_total\{table="statistics"\} (\d+)$/m.exec(await (await fetch(`${gateway}/metrics`)).text())?.[1] ?? 0);
      // Recorded before they were stored: the close flushes them into the full pipe and waits.
      await until('a pipe full of states', rows, (n) => n >= 12, PROCESS_MS);
      child!.kill('SIGINT');
      await until('the shutdown under way', async () => io.out, (o) => o.includes('SIGINT: shutting down'), PROCESS_MS);
      child!.kill('SIGINT');
      // Ended by the signal itself (a shell shows 130), not by an exit that a stuck thread could hold.
      expect(await io.exited).toEqual({ code: null, signal: 'SIGINT' });
      expect(io.err).toContain('SIGINT again: quitting at once');
      // The first SIGINT was still waiting on the pipe: the recording never said it closed or gave up.
      expect(io.out + io.err).not.toMatch(/recording (closed|not finished)/);

      // The pipe is still full: one SIGINT alone ends too, once the recorder has waited 10 s.
      const again = serve(fifo, 'stalled-again');
      await until('the banner', async () => again.out, (o) => /token\s+\S+/.test(o), PROCESS_MS);
      child!.kill('SIGINT');
      expect(await again.exited).toEqual({ code: 0, signal: null });
      // It gave up after the whole wait (CLOSE_WAIT_MS), as its error line says.
      expect(again.out).toMatch(/"level":50,.*"waitedMs":10000,.*"msg":"recording not finished: the file took no more lines; the lines still waiting are lost"/);
    } finally {
      closeSync(reader);
    }
  }, PROCESS_MS);
});

describe('airtwin simulate --record as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-sim-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops on SIGINT with every simulated line written and whole (exit 0)', async () => {
    const file = join(dir, 'hall.ndjson');
    // A day of the 200-AP hall takes far longer than this test waits: it is stopped half-way.
    const sim = spawn(process.execPath, [BIN, 'simulate', '--scenario', 'hall', '--until', '24h', '--record', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    sim.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => sim.on('exit', (code) => resolve(code)));
    try {
      await until('lines on disk', async () => (existsSync(file) ? statSync(file).size : 0), (n) => n > 0, 30_000);
      sim.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      sim.kill('SIGKILL');
    }
    expect(out).toMatch(/SIGINT: stopping/);
    expect(out).toMatch(/simulate: stopped after \d+ s of 24h simulated/);
    const [, frames, devices] = /simulate: (\d+) frames from (\d+) devices written/.exec(out)!;
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trim().split('\n');
    // Nothing the simulator made was lost: every frame plus each AP's connect event, each a whole JSON line.
    expect(lines).toHaveLength(Number(frames) + Number(devices));
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  }, PROCESS_MS);
});

describe('airtwin simulate --record /dev/stdout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-stdout-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the recording alone to stdout, the same bytes as to a file, and its messages to stderr', () => {
    const file = join(dir, 'lab.ndjson');
    const args = ['simulate', '--scenario', 'lab', '--seed', '7', '--until', '5m'];
    expect(spawnSync(process.execPath, [BIN, ...args, '--record', file]).status).toBe(0);
    // Through a shell pipe into gzip, as a user would (node's own child pipes are sockets, which
    // cannot be opened by name: that is a RecordingError, ENXIO).
    const gz = join(dir, 'piped.ndjson.gz');
    const piped = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" ${args.join(' ')} --record /dev/stdout | gzip -c > "${gz}"`]);
    expect(piped.status).toBe(0);
    expect(gunzipSync(readFileSync(gz)).equals(readFileSync(file))).toBe(true);
    expect(piped.stderr.toString()).toMatch(/^simulate: lab .* -> \/dev\/stdout\nsimulate: \d+ frames from 3 devices written to \/dev\/stdout\n$/);
  }, PROCESS_MS);

  it('pipes into `airtwin replay -`, which plays what a replay of the file plays and leaves no copy behind', () => {
    const file = join(dir, 'lab-replay.ndjson');
    const args = ['simulate', '--scenario', 'lab', '--seed', '7', '--until', '5m'];
    expect(spawnSync(process.execPath, [BIN, ...args, '--record', file]).status).toBe(0);
    const fromFile = spawnSync(process.execPath, [BIN, 'replay', file, '--data-dir', join(dir, 'from-file')], { encoding: 'utf8' });
    expect(fromFile.status).toBe(0);
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const piped = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" ${args.join(' ')} --record /dev/stdout | gzip -c | "${process.execPath}" "${BIN}" replay - --data-dir "${join(dir, 'from-pipe')}"`],
      { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
    expect(piped.status, piped.stderr).toBe(0);
    const summary = (out: string) => out.split('\n').find((l) => / frames from \d+ devices/.test(l))!.replace(/played in .*/, '');
    expect(summary(piped.stdout)).toBe(summary(fromFile.stdout));
    expect(piped.stdout).toMatch(/^replay: copying standard input to .*\nreplay: [\d.]+ (bytes|MB) copied\nreplay: standard input at speed max/);
    expect(readdirSync(tmp).filter((f) => f.startsWith('airtwin-replay-'))).toEqual([]);
  }, PROCESS_MS);

  it('refuses to cut a pipe into parts (a usage error), instead of making /dev/stdout.1, ...', () => {
    const r = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', 'lab', '--until', '1m', '--record', '/dev/stdout', '--record-max-bytes', '5000'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('airtwin: --record-max-bytes: /dev/stdout is not a regular file (a terminal, pipe or device cannot be cut into parts)\n');
    expect(r.stdout).toBe('');
    expect(existsSync('/dev/stdout.1')).toBe(false);
  }, PROCESS_MS);
});

describe('airtwin replay as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-replay-'));
  const file = join(dir, 'lab.ndjson');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const statistics = async (dataDir: string) => {
    const store = await Store.open(dataDir);
    try {
      return (await store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n;
    } finally {
      await store.close();
    }
  };
  /** The frame lines of the recording, in order (no connect/disconnect events). */
  const frameLines = () => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { dir?: string; frame?: { method?: string } }).filter((l) => l.dir !== undefined);

  it('records the lab for the tests below', () => {
    const r = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', 'lab', '--until', '6h', '--record', file], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  }, PROCESS_MS);

  it('stops on SIGINT after the current line, writes what was played and prints the summary (exit 0)', async () => {
    const dataDir = join(dir, 'interrupted');
    // The recording with one marker after its 20th line: a notification without a serial, which
    // the AP ignores and the replay logs as it plays it. Its frames before the marker have been
    // played once that log line is out; the rest (six recorded hours at 1800x: 12 s) have not.
    const marked = join(dir, 'marked.ndjson');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const at = JSON.parse(lines[19]!) as { t: number; serial: string };
    const marker = { t: at.t, serial: at.serial, dir: 'up', frame: { jsonrpc: '2.0', method: 'log', params: { log: 'marker', severity: 6 } } };
    writeFileSync(marked, `${[...lines.slice(0, 20), JSON.stringify(marker), ...lines.slice(20)].join('\n')}\n`);
    const child = spawn(process.execPath, [BIN, 'replay', marked, '--data-dir', dataDir, '--speed', '1800'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await until('the marker played', async () => out, (o) => o.includes('device frame ignored'), 30_000);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(out).toMatch(/SIGINT: stopping after the current line/);
    const [, played] = /replay: (\d+) frames from 3 devices, [\d.]+ s recorded, played in .*, stopped early/.exec(out) ?? [];
    const frames = frameLines();
    expect(Number(played)).toBeGreaterThan(0);
    expect(Number(played)).toBeLessThan(frames.length);
    // Every state played is stored: the lab has no disconnects, so the played frames are the first ones.
    expect(await statistics(dataDir)).toBe(frames.slice(0, Number(played)).filter((f) => f.frame?.method === 'state').length);
  }, PROCESS_MS);

  it('goes on when the reader of its output goes away (`| head`): exit 0, no error, everything written', async () => {
    const dataDir = join(dir, 'piped');
    const child = spawn(process.execPath, [BIN, 'replay', file, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    // The first line (the banner) read, then the pipe closed, as `head -1` does.
    child.stdout!.once('data', () => child.stdout!.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(await statistics(dataDir)).toBe(frameLines().filter((f) => f.frame?.method === 'state').length);
  }, PROCESS_MS);

  it('exits 0 for a recording whose frames were all refused (a rotated part replayed alone), with one bad line', () => {
    const part = join(dir, 'part.ndjson');
    const state = (t: number) => JSON.stringify({ t, serial: 'a0b1c2300001', dir: 'up', frame: { jsonrpc: '2.0', method: 'state', params: { serial: 'a0b1c2300001', uuid: 1, state: {} } } });
    writeFileSync(part, `${state(1_767_600_000_000)}\n${state(1_767_600_060_000)}\n{"t":1767600120000,"ser`);
    const r = spawnSync(process.execPath, [BIN, 'replay', part, '--data-dir', join(dir, 'part')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/replay: 0 frames from 1 device/);
    // The first is refused (no connect yet); the AP is then dropped, so the second is not delivered.
    expect(r.stdout).toMatch(/replay: 1 frame refused by their device actor/);
    expect(r.stdout).toMatch(/replay: 1 frame recorded while its AP was disconnected/);
    expect(r.stdout).toMatch(/part\.ndjson:3: not JSON/);
  }, PROCESS_MS);

  it('says that a short file with no recording line is not a recording (exit 1), before the data dir, its bytes escaped', () => {
    const junk = join(dir, 'junk.bin');
    // Terminal control bytes, invalid UTF-8 and text, over several lines.
    writeFileSync(junk, Buffer.concat([Buffer.from('\u001b[2J\u001b]0;title\u0007 hello\n'), Buffer.from([0xff, 0xfe, 0x9b, 0x31, 0x6d, 0x0a]), Buffer.from('plain words\n')]));
    const replay = spawnSync(process.execPath, [BIN, 'replay', junk, '--data-dir', join(dir, 'junk')], { encoding: 'utf8' });
    const serve = spawnSync(process.execPath, [BIN, 'serve', '--replay', junk, '--data-dir', join(dir, 'junk-serve'), '--gateway-port', '0', '--rrm-port', '0'], { encoding: 'utf8', timeout: 20_000 });
    for (const r of [replay, serve]) {
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(new RegExp(`^airtwin: ${junk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not look like a recording: none of its 3 lines is a recording line \\(line 1: not JSON`));
      // eslint-disable-next-line no-control-regex
      expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(r.stderr).toContain('\\u001b');
    }
    // Neither replays it (0 frames) nor creates the data dir.
    expect(existsSync(join(dir, 'junk'))).toBe(false);
    expect(existsSync(join(dir, 'junk-serve'))).toBe(false);
  }, PROCESS_MS);

  it('gives up on a big binary file after its first lines, before anything is written (replay and serve --replay, exit 1)', () => {
    const big = join(dir, 'video.bin');
    // 32 MB of bytes with a line break every ~256: ~125,000 "lines", none of them JSON.
    const block = Buffer.alloc(1 << 20);
    for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
    writeFileSync(big, Buffer.concat(Array.from({ length: 32 }, () => block)));
    const expected = new RegExp(`^airtwin: ${big.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not look like a recording: none of its first 1000 lines is a recording line \\(line 1: not JSON \\(.*\\)\\)$`);
    const replay = spawnSync(process.execPath, [BIN, 'replay', big, '--data-dir', join(dir, 'video')], { encoding: 'utf8' });
    expect(replay.status).toBe(1);
    expect(replay.stderr.trim()).toMatch(expected);
    const serve = spawnSync(process.execPath, [BIN, 'serve', '--replay', big, '--data-dir', join(dir, 'video-serve'), '--gateway-port', '0', '--rrm-port', '0'], { encoding: 'utf8' });
    expect(serve.status).toBe(1);
    expect(serve.stderr.trim()).toMatch(expected);
    // Refused before the data dir was opened: neither was created.
    expect(existsSync(join(dir, 'video'))).toBe(false);
    expect(existsSync(join(dir, 'video-serve'))).toBe(false);
  }, PROCESS_MS);
});

describe('a stream replayed as a process: Ctrl-C while it is copied, and /dev/stdin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-stream-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const line = (dt: number) => JSON.stringify({ t: 1_767_600_000_000 + dt, serial: 'a0b1c2000001', event: 'connect' });

  /** Starts `args`, waits for `ready` in its output, sends SIGINT, and gives its exit code, output and what is left in its TMPDIR. */
  async function interrupt(args: string[], ready: string, tmp: string, stdin: 'ignore' | 'pipe' = 'ignore') {
    mkdirSync(tmp);
    const child = spawn(process.execPath, [BIN, ...args], { stdio: [stdin, 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // A process that does not exit fails the test at its timeout, and is killed then.
    onTestFinished(() => { child.kill('SIGKILL'); });
    await until(ready, async () => out, (o) => o.includes(ready), 30_000);
    child.kill('SIGINT');
    // A FIFO nobody writes to kept a pool thread in open(): the process could not exit.
    const code = await exited;
    return { code, out, left: readdirSync(tmp).filter((f) => f.startsWith('airtwin-replay-')) };
  }

  it('replay of a FIFO that nobody writes to exits 1 on Ctrl-C, with nothing replayed and nothing left behind', async () => {
    const fifo = join(dir, 'idle.fifo');
    spawnSync('mkfifo', [fifo]);
    const r = await interrupt(['replay', fifo, '--data-dir', join(dir, 'fifo-data')], 'replay: copying', join(dir, 'tmp-fifo'));
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(`airtwin: stopped while copying ${fifo}: nothing was replayed`);
    expect(r.left).toEqual([]);
    expect(existsSync(join(dir, 'fifo-data'))).toBe(false);
  }, PROCESS_MS);

  it('serve --replay - stops on Ctrl-C while standard input is copied, and leaves no copy', async () => {
    const r = await interrupt(['serve', '--replay', '-', '--data-dir', join(dir, 'serve-data'), '--gateway-port', '0', '--rrm-port', '0', '--log-level', 'warn'],
      'replay: copying', join(dir, 'tmp-serve'), 'pipe');
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('airtwin: stopped while copying standard input: nothing was replayed');
    expect(r.left).toEqual([]);
  }, PROCESS_MS);

  it('replays /dev/stdin when standard input is a socket (as a parent process hands it over)', () => {
    // spawnSync's input pipe is a socket pair: it cannot be opened by name, so it is read as `-`.
    const r = spawnSync(process.execPath, [BIN, 'replay', '/dev/stdin', '--data-dir', join(dir, 'stdin-data')], {
      input: `${line(0)}\n${line(1000)}\n`, encoding: 'utf8', env: { ...process.env, TMPDIR: dir },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('replay: /dev/stdin at speed max');
    expect(r.stdout).toContain('replay: 0 frames from 1 device, 1.0 s recorded');
  }, PROCESS_MS);

  it('reads standard input redirected from a file where it is; from an offset, it copies what is left', () => {
    const file = join(dir, 'redirected.ndjson');
    writeFileSync(file, `${line(0)}\n${line(1000)}\n${line(3000)}\nnot json\n`);
    const replayFd = (fd: number, data: string) => spawnSync(process.execPath, [BIN, 'replay', '-', '--data-dir', join(dir, data)], {
      stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, TMPDIR: dir },
    });
    const whole = openSync(file, 'r');
    try {
      const r = replayFd(whole, 'redirected-data');
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('copying');
      expect(r.stdout).toContain('replay: standard input at speed max');
      expect(r.stdout).toContain('replay: 0 frames from 1 device, 3.0 s recorded');
      // Named as the user named it, not /proc/self/fd/0.
      expect(r.stdout).toContain('  standard input:4: not JSON');
      // Read in place, it is the file itself: recording over it is refused, as by its name.
      const before = readFileSync(file, 'utf8');
      const serve = spawnSync(process.execPath, [BIN, 'serve', '--replay', '-', '--record', file, '--data-dir', join(dir, 'over-data'), '--gateway-port', '0', '--rrm-port', '0'], {
        stdio: [whole, 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, TMPDIR: dir }, timeout: 20_000,
      });
      expect(serve.status, serve.stderr).toBe(2);
      expect(serve.stderr).toContain(`--record: ${file} would overwrite standard input, which --replay reads`);
      expect(readFileSync(file, 'utf8')).toBe(before);
    } finally {
      closeSync(whole);
    }
    // A shell that has read the first line (`{ read l; airtwin replay -; } < file`) leaves the
    // offset past it: the replay gets the rest, as a pipe would give it.
    const rest = openSync(file, 'r');
    try {
      readSync(rest, Buffer.alloc(line(0).length + 1), 0, line(0).length + 1, null);
      const r = replayFd(rest, 'offset-data');
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('replay: copying standard input');
      expect(r.stdout).toContain('replay: 0 frames from 1 device, 2.0 s recorded');
      expect(r.stdout).toContain('  standard input:3: not JSON');
    } finally {
      closeSync(rest);
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('airtwin-replay-'))).toEqual([]);
  }, PROCESS_MS);
});

describe('the environment', () => {
  it('says so in one line when TMPDIR is a file (tsx keeps its cache there), for every command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-tmpdir-'));
    try {
      const file = join(dir, 'not-a-folder');
      writeFileSync(file, '');
      for (const args of [['--help'], ['replay', '-']]) {
        const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, TMPDIR: file }, input: '' });
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toBe(`airtwin: TMPDIR ${file} is not a folder; set TMPDIR to a folder (or unset it)\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, PROCESS_MS);
});
