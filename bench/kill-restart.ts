/**
 * kill-restart: real `serve` processes killed with SIGKILL, then started again on the same data dir.
 *
 * 1. Restart time against the WAL a crash leaves: `serve --scenario hall --speed max` ingests
 *    until its WAL reaches a size (or as far as it gets), is killed, and a `serve --no-sim` on the
 *    data dir is timed until its banner and until /health answers. The largest WAL seen while
 *    ingesting is reported too: the checkpoint threshold bounds it, so it bounds the restart.
 * 2. Acknowledged writes across kill -9 cycles: `serve --scenario lab` while a client makes
 *    concurrent writes (device records, notes, configures to the lab's APs and to an AP that is
 *    never online, scheduled reboots), killed at a random moment; each next start must hold every
 *    write that was answered 2xx. At the end, the commands still open: every one must be waiting
 *    for an AP that is offline or for its `when` (none `executed`, none pending for an online AP).
 * The last line: the median restart to /health, in seconds (target: under 5 s), against the same
 * `serve` started on an empty data dir in the same run (the machine's share of it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { Store } from '../src/store/duckdb.js';
import { median, report } from './_report.js';

const BIN = new URL('../bin/airtwin.mjs', import.meta.url).pathname;
const WAL_TARGETS_MB = process.env.KILL_BENCH_SKIP_WAL ? [] : [1, 8, 16, 24, 31];
const CYCLES = Number(process.env.KILL_BENCH_CYCLES ?? 8);
const SEED = process.env.KILL_BENCH_SEED ?? String(Date.now());
const rng = seedrandom(SEED);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

interface Serve { child: ChildProcess; base: string; health: string; headers: Record<string, string>; startedS: number; healthyS: number }

async function serve(dataDir: string, args: string[]): Promise<Serve> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--gateway-port', '0', '--rrm-port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  while (!/token\s+\S+/.test(out)) {
    if (child.exitCode !== null) throw new Error(`serve exited: ${out}`);
    await sleep(5);
  }
  const startedS = (performance.now() - t0) / 1000;
  const gateway = /gateway\s+(http:\/\/\S+)\/api\/v1/.exec(out)![1]!;
  const health = `${gateway}/health`;
  while (!(await fetch(health).then((r) => r.ok, () => false))) await sleep(5);
  const headers = { authorization: `Bearer ${/token\s+(\S+)/.exec(out)![1]!}`, 'content-type': 'application/json' };
  return { child, base: `${gateway}/api/v1`, health, headers, startedS, healthyS: (performance.now() - t0) / 1000 };
}

async function kill(s: Serve): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGKILL');
  await exited;
}

async function call(s: Serve, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.base}${path}`, { method, headers: s.headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

// --- 1. restart time against the WAL -------------------------------------------------------------
console.log(`kill-restart: seed ${SEED}`);
const restarts: number[] = [];
let largestWal = 0;
for (const targetMb of WAL_TARGETS_MB) {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-bench-kill-'));
  const wal = join(dir, 'airtwin.duckdb.wal');
  const loaded = await serve(dir, ['--scenario', 'hall', '--speed', 'max']);
  const end = Date.now() + 60_000;
  while (size(wal) < targetMb * 1e6 && Date.now() < end) {
    largestWal = Math.max(largestWal, size(wal));
    await sleep(20);
  }
  const walAtKill = size(wal);
  await kill(loaded);
  // DuckDB's own share: opening a copy of the data dir (its WAL replayed) in this process.
  const copy = `${dir}-copy`;
  cpSync(dir, copy, { recursive: true });
  const t0 = performance.now();
  const store = await Store.open(copy, undefined, { checkpointEveryMs: 0 });
  const openS = (performance.now() - t0) / 1000;
  await store.close();
  rmSync(copy, { recursive: true, force: true });
  const again = await serve(dir, ['--no-sim']);
  restarts.push(again.healthyS);
  console.log(`  WAL ${mb(walAtKill)} MB, database ${mb(size(join(dir, 'airtwin.duckdb')))} MB at kill -9: DuckDB opens it in ${openS.toFixed(2)} s; serve: banner after ${again.startedS.toFixed(2)} s, /health after ${again.healthyS.toFixed(2)} s`);
  await kill(again);
  rmSync(dir, { recursive: true, force: true });
}
if (WAL_TARGETS_MB.length > 0) {
  // As far as sustained ingest takes the WAL in 30 s.
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-bench-kill-'));
  const wal = join(dir, 'airtwin.duckdb.wal');
  const loaded = await serve(dir, ['--scenario', 'hall', '--speed', 'max']);
  for (const end = Date.now() + 30_000; Date.now() < end; await sleep(20)) largestWal = Math.max(largestWal, size(wal));
  await kill(loaded);
  rmSync(dir, { recursive: true, force: true });
}
console.log(`  largest WAL seen while ingesting: ${mb(largestWal)} MB`);

// --- 2. acknowledged writes across kill -9 cycles ------------------------------------------------
const LAB = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];
const OFFLINE = 'c0ffee00dead';
const acked = { devices: new Set<string>(), notes: new Map<string, Set<string>>(), commands: new Set<string>() };
let answered = 0;
let failed = 0;
let n = 0;

/** One random write; what the service acknowledged is remembered. */
async function oneWrite(s: Serve): Promise<void> {
  const r = rng();
  try {
    if (r < 0.25) {
      const sn = `c0ffee${(n++).toString(16).padStart(6, '0')}`;
      if ((await call(s, 'POST', `/device/${sn}`, {})).status === 200) acked.devices.add(sn);
    } else if (r < 0.5) {
      const sn = [...acked.devices][Math.floor(rng() * acked.devices.size)] ?? OFFLINE;
      const note = `note-${n++}`;
      if ((await call(s, 'PUT', `/device/${sn}`, { notes: [{ note }] })).status === 200) {
        acked.notes.set(sn, (acked.notes.get(sn) ?? new Set()).add(note));
      }
    } else {
      const sn = r < 0.75 ? LAB[Math.floor(rng() * LAB.length)]! : OFFLINE;
      const a = r < 0.9
        ? await call(s, 'POST', `/device/${sn}/configure`, { configuration: { radios: [{ band: '2G', 'tx-power': 10 + Math.floor(rng() * 10) }] } })
        : await call(s, 'POST', `/device/${OFFLINE}/reboot`, { when: Math.floor(Date.now() / 1000) + 3600 });
      if (a.status === 200) acked.commands.add(a.body.UUID);
    }
    answered++;
  } catch {
    failed++; // cut off by the kill: not acknowledged
  }
}

