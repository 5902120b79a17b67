/**
 * nats-path: realistic `state` frames from websocket APs through edge -> NATS (JetStream) ->
 * NatsLinkManager -> device actor -> ingest pipeline -> DuckDB, against raw nats.js pub/sub of the
 * same frames in the same run (architecture.md: ratio >= 0.3). Then 10,000 websocket APs connect
 * to one edge: time to connect all and the edge process's memory (target < 1 GiB). The AP
 * sockets of that part live in a child process, so the edge's RSS is measured alone and neither
 * process needs more than its default 20,000 file descriptors (one per socket).
 * Every server is private: its own nats-server on a free port, temp dirs removed at the end.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../actors/fleet.js';
import { stateFrame } from '../simulator/ap/frames.js';
import { VirtualClock } from '../simulator/clock.js';
import { loadScenario, scenarioStart } from '../simulator/scenario.js';
import { buildVenue } from '../simulator/venue.js';
import { createEdge } from '../src/links/edge/edge-server.js';
import { connectNats, silentLogger } from '../src/links/nats/connect.js';
import { NatsLinkManager } from '../src/links/nats/nats-link-manager.js';
import { WsApClient } from '../src/links/sim-ws-client.js';
import { clockScheduler } from '../src/pipelines/clock-scheduler.js';
import { startIngest } from '../src/pipelines/ingest.js';
import { wallClock } from '../src/protocol/clock.js';
import { Store } from '../src/store/duckdb.js';
import { startNats } from '../test/helpers/nats.js';
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

// Realistic state documents: the `hall` venue's frames, one per AP, serial swapped per client.
const { scenario } = loadScenario('hall');
const venue = buildVenue(scenario, new VirtualClock(scenarioStart(scenario)), scenario.seed);
const templates = venue.aps.map((ap) => ({ serial: ap.serial, text: JSON.stringify(stateFrame(venue, ap)) }));
const serialOf = (i: number) => `b0a7000${i.toString(16).padStart(5, '0')}`;
const stateText = (i: number) => {
  const t = templates[i % templates.length]!;
  return t.text.replaceAll(t.serial, serialOf(i));
};
const avgBytes = Math.round(templates.reduce((n, t) => n + t.text.length, 0) / templates.length);
console.log(`nats-path: ${APS} websocket APs x ${FRAMES_PER_AP} state frames (~${avgBytes} bytes each, hall venue) vs raw nats.js pub/sub`);

const nats = await startNats({ jetstream: true });
const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-bench-'));
try {
  // --- baseline: raw nats.js pub/sub of the same frames, one publisher and one subscriber ---
  const pubNc = await connectNats({ url: nats.url, name: 'bench-pub', logger: silentLogger });
  const subNc = await connectNats({ url: nats.url, name: 'bench-sub', logger: silentLogger });
  let got = 0;
  subNc.subscribe('bench.raw', { callback: () => { got++; } });
  await subNc.flush();
  const payloads = Array.from({ length: 64 }, (_, i) => stateText(i));
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
  const nc = await connectNats({ url: nats.url, name: 'bench-edge', logger: silentLogger });
  const manager = await NatsLinkManager.start({ url: nats.url, logger: silentLogger, onDevice: (l) => fleet.attach(l) });
  const edge = await createEdge({ port: 0, host: '127.0.0.1', nats: nc, logger: silentLogger });
  const clients = Array.from({ length: APS }, () => new WsApClient({ url: `${edge.url}/` }));
  await Promise.all(clients.map((c) => c.opened));
  clients.forEach((c, i) => c.send({
    jsonrpc: '2.0', method: 'connect',
    params: { serial: serialOf(i), uuid: 1, firmware: 'bench', capabilities: { compatible: 'edgecore_eap101', platform: 'ap' } },
  }));
  await until(() => fleet.connectionStatistics().connectedDevices === APS, 30_000);
  const texts = clients.map((_, i) => stateText(i));
  const total = APS * FRAMES_PER_AP;
  const t0 = performance.now();
  for (let k = 0; k < FRAMES_PER_AP; k++) {
    clients.forEach((c, i) => c.send(texts[i]!));
    if (k % 10 === 9) await sleep(0); // let sockets drain between rounds
  }
  // Stage times show where the path spends its time (edge published, serve consumed, actors done).
  const stage: Record<string, number> = {};
  const watch = setInterval(() => {
    const t = (performance.now() - t0) / 1000;
    if (stage.edge === undefined && edge.stats().framesUp >= total + APS) stage.edge = t;
    if (stage.consumed === undefined && manager.status().frames >= total + APS) stage.consumed = t;
  }, 5);
  const done = await until(() => states >= total, 300_000);
  clearInterval(watch);
  console.log(`  stages: edge published all at ${stage.edge?.toFixed(2)} s, serve consumed all at ${stage.consumed?.toFixed(2)} s, actors done at ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  await ingest.flush();
  const pathSeconds = (performance.now() - t0) / 1000;
  const value = states / pathSeconds;
  const m = ingest.metrics();
  console.log(`  path: ${states}/${total} state frames through edge -> NATS -> actor -> DuckDB in ${pathSeconds.toFixed(2)} s = ${Math.round(value)} frames/s${done ? '' : ' (INCOMPLETE)'}`);
  console.log(`  ingest: ${m.rowsWritten} rows written in ${m.batchesWritten} batches, failures ${m.failures}; edge protocol errors ${edge.stats().protocolErrors}`);
  for (const c of clients) c.terminate();
  await edge.close();
  await manager.close();
  fleet.stopAll();
  await ingest.close();
  await store.close();
  await nc.close();

  // --- 10,000 websocket APs on one edge ---
  const nc2 = await connectNats({ url: nats.url, name: 'bench-edge-many', logger: silentLogger });
  const many = await createEdge({ port: 0, host: '127.0.0.1', nats: nc2, logger: silentLogger, limits: { pingIntervalMs: 60_000 } });
  (globalThis as { gc?: () => void }).gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const tc = performance.now();
  const child = spawnClients(many.url, MANY_APS);
  const allIn = await until(() => many.stats().sessions >= MANY_APS, 180_000);
  const connectS = (performance.now() - tc) / 1000;
  await sleep(1000);
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  console.log(`  ${many.stats().sessions}/${MANY_APS} websocket APs connected (and sent connect) in ${connectS.toFixed(2)} s${allIn ? '' : ' (INCOMPLETE)'}; `
    + `edge process RSS ${(rss / 2 ** 20).toFixed(0)} MiB (target < 1024 MiB; it also holds the first part's leftovers), `
    + `JS heap +${((heapUsed - heap0) / 2 ** 20).toFixed(0)} MiB for the sessions`);
  child.kill('SIGTERM');
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
