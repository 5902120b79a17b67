/**
 * Fleet in real time (docs/performance.md): N simulated APs, each on its
 * SimLink attached to the Fleet on the wall clock, states and healthchecks every 60 s, every event
 * through the ingest pipeline into a DuckDB file, as `serve` runs them. For each N (1,000, 10,000,
 * 50,000; `--quick`: 500 and 2,000) a fresh node process builds a synthetic venue (one floor of
 * 1,000 APs on a 25 x 40 grid 15 m apart per 1,000 APs, a station per 100 APs), waits until every
 * AP is connected, then measures a steady-state window: RSS (peak and mean), heap, CPU as process
 * CPU time over wall time (DuckDB's threads included), events/s ingested and the ingest backlog.
 * Target: 50,000 APs under 4,096 MiB RSS and under one core on average.
 *
 *   npm run bench -- fleet            # 1k / 10k / 50k, about 10 minutes
 *   npm run bench -- fleet --quick    # smoke run, about a minute
 *   node --import tsx --expose-gc bench/fleet.ts --child 10000 60 60   # one size: window, warm-up (s)
 *   FLEET_BENCH_CPUPROF=w.cpuprofile / FLEET_BENCH_SNAPSHOT=h.heapsnapshot: profile the window, snapshot at its end
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { asyncScheduler } from 'rxjs';
import { pino } from 'pino';
import { wallClock } from '../src/protocol/clock.js';
import { Store } from '../src/store/duckdb.js';
import { DevicesRepo } from '../src/store/devices-repo.js';
import { DefaultConfigsRepo } from '../src/store/default-configs-repo.js';
import { BlacklistRepo } from '../src/store/blacklist-repo.js';
import { CommandsRepo } from '../src/store/commands-repo.js';
import { startFleetRuntime } from '../src/runtime/fleet-runtime.js';
import { startSimVenue } from '../src/runtime/sim-venue.js';
import { startIngest } from '../src/pipelines/ingest.js';
import { clockScheduler } from '../src/pipelines/clock-scheduler.js';
import type { PipelineLogger } from '../src/pipelines/duckdb-sink.js';
import { report } from './_report.js';

const APS_PER_FLOOR = 1000;

/** The synthetic venue of n APs (n a multiple of 1,000, or below 1,000 for one smaller floor). */
export function fleetScenario(n: number): Record<string, unknown> {
  const floors = Math.max(1, Math.round(n / APS_PER_FLOOR));
  const perFloor = n / floors;
  let cols = perFloor >= 1000 ? 40 : Math.ceil(Math.sqrt(perFloor));
  while (perFloor % cols !== 0) cols--;
  const rows = Math.ceil(perFloor / cols);
  if (rows * cols * floors !== n) throw new RangeError(`fleet bench: ${n} APs do not fill a grid (${floors} floors of ${rows} x ${cols})`);
  const spacing = 15;
  return {
    name: `fleet-${n}`,
    seed: 4242,
    country: 'US',
    intervals: { state: 60, healthcheck: 60, log: 3600, wifiscan: 0, roam: 60 },
    building: {
      floorHeight: 3.5,
      floors: Array.from({ length: floors }, () => ({ width: cols * spacing, depth: rows * spacing })),
    },
    ssids: [{ name: 'airtwin-fleet', bands: ['2G', '5G'] }],
    apGrids: [{
      floors: Array.from({ length: floors }, (_, i) => i), rows, cols, firstSerial: 'f00000000001', margin: spacing / 2,
      radios: [{ band: '5G', channels: [36, 52, 100, 116, 132, 149], width: 80, txPower: 20 }, { band: '2G', channels: [1, 6, 11], txPower: 17 }],
    }],
    clients: [{ count: Math.ceil(n / 100), mobile: 0, dualBand: 0.7, trafficKbps: 200, sessionMinutes: 600, awayMinutes: 30 }],
  };
}

interface Result {
  aps: number;
  buildMs: number;
  connectMs: number;
  windowS: number;
  rssPeakMiB: number;
  rssMeanMiB: number;
  rssEndMiB: number;
  heapUsedMiB: number;
  cpuCores: number;
  /** The JS thread alone (the rest is DuckDB's and libuv's threads). */
  cpuCoresMain: number;
  cpuCoresConnect: number;
  cpuCoresWarmup: number;
  eventsPerS: number;
  rowsPerS: number;
  backlogMax: number;
  backlogEnd: number;
  heapEndMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** What DuckDB says it holds (duckdb_memory(): buffer pool, WAL, appenders...). */
  duckdbMiB: number;
}

