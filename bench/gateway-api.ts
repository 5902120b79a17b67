/**
 * gateway-api benchmark (docs/performance.md): GET /api/v1/device/{serial} req/s over a
 * real socket with 10,000 devices stored, against a bare Fastify route returning the same JSON
 * object, with the same client in the same run; plus the p99 latency of GET /devices?limit=100.
 *
 * The client is node's own http module (keep-alive Agent, N requests in flight) in a worker
 * thread, so it does not share the servers' event loop. Devices are stored before the server
 * starts with one INSERT ... SELECT over range(10000) (same rows as 10,000 repository inserts),
 * in a scrambled order as APs enrol in no particular order (a sorted table would flatter listing).
 * Rounds alternate baseline and subject; each figure is the median of its rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { percentile, report, median } from './_report.js';
import { SERVE_DEFAULTS } from '../src/config/schema.js';
import { startServe } from '../src/runtime/serve.js';
import { Store } from '../src/store/duckdb.js';

const DEVICES = 10_000;
const CONCURRENCY = 32;
const ROUND_MS = 3_000;
const ROUNDS = 3;
const LIST_REQUESTS = 500;
const TOKEN = 'bench-token-000000001';
const SERIAL_BASE = 0xa0_00_00_00_00_00;
const serialOf = (i: number) => (SERIAL_BASE + i).toString(16).padStart(12, '0');

/** A configuration of realistic size (~1 KB): what GET /device returns for each AP. */
const CONFIG = JSON.stringify({
  uuid: 1700000000,
  radios: [{ band: '2G', channel: 6, 'channel-width': 20, country: 'CA', 'tx-power': 20 }, { band: '5G', channel: 36, 'channel-width': 80, country: 'CA' }],
  interfaces: [{ name: 'WAN', role: 'upstream', ethernet: [{ 'select-ports': ['WAN*'] }], ipv4: { addressing: 'dynamic' },
    ssids: [{ name: 'airtwin', 'wifi-bands': ['2G', '5G'], 'bss-mode': 'ap', encryption: { proto: 'psk2', key: 'benchmark-key', ieee80211w: 'optional' } }] }],
  services: { ssh: { port: 22 }, lldp: { describe: 'airtwin', location: 'bench' } },
  metrics: { statistics: { interval: 60, types: ['ssids', 'lldp', 'clients'] }, health: { interval: 120 } },
});

async function seed(dataDir: string): Promise<void> {
  const store = await Store.open(dataDir);
  const now = 1_700_000_000;
  await store.run(
    `INSERT INTO devices (serial, device_type, mac_address, manufacturer, uuid, configuration, notes, created,
       last_configuration_change, last_configuration_download, firmware, device_password, owner, location, venue,
       subscriber, entity, modified, locale, compatible, last_fw_update, last_recorded_contact, simulated, connect_reason)
     SELECT s, 'AP', concat_ws(':', s[1:2], s[3:4], s[5:6], s[7:8], s[9:10], s[11:12]),
       'Edgecore', $2, $3, '[]', $2, $2, 0, 'TIP-v3.0.0', '', '', '', 'venue-' || (i % 50), '', '', $2, 'CA',
       'edgecore_eap101', 0, 0, false, ''
     FROM (SELECT lower(printf('%012x', CAST($1 AS BIGINT) + i)) AS s, i FROM range(CAST($4 AS BIGINT)) t(i))
     ORDER BY hash(i)`,
    [SERIAL_BASE, now, CONFIG, DEVICES],
  );
  await store.close();
}

