import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/duckdb.js';
import { until } from '../helpers/until.js';

const BIN = new URL('../../bin/airtwin.mjs', import.meta.url).pathname;
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
    for (const m of snapshot.matchAll(/^airtwin_ingest_table_rows_written\{table="(\w+)"\} (\d+)$/gm)) written[m[1]!] = Number(m[2]);
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
  }, 60_000);

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
  });

  it('checks a --record path before starting (exit 2), and says which recording a full disk stopped (exit 1)', () => {
    for (const cmd of [['serve', '--data-dir', dataDir], ['edge', '--port', '0'], ['simulate', '--scenario', 'lab']]) {
      const r = spawnSync(process.execPath, [BIN, ...cmd, '--record', '/nonexistent-airtwin-dir/x.ndjson'], { encoding: 'utf8' });
      expect(r.status, cmd[0]).toBe(2);
      expect(r.stderr.trim().split('\n'), cmd[0]).toEqual(['airtwin: --record: cannot write /nonexistent-airtwin-dir/x.ndjson (its folder: ENOENT)']);
    }
    const full = spawnSync(process.execPath, [BIN, 'simulate', '--scenario', 'lab', '--until', '10m', '--record', '/dev/full'], { encoding: 'utf8' });
    expect(full.status).toBe(1);
    expect(full.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: recording \/dev\/full: ENOSPC: no space left on device/)]);
    // `record --from-states` writes its --out the same way: checked first (2), a full disk named (1).
    const docs = mkdtempSync(join(tmpdir(), 'airtwin-e2e-docs-'));
    writeFileSync(join(docs, 'state.json'), JSON.stringify({ jsonrpc: '2.0', method: 'state', params: { serial: 'a0b1c2000001', uuid: 1, state: { unit: { uptime: 1 } } } }));
    const missing = spawnSync(process.execPath, [BIN, 'record', '--from-states', docs, '--out', '/nonexistent-airtwin-dir/x.ndjson'], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toEqual(['airtwin: --out: cannot write /nonexistent-airtwin-dir/x.ndjson (its folder: ENOENT)']);
    const fullImport = spawnSync(process.execPath, [BIN, 'record', '--from-states', docs, '--out', '/dev/full'], { encoding: 'utf8' });
    expect(fullImport.status).toBe(1);
    expect(fullImport.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airtwin: recording \/dev\/full: ENOSPC: no space left on device/)]);
    rmSync(docs, { recursive: true, force: true });
  });
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
  }, 60_000);
});