const MiB = 1024 * 1024;

/** CPU time (ms) of the process's main thread, from /proc (Linux); NaN elsewhere. */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime in clock ticks (USER_HZ 100)
  } catch {
    return Number.NaN;
  }
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function child(n: number, windowS: number, warmupS: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-fleet-bench-'));
  const scenarioFile = join(dir, `fleet-${n}.json`);
  writeFileSync(scenarioFile, JSON.stringify(fleetScenario(n)));
  let rssPeak = 0;
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, process.memoryUsage.rss()); }, 250);
  const logger = pino({ level: 'warn' });
  const quiet: PipelineLogger = { info: () => undefined, warn: (o, m) => console.error(m, o), error: (o, m) => console.error(m, o) };
  try {
    const t0 = performance.now();
    const store = await Store.open(dir);
    const devices = await DevicesRepo.load(store);
    const runtime = startFleetRuntime({
      clock: wallClock, devices, blacklist: await BlacklistRepo.load(store), defaultConfigs: await DefaultConfigsRepo.load(store),
      commands: new CommandsRepo(store), autoProvision: true, logger,
    });
    const ingest = startIngest({ events$: runtime.fleet.events$, store, scheduler: clockScheduler(wallClock), retryScheduler: asyncScheduler, logger: quiet });
    const cpu0 = process.cpuUsage();
    const sim = await startSimVenue({ scenario: scenarioFile, clock: wallClock, fleet: runtime.fleet, devices });
    const tStarted = performance.now();
    const buildMs = tStarted - t0;
    for (;;) {
      await sleep(500);
      if (runtime.fleet.connectionStatistics().connectedDevices >= n) break;
      if (performance.now() - tStarted > 600_000) throw new Error(`fleet bench: not all ${n} APs connected after 10 minutes`);
    }
    const connectMs = performance.now() - tStarted;
    const cpuConnect = process.cpuUsage(cpu0);
    const cpuCoresConnect = (cpuConnect.user + cpuConnect.system) / 1000 / (performance.now() - t0 + 1e-9);

    // Steady state: every AP has connected and, after one interval, sent its first state and
    // healthcheck (the first state of each AP also works out who it hears); the window follows.
    const cpuWarm0 = process.cpuUsage();
    const warm0 = performance.now();
    await sleep(warmupS * 1000);
    const cpuWarm = process.cpuUsage(cpuWarm0);
    const cpuCoresWarmup = (cpuWarm.user + cpuWarm.system) / 1000 / (performance.now() - warm0);
    globalThis.gc?.();
    const profiler = process.env.FLEET_BENCH_CPUPROF ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const main0 = mainThreadCpuMs();
    const m0 = ingest.metrics();
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    let rssSum = 0;
    let samples = 0;
    let backlogMax = 0;
    let heapUsed = 0;
    while (performance.now() - w0 < windowS * 1000) {
      await sleep(1000);
      const mem = process.memoryUsage();
      rssSum += mem.rss;
      samples++;
      heapUsed = Math.max(heapUsed, mem.heapUsed);
      backlogMax = Math.max(backlogMax, ingest.metrics().rowsQueued);
    }
    const wall = performance.now() - w0;
    const c1 = process.cpuUsage(c0);
    const mainMs = mainThreadCpuMs() - main0;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(process.env.FLEET_BENCH_CPUPROF!, JSON.stringify(profile));
      profiler.disconnect();
    }
    const m1 = ingest.metrics();
    const rssEnd = process.memoryUsage.rss();
    const mem = process.memoryUsage();
    const duck = await store.query<{ bytes: number }>('SELECT sum(memory_usage_bytes)::DOUBLE AS bytes FROM duckdb_memory()');
    const duckdbMiB = Number(duck[0]?.bytes ?? 0) / MiB;
    if (process.env.FLEET_BENCH_SNAPSHOT) writeHeapSnapshot(process.env.FLEET_BENCH_SNAPSHOT);
    await sim.close();
    await runtime.close();
    await ingest.close();
    await store.close();
    return {
      aps: n, buildMs, connectMs, windowS: wall / 1000,
      rssPeakMiB: Math.max(rssPeak, rssEnd) / MiB, rssMeanMiB: rssSum / samples / MiB, rssEndMiB: rssEnd / MiB, heapUsedMiB: heapUsed / MiB,
      cpuCores: (c1.user + c1.system) / 1000 / wall, cpuCoresMain: mainMs / wall, cpuCoresConnect, cpuCoresWarmup,
      eventsPerS: (m1.eventsReceived - m0.eventsReceived) / (wall / 1000),
      rowsPerS: (m1.rowsWritten - m0.rowsWritten) / (wall / 1000),
      backlogMax, backlogEnd: m1.rowsQueued,
      heapEndMiB: mem.heapUsed / MiB, heapTotalMiB: mem.heapTotal / MiB, externalMiB: (mem.external + mem.arrayBuffers) / MiB, duckdbMiB,
    };
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const r = await child(Number(args[1]), Number(args[2]), Number(args[3] ?? 60));
  console.log(`RESULT ${JSON.stringify(r)}`);
  process.exit(0);
}