/** The load generator, plain JS for a worker: closed loop, CONCURRENCY requests in flight. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, paths, token, concurrency, durationMs, maxRequests } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
let done = 0, errors = 0, next = 0;
const latencies = [];
const started = performance.now();
const deadline = started + durationMs;
function one() {
  return new Promise((resolve) => {
    const path = paths[next++ % paths.length];
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path, agent, headers: token ? { authorization: 'Bearer ' + token } : {} }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - t0);
        done++;
        resolve();
      });
    });
    req.on('error', () => { errors++; resolve(); });
    req.end();
  });
}
async function loop() {
  while (performance.now() < deadline && (maxRequests === 0 || next < maxRequests)) await one();
}
Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
  agent.destroy();
  parentPort.postMessage({ done, errors, seconds: (performance.now() - started) / 1000, latencies });
});
`;

interface Load { done: number; errors: number; seconds: number; latencies: number[] }

function load(port: number, paths: string[], opts: { token?: string; concurrency: number; durationMs: number; maxRequests?: number }): Promise<Load> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CLIENT, { eval: true, workerData: { port, paths, token: opts.token, concurrency: opts.concurrency, durationMs: opts.durationMs, maxRequests: opts.maxRequests ?? 0 } });
    w.once('message', (m: Load) => resolve(m));
    w.once('error', reject);
  });
}

const portOf = (url: string) => Number(new URL(url).port);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-bench-'));
  await seed(dataDir);
  const running = await startServe(
    { ...SERVE_DEFAULTS, dataDir, gatewayPort: 0, rrmPort: 0, sim: false, logLevel: 'silent', apiTokens: [TOKEN] },
    { print: () => undefined, logDestination: new Writable({ write: (_c, _e, cb) => cb() }) },
  );
  // The baseline: the same records served from a Map by a bare route, no auth, no schema.
  const bare = Fastify({ logger: false });
  const records = new Map<string, unknown>();
  for (let i = 0; i < DEVICES; i++) {
    const serial = serialOf(i);
    records.set(serial, (await running.gateway.inject({ method: 'GET', url: `/api/v1/device/${serial}`, headers: { authorization: `Bearer ${TOKEN}` } })).json());
  }
  bare.get('/device/:serial', async (req) => records.get((req.params as { serial: string }).serial));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as { port: number }).port;
  const gwPort = portOf(running.gatewayUrl);

  // Requests spread over every stored device, in a fixed shuffled order (LCG, seed 1).
  let x = 1;
  const order = Array.from({ length: DEVICES }, (_, i) => i).sort(() => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5);
  const barePaths = order.map((i) => `/device/${serialOf(i)}`);
  const gwPaths = order.map((i) => `/api/v1/device/${serialOf(i)}`);

  console.log(`gateway-api: ${DEVICES} devices stored; node:http keep-alive client in a worker, ${CONCURRENCY} in flight, ${ROUNDS} rounds of ${ROUND_MS} ms each`);
  await load(barePort, barePaths, { concurrency: CONCURRENCY, durationMs: 1000 });
  await load(gwPort, gwPaths, { token: TOKEN, concurrency: CONCURRENCY, durationMs: 1000 });
  const bareRates: number[] = [];
  const gwRates: number[] = [];
  const gwLat: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const b = await load(barePort, barePaths, { concurrency: CONCURRENCY, durationMs: ROUND_MS });
    const g = await load(gwPort, gwPaths, { token: TOKEN, concurrency: CONCURRENCY, durationMs: ROUND_MS });
    if (b.errors || g.errors) throw new Error(`non-200 answers: bare ${b.errors}, gateway ${g.errors}`);
    bareRates.push(b.done / b.seconds);
    gwRates.push(g.done / g.seconds);
    gwLat.push(...g.latencies);
    console.log(`  round ${r + 1}: bare fastify ${Math.round(b.done / b.seconds)} req/s, GET /device/{serial} ${Math.round(g.done / g.seconds)} req/s`);
  }
  console.log(`  GET /device/{serial} latency p50 ${percentile(gwLat, 50).toFixed(2)} ms, p99 ${percentile(gwLat, 99).toFixed(2)} ms at ${CONCURRENCY} in flight`);

  const listPaths = Array.from({ length: 100 }, (_, i) => `/api/v1/devices?limit=100&offset=${1 + i * 100}`);
  await load(gwPort, listPaths, { token: TOKEN, concurrency: 1, durationMs: 60_000, maxRequests: 300 });
  for (const c of [1, 8]) {
    const l = await load(gwPort, listPaths, { token: TOKEN, concurrency: c, durationMs: 60_000, maxRequests: LIST_REQUESTS });
    if (l.errors) throw new Error(`GET /devices: ${l.errors} non-200 answers`);
    console.log(`  GET /devices?limit=100 (offsets over all ${DEVICES}), ${c} in flight: p50 ${percentile(l.latencies, 50).toFixed(2)} ms, p99 ${percentile(l.latencies, 99).toFixed(2)} ms (target p99 < 20 ms at 1 in flight)`);
  }

  await bare.close();
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
  report({ bench: 'gateway-api', metric: 'GET /device/{serial} req/s', value: Math.round(median(gwRates)), unit: 'req/s', baseline: Math.round(median(bareRates)), baselineName: 'bare fastify' });
}

await main();
