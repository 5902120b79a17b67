/**
 * nats-path: realistic `state` frames from websocket APs through edge -> NATS (JetStream) ->
 * NatsLinkManager -> device actor -> ingest pipeline -> DuckDB, against raw nats.js pub/sub of the
 * same frames in the same run (target ratio >= 0.3, docs/performance.md). Then 10,000 websocket APs
 * connect to one edge: time to connect all and the edge process's memory (target < 1 GiB). The AP
 * sockets of that part live in a child process, so the edge's RSS is measured alone and neither
 * process needs more than its default 20,000 file descriptors (one per socket). Every server is
 * private: its own nats-server on a free port, temp dirs removed at the end.
 */
import { fork, spawn } from 'node:child_process';
import { AckPolicy, StorageType, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../actors/fleet.js';
import { createEdge } from '../src/links/edge/edge-server.js';
import { connectNats, silentLogger } from '../src/links/nats/connect.js';
import { NatsLinkManager } from '../src/links/nats/nats-link-manager.js';
import { clockScheduler } from '../src/pipelines/clock-scheduler.js';
import { startIngest } from '../src/pipelines/ingest.js';
import { wallClock } from '../src/protocol/clock.js';
import { Store } from '../src/store/duckdb.js';
import { startNats } from '../test/helpers/nats.js';
import { stateTexts } from './_nats-path-aps.js';
import { appendRaw, readAppendedRows } from './_raw-appender.js';
import { report } from './_report.js';

const APS = 200;
const FRAMES_PER_AP = 100;
const BASELINE_MESSAGES = 100_000;
const MANY_APS = 10_000;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
const ownCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, maxMs: number): Promise<boolean> {
  for (let t = 0; t < maxMs && !cond(); t += 10) await sleep(10);
  return cond();
}

const payloads = stateTexts(64);
const avgBytes = Math.round(payloads.reduce((n, t) => n + t.length, 0) / payloads.length);
console.log(`nats-path: ${APS} websocket APs x ${FRAMES_PER_AP} state frames (~${avgBytes} bytes each, hall venue) vs raw nats.js pub/sub`);
console.log('  topology: edge + APs in a child process, serve (NATS link, actors, ingest, DuckDB) in this one, nats-server apart');

