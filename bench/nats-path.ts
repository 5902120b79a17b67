/**
 * nats-path: realistic `state` frames from websocket APs through edge -> NATS (JetStream) ->
 * NatsLinkManager -> device actor -> ingest pipeline -> DuckDB, against raw nats.js pub/sub of the
 * same frames in the same run (architecture.md: ratio >= 0.3). Then 10,000 websocket APs connect
 * to one edge: time to connect all and the edge process's memory (target < 1 GiB). The AP
 * sockets of that part live in a child process, so the edge's RSS is measured alone and neither
 * process needs more than its default 20,000 file descriptors (one per socket).
 * Every server is private: its own nats-server on a free port, temp dirs removed at the end.
 */
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { report } from './_report.js';

const APS = 200;
const FRAMES_PER_AP = 100;
const BASELINE_MESSAGES = 100_000;
const MANY_APS = 10_000;

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
  const t0 = performance.now();
  child.send('go');
  let edgeDone: number | undefined;
  void fromChild().then(() => { edgeDone = (performance.now() - t0) / 1000; });
  const done = await until(() => states >= total, 300_000);
  await ingest.flush();
  const pathSeconds = (performance.now() - t0) / 1000;
  const value = states / pathSeconds;
  console.log(`  stages: edge published all at ${edgeDone?.toFixed(2) ?? '?'} s, actors and DuckDB done at ${pathSeconds.toFixed(2)} s`);
  console.log(`  path: ${states}/${total} state frames through edge -> NATS -> actor -> DuckDB in ${pathSeconds.toFixed(2)} s = ${Math.round(value)} frames/s${done ? '' : ' (INCOMPLETE)'}`);
  const m = ingest.metrics();
  console.log(`  ingest: ${m.rowsWritten} rows written in ${m.batchesWritten} batches, failures ${m.failures}; nats link ${JSON.stringify(manager.status())}`);
  child.kill('SIGTERM');
  await manager.close();
  fleet.stopAll();
  await ingest.close();
  await store.close();

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