/** Baseline: the same `serve` started on an empty data dir (no crash, nothing to replay), in the same run. */
const fresh: number[] = [];
async function freshStarts(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const empty = mkdtempSync(join(tmpdir(), 'airtwin-bench-kill-'));
    const s = await serve(empty, ['--scenario', 'lab']);
    fresh.push(s.healthyS);
    await kill(s);
    rmSync(empty, { recursive: true, force: true });
  }
}
await freshStarts(3);

const dir = process.env.KILL_BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'airtwin-bench-kill-'));
let missing = 0;
let checked = 0;
async function verify(s: Serve): Promise<void> {
  for (const sn of acked.devices) {
    checked++;
    const d = await call(s, 'GET', `/device/${sn}`);
    if (d.status !== 200) { missing++; continue; }
    const have = new Set((d.body.notes as { note: string }[]).map((x) => x.note));
    for (const note of acked.notes.get(sn) ?? []) { checked++; if (!have.has(note)) missing++; }
  }
  for (const uuid of acked.commands) {
    checked++;
    if ((await call(s, 'GET', `/command/${uuid}`)).status !== 200) missing++;
  }
}

for (let cycle = 0; cycle < CYCLES; cycle++) {
  const s = await serve(dir, ['--scenario', 'lab']);
  if (cycle === 0) expectOk(await call(s, 'POST', `/device/${OFFLINE}`, {}));
  await verify(s);
  const killAt = Date.now() + 1000 + rng() * 3000;
  const workers = Array.from({ length: 8 }, async () => {
    while (Date.now() < killAt) await oneWrite(s);
  });
  await sleep(killAt - Date.now());
  await kill(s);
  await Promise.all(workers);
  if (cycle > 0) restarts.push(s.healthyS);
  console.log(`  cycle ${cycle + 1}: ${cycle > 0 ? 'restart' : 'start'} /health after ${s.healthyS.toFixed(2)} s, WAL ${mb(size(join(dir, 'airtwin.duckdb.wal')))} MB at kill -9; acknowledged so far: ${acked.devices.size} devices, ${[...acked.notes.values()].reduce((a, x) => a + x.size, 0)} notes, ${acked.commands.size} commands`);
}
const last = await serve(dir, ['--scenario', 'lab']);
restarts.push(last.healthyS);
console.log(`  last restart /health after ${last.healthyS.toFixed(2)} s`);
await verify(last);
type Cmd = { UUID: string; serialNumber: string; command: string; status: string; when: number; errorText: string };
/** Open commands with nothing to wait for: on the wire, or pending for an AP that is online with its `when` passed. */
const stuckOf = (all: Cmd[]) => all.filter((c) => c.status === 'executed' || (c.status === 'pending' && c.serialNumber !== OFFLINE && c.when <= Date.now() / 1000));
// The lab's APs connect and run what was queued for them, one at a time: wait while that goes on.
let all = (await call(last, 'GET', '/commands')).body.commands as Cmd[];
for (let left = stuckOf(all).length, still = 0; left > 0 && still < 20; await sleep(1000)) {
  all = (await call(last, 'GET', '/commands')).body.commands as Cmd[];
  const now = stuckOf(all).length;
  still = now < left ? 0 : still + 1;
  left = now;
}
const byStatus: Record<string, number> = {};
for (const c of all) byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
const stuck = stuckOf(all);
const reasons: Record<string, number> = {};
for (const c of all.filter((x) => x.status === 'failed' || x.status === 'expired')) reasons[c.errorText] = (reasons[c.errorText] ?? 0) + 1;
await kill(last);
if (!process.env.KILL_BENCH_DIR) rmSync(dir, { recursive: true, force: true });
console.log(`  ${CYCLES} kill -9 cycles: ${answered} writes answered, ${failed} cut off by a kill; acknowledged ${checked} checked, ${checked - missing} found, ${missing} missing`);
console.log(`  commands: ${JSON.stringify(byStatus)}; open with no offline AP or later when to wait for: ${stuck.length}`);
for (const [why, count] of Object.entries(reasons)) console.log(`    ${count} ended: ${why}`);
await freshStarts(3);
const sorted = [...restarts].sort((a, b) => a - b);
console.log(`  restarts after kill -9 to /health: ${sorted.map((x) => x.toFixed(2)).join(', ')} s (longest ${sorted[sorted.length - 1]!.toFixed(2)} s)`);
console.log(`  fresh starts on an empty data dir, same run: ${[...fresh].sort((a, b) => a - b).map((x) => x.toFixed(2)).join(', ')} s`);
report({
  bench: 'kill-restart', metric: 'restart after kill -9 until /health answers (median)', value: Number(median(restarts).toFixed(2)), unit: 's',
  baseline: Number(median(fresh).toFixed(2)), baselineName: 'fresh start on an empty data dir (median)',
});

function expectOk(a: { status: number }): void {
  if (a.status !== 200) throw new Error(`expected 200, got ${a.status}`);
}