const quick = args.includes('--quick') || process.env.FLEET_BENCH_QUICK === '1';
// [APs, window s, warm-up s]: the warm-up lets every AP send its first state (one interval).
const plan: [number, number, number][] = quick ? [[500, 20, 15], [2000, 30, 15]] : [[1000, 60, 60], [10_000, 90, 60], [50_000, 150, 60]];
const self = fileURLToPath(import.meta.url);
console.log(`fleet: ${plan.map(([n]) => n.toLocaleString('en')).join(' / ')} simulated APs in real time (state + healthcheck every 60 s) -> fleet -> ingest -> DuckDB; one process each`);
const results: Result[] = [];
for (const [n, windowS, warmupS] of plan) {
  // Node's default heap limit and bin/airtwin.mjs's young generation, as `npm start` runs.
  const r = spawnSync(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', '--expose-gc', self, '--child', String(n), String(windowS), String(warmupS)], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * MiB,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) {
    console.error(`fleet: the ${n}-AP run failed (exit ${r.status}, signal ${r.signal})\n${r.stdout.slice(-4000)}`);
    process.exit(1);
  }
  const res = JSON.parse(line.slice(7)) as Result;
  results.push(res);
  console.log(`  ${n.toLocaleString('en')} APs done: RSS peak ${res.rssPeakMiB.toFixed(0)} MiB, ${res.cpuCores.toFixed(3)} cores`);
}

const pad = (s: string, w: number) => s.padStart(w);
const cols: [string, number, (r: Result) => string][] = [
  ['APs', 7, (r) => r.aps.toLocaleString('en')],
  ['start s', 8, (r) => (r.buildMs / 1000).toFixed(1)],
  ['connect s', 9, (r) => (r.connectMs / 1000).toFixed(1)],
  ['window s', 8, (r) => r.windowS.toFixed(0)],
  ['RSS peak', 9, (r) => r.rssPeakMiB.toFixed(0)],
  ['RSS mean', 9, (r) => r.rssMeanMiB.toFixed(0)],
  ['heap', 6, (r) => r.heapEndMiB.toFixed(0)],
  ['heapTot', 7, (r) => r.heapTotalMiB.toFixed(0)],
  ['duckdb', 6, (r) => r.duckdbMiB.toFixed(0)],
  ['cores', 6, (r) => r.cpuCores.toFixed(3)],
  ['JS', 6, (r) => r.cpuCoresMain.toFixed(3)],
  ['1st min', 7, (r) => r.cpuCoresWarmup.toFixed(2)],
  ['connect', 7, (r) => r.cpuCoresConnect.toFixed(2)],
  ['events/s', 8, (r) => r.eventsPerS.toFixed(0)],
  ['rows/s', 7, (r) => r.rowsPerS.toFixed(0)],
  ['backlog max/end', 15, (r) => `${r.backlogMax}/${r.backlogEnd}`],
];
console.log('\nMiB; cores = process CPU time / wall time in the window (JS = main thread alone; 1st min = the warm-up minute');
console.log('after the last connect, when each AP works out who it hears; connect = from start to all connected)');
console.log(cols.map(([h, w]) => pad(h, w)).join(' '));
for (const r of results) console.log(cols.map(([, w, f]) => pad(f(r), w)).join(' '));
const last = results[results.length - 1]!;
console.log(`\nCPU at ${last.aps.toLocaleString('en')} APs: ${last.cpuCores.toFixed(3)} cores on average over ${last.windowS.toFixed(0)} s (target < 1)`);
report({ bench: 'fleet', metric: `RSS MiB at ${last.aps.toLocaleString('en')} APs`, value: Math.round(last.rssPeakMiB), unit: 'MiB', baseline: null, baselineName: null });