const nats = await startNats({ jetstream: true });
const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-bench-'));
try {
  // --- baseline: raw nats.js pub/sub of the same frames, one publisher and one subscriber ---
  const pubNc = await connectNats({ url: nats.url, name: 'bench-pub', logger: silentLogger });
  const subNc = await connectNats({ url: nats.url, name: 'bench-sub', logger: silentLogger });
  let got = 0;
  subNc.subscribe('bench.raw', { callback: () => { got++; } });
  await subNc.flush();
  const tb = performance.now();
  for (let i = 0; i < BASELINE_MESSAGES; i++) {
    pubNc.publish('bench.raw', payloads[i % payloads.length]!);
    if (i % 1000 === 999) await pubNc.flush();
  }
  await until(() => got >= BASELINE_MESSAGES, 60_000);
  const baseline = got / ((performance.now() - tb) / 1000);
  console.log(`  baseline: raw pub/sub ${Math.round(baseline)} frames/s (${got} messages)`);
  await pubNc.close();
  await subNc.close();

  // --- subject: the whole path into DuckDB ---
  const store = await Store.open(dataDir);
  const fleet = new Fleet({ clock: wallClock, newId: randomUUID });
  const ingest = startIngest({ events$: fleet.events$, store, scheduler: clockScheduler(wallClock), logger: silentLogger });
  let states = 0;
  fleet.events$.subscribe((e) => { if (e.type === 'state') states++; });
  const manager = await NatsLinkManager.start({ url: nats.url, logger: silentLogger, onDevice: (l) => fleet.attach(l), persisted: () => ingest.flush() });
  const child = fork(fileURLToPath(new URL('./_nats-path-aps.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const fromChild = () => new Promise<unknown>((r) => child.once('message', r));
  child.send({ url: nats.url, aps: APS, frames: FRAMES_PER_AP });
  await fromChild(); // ready
  await until(() => fleet.connectionStatistics().connectedDevices === APS, 30_000);
  const total = APS * FRAMES_PER_AP;
  const cpuAt = () => [cpuSeconds(child.pid), ownCpu(), cpuSeconds(nats.pid())];
  const cpu0 = cpuAt();
  const t0 = performance.now();
  child.send('go');
  let edgeDone: number | undefined;
  void fromChild().then(() => { edgeDone = (performance.now() - t0) / 1000; });
  const done = await until(() => states >= total, 300_000);
  await ingest.flush();
  const pathSeconds = (performance.now() - t0) / 1000;
  // CPU per frame of each process: [APs + edge, serve, nats-server].
  const pathCpu = cpuAt().map((c, i) => ((c - cpu0[i]!) / total) * 1e6);
  const pathCpuUs = pathCpu.reduce((a, b) => a + b, 0);
  const value = states / pathSeconds;
  console.log(`  stages: edge published all at ${edgeDone?.toFixed(2) ?? '?'} s, actors and DuckDB done at ${pathSeconds.toFixed(2)} s`);
  console.log(`  path: ${states}/${total} state frames through edge -> NATS -> actor -> DuckDB in ${pathSeconds.toFixed(2)} s = ${Math.round(value)} frames/s${done ? '' : ' (INCOMPLETE)'}`);
  const m = ingest.metrics();
  console.log(`  ingest: ${m.rowsWritten} rows written in ${m.batchesWritten} batches, failures ${m.failures}; nats link ${JSON.stringify(manager.status())}`);
  child.kill('SIGTERM');
  await manager.close();
  fleet.stopAll();
  await ingest.close();
  const pathRows = await readAppendedRows(store);
  await store.close();

  // --- references: two parts of the path alone, same frames, nothing else running ---
  // Not the ratio's baseline (that stays raw pub/sub): they say how fast the
  // path could be on this machine if all our own code cost nothing.
  let c0 = ownCpu() + cpuSeconds(nats.pid());
  const jsFps = await rawJetStream(nats.url, total);
  const jsCpuUs = ((ownCpu() + cpuSeconds(nats.pid()) - c0) / total) * 1e6;
  c0 = ownCpu();
  const duckMs = await appendRaw(join(dataDir, 'raw-appender'), pathRows, 10_000);
  const duckCpuUs = ((ownCpu() - c0) / total) * 1e6;
  const duckFps = total / (duckMs / 1000);
  const share = (x: number) => (x / baseline).toFixed(2);
  console.log(`  references, each part alone: JetStream (core publish into a file stream, pull consumer, cumulative acks) ${Math.round(jsFps)} frames/s = ${share(jsFps)} of raw pub/sub, `
    + `${jsCpuUs.toFixed(0)} us CPU per frame (client + nats-server); raw DuckDB appender of the path's ${pathRows.reduce((n, t) => n + t.rows.length, 0)} rows `
    + `${Math.round(duckFps)} frames/s = ${share(duckFps)} of raw pub/sub, ${duckCpuUs.toFixed(0)} us CPU per frame`);
  // On this machine's cores, a ratio of 0.3 leaves this much CPU per frame for every process of the path together.
  const cores = availableParallelism();
  const budgetUs = (cores / (0.3 * baseline)) * 1e6;
  console.log(`  CPU per frame: the path used ${pathCpuUs.toFixed(0)} us (APs + edge ${pathCpu[0]!.toFixed(0)}, serve ${pathCpu[1]!.toFixed(0)}, nats-server ${pathCpu[2]!.toFixed(0)}); a ratio of 0.3 on ${cores} cores allows ${budgetUs.toFixed(0)} us, `
    + `of which JetStream and the DuckDB append alone take ${(jsCpuUs + duckCpuUs).toFixed(0)} us`);

  // --- 10,000 websocket APs on one edge ---
  const nc2 = await connectNats({ url: nats.url, name: 'bench-edge-many', logger: silentLogger });
  const many = await createEdge({ port: 0, host: '127.0.0.1', nats: nc2, logger: silentLogger, limits: { pingIntervalMs: 60_000 } });
  (globalThis as { gc?: () => void }).gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const tc = performance.now();
  const apsChild = spawnClients(many.url, MANY_APS);
  const allIn = await until(() => many.stats().sessions >= MANY_APS, 180_000);
  const connectS = (performance.now() - tc) / 1000;
  await sleep(1000);
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  console.log(`  ${many.stats().sessions}/${MANY_APS} websocket APs connected (and sent connect) in ${connectS.toFixed(2)} s${allIn ? '' : ' (INCOMPLETE)'}; `
    + `edge process RSS ${(rss / 2 ** 20).toFixed(0)} MiB (target < 1024 MiB; it also holds the first part's leftovers), `
    + `JS heap +${((heapUsed - heap0) / 2 ** 20).toFixed(0)} MiB for the sessions`);
  apsChild.kill('SIGTERM');
  await many.close();
  await nc2.close();

  report({ bench: 'nats-path', metric: 'state frames/s websocket -> edge -> NATS -> actor -> DuckDB', value: Math.round(value), unit: 'frames/s', baseline: Math.round(baseline), baselineName: 'raw nats.js pub/sub, same frames' });
} finally {
  await nats.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The NATS part of the path with nothing of ours: the same frames published with core publish on
 * a subject a file-backed stream captures (as the edge does), read by a durable pull consumer
 * acking cumulatively every 5,000 (as serve does). Frames/s from the first publish to the last
 * delivery.
 */
async function rawJetStream(url: string, n: number): Promise<number> {
  const nc = await connectNats({ url, name: 'bench-js', logger: silentLogger });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'BENCHRAW', subjects: ['benchraw.>'], storage: StorageType.File });
    await jsm.consumers.add('BENCHRAW', { durable_name: 'bench', ack_policy: AckPolicy.All, max_ack_pending: 50_000 });
    const consumer = await jetstream(nc).consumers.get('BENCHRAW', 'bench');
    let got = 0;
    const messages = await consumer.consume({ max_messages: 10_000, threshold_messages: 5_000, callback: (msg) => {
      if (++got % 5_000 === 0 || got === n) msg.ack();
    } });
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      nc.publish(`benchraw.${i % APS}.up`, payloads[i % payloads.length]!);
      if (i % 1000 === 999) await nc.flush();
    }
    await until(() => got >= n, 120_000);
    const fps = got / ((performance.now() - t0) / 1000);
    await messages.close();
    await jsm.streams.delete('BENCHRAW');
    return fps;
  } finally {
    await nc.close();
  }
}

/** `n` minimal APs in a child process: open a socket, send `connect`, keep it open. */
function spawnClients(url: string, n: number) {
  const script = `
    import WebSocket from 'ws';
    const url = ${JSON.stringify(url)}, n = ${n};
    const open = (i) => new Promise((resolve) => {
      const ws = new WebSocket(url + '/', { perMessageDeflate: false });
      const serial = 'ca7e' + i.toString(16).padStart(8, '0');
      ws.on('open', () => { ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'connect', params: { serial, uuid: 1, firmware: 'bench', capabilities: { compatible: 'x' } } })); resolve(); });
      ws.on('error', () => resolve());
    });
    for (let i = 0; i < n; i += 250) await Promise.all(Array.from({ length: Math.min(250, n - i) }, (_, k) => open(i + k)));
    setInterval(() => {}, 1 << 30);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit', cwd: process.cwd() });
}
