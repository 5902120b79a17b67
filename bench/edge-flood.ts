/**
 * edge-flood: one websocket AP floods an edge as fast as its socket takes frames while 20 quiet
 * APs report once a second, in front of a real `serve --nats` process. Run
 * twice in one go: with the per-AP budget off (edge and serve) as the baseline, then with the
 * defaults. Measured: serve's /health latency (p50, p99) and its resident memory during the flood,
 * the frames serve took from the flooder, and when (if) the flooder was disconnected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEdge } from '../src/links/edge/edge-server.js';
import { connectNats, silentLogger } from '../src/links/nats/connect.js';
import { WsApClient } from '../src/links/sim-ws-client.js';
import { DEFAULT_FRAME_BUDGET, type FrameBudgetLimits } from '../src/protocol/frame-budget.js';
import { freePort, startNats } from '../test/helpers/nats.js';
import { percentile, report } from './_report.js';

const FLOOD_MS = 10_000;
const QUIET_APS = 20;
const BIN = fileURLToPath(new URL('../bin/airtwin.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rssMiB = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const connect = (serial: string) => ({
  jsonrpc: '2.0', method: 'connect',
  params: { serial, uuid: 1, firmware: 'TIP-v2.9.0', capabilities: { compatible: 'edgecore_eap101', model: 'EAP101', platform: 'ap' } },
});
const log = (serial: string, text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'log', params: { serial, log: text, severity: 6 } });

async function startServe(natsUrl: string, dataDir: string, budgetOff: boolean): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const args = [BIN, 'serve', '--no-sim', '--nats', natsUrl, '--data-dir', dataDir, '--gateway-port', String(port), '--rrm-port', String(await freePort()), '--log-level', 'warn'];
  if (budgetOff) args.push('--ap-max-frames-per-s', '0', '--ap-max-bytes-per-s', '0');
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { proc, url };
    await sleep(100);
  }
  throw new Error('serve did not answer /health');
}

async function run(label: string, budget: FrameBudgetLimits, budgetOff: boolean) {
  const nats = await startNats({ jetstream: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-flood-'));
  const serve = await startServe(nats.url, dataDir, budgetOff);
  const nc = await connectNats({ url: nats.url, name: 'bench-edge', logger: silentLogger });
  const edge = await createEdge({ port: 0, host: '127.0.0.1', nats: nc, logger: silentLogger, limits: { budget } });
  try {
    const quiet = Array.from({ length: QUIET_APS }, (_, i) => ({ serial: `a0b1c2e0${String(i).padStart(4, '0')}`, c: new WsApClient({ url: edge.url }) }));
    const flooder = { serial: 'a0b1c2efffff', c: new WsApClient({ url: edge.url }) };
    for (const ap of [...quiet, flooder]) {
      await ap.c.opened;
      ap.c.send(connect(ap.serial));
    }
    await sleep(2000);
    const rss0 = rssMiB(serve.proc.pid!);
    let closedAt: number | undefined;
    void flooder.c.closed.then(() => { closedAt = performance.now(); });
    const start = performance.now();
    let sent = 0;
    let rssMax = rss0;
    const latencies: number[] = [];
    // The flooder writes whenever its socket buffer has room; quiet APs and probes go on meanwhile.
    const ws = (flooder.c as unknown as { ws: { bufferedAmount: number; send(t: string): void; readyState: number } }).ws;
    const flood = (async () => {
      while (performance.now() - start < FLOOD_MS && closedAt === undefined) {
        for (let i = 0; i < 500 && ws.readyState === 1 && ws.bufferedAmount < 1 << 20; i++) ws.send(log(flooder.serial, `flood ${sent++}`));
        await new Promise((r) => setImmediate(r));
      }
    })();
    const probes = (async () => {
      while (performance.now() - start < FLOOD_MS) {
        const t = performance.now();
        await fetch(`${serve.url}/health`).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t);
        rssMax = Math.max(rssMax, rssMiB(serve.proc.pid!));
        await sleep(50);
      }
    })();
    const reports = (async () => {
      for (let s = 0; performance.now() - start < FLOOD_MS; s++) {
        for (const ap of quiet) ap.c.send(log(ap.serial, `quiet ${s}`));
        await sleep(1000);
      }
    })();
    await Promise.all([flood, probes, reports]);
    await sleep(2000);
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    const logsTaken = Number(/^airtwin_device_events_total\{type="log"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    const stats = edge.stats();
    const out = {
      label, sent, edgeRateLimited: stats.rateLimited, logsTakenByServe: logsTaken,
      flooderCutAfterS: closedAt === undefined ? null : Number(((closedAt - start) / 1000).toFixed(1)),
      healthP50Ms: Number(percentile(latencies, 50).toFixed(1)), healthP99Ms: Number(percentile(latencies, 99).toFixed(1)),
      serveRssMiB: { before: Math.round(rss0), max: Math.round(rssMax) },
    };
    console.log(JSON.stringify(out));
    for (const ap of [...quiet, flooder]) ap.c.terminate();
    return out;
  } finally {
    await edge.close();
    await nc.drain().catch(() => undefined);
    serve.proc.kill('SIGTERM');
    await new Promise((r) => serve.proc.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    await nats.stop();
  }
}

console.log(`edge-flood: 1 AP flooding for ${FLOOD_MS / 1000} s + ${QUIET_APS} quiet APs, edge in this process, serve --nats as a child`);
const off = await run('budget off', { framesPerS: 0, bytesPerS: 0, burstS: 1, strikes: 0 }, true);
const on = await run('default budget', DEFAULT_FRAME_BUDGET, false);
report({ bench: 'edge-flood', metric: 'serve /health p99 during a flood, default budget', value: on.healthP99Ms, unit: 'ms', baseline: off.healthP99Ms, baselineName: 'budget off' });
