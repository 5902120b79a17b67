/**
 * A channel dry run of a 200-AP zone over HTTP (issue 34: <= 1 s for the best channel mode): the
 * `hall` venue (200 APs, one zone) runs under `serve` at --speed 20 until every AP has a stored
 * state and scan, then stops (the figure is the service's cost, not the simulation's contention
 * for the one event loop); then `GET /api/v1/optimizeChannel?zone=..&mode=<mode>&dry_run=true
 * &seed=1` is timed over a real socket, end to end (model, optimizer, score, run record).
 * Each figure is the median of 5 requests after 1 warm-up.
 * Usage: npx tsx bench/rrm-http.ts [mode] (default annealing).
 * Result: ms per dry run of the 200-AP zone (baseline: the 1,000 ms target).
 */
import { rmSync } from 'node:fs';
import { startScannedHall } from './_hall-scanned.js';
import { median, report } from './_report.js';

const mode = process.argv[2] ?? 'annealing';
const TOKEN = 'bench-rrm-http-token';
const { serve, dataDir, serials, began } = await startScannedHall('rrm-http', [`${TOKEN}:admin`]);
try {
  await serve.sim!.close();
  await serve.ingest.flush();
  const get = async (path: string): Promise<unknown> => {
    const res = await fetch(`${serve.rrmUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const topology = await get('/getTopology') as Record<string, string[]>;
  const [zone, members] = Object.entries(topology).sort((a, b) => b[1].length - a[1].length)[0]!;
  console.log(`hall: ${serials.length} APs; zone '${zone}' has ${members.length}; mode ${mode}; venue stopped after ${((Date.now() - began) / 1000).toFixed(0)} s`);
  const path = `/optimizeChannel?zone=${encodeURIComponent(zone)}&mode=${mode}&dry_run=true&seed=1`;
  await get(path);
  const times: number[] = [];
  let cci = '';
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const body = await get(path) as { score?: { before: { cci_mw: number }; after: { cci_mw: number } } };
    times.push(performance.now() - t);
    if (body.score) cci = `CCI ${body.score.before.cci_mw.toPrecision(4)} -> ${body.score.after.cci_mw.toPrecision(4)} mW`;
  }
  console.log(`optimizeChannel dry run (${mode}): ${times.map((v) => v.toFixed(0)).join(', ')} ms; median ${median(times).toFixed(1)}; ${cci}`);
  report({ bench: 'rrm-http', metric: `ms per ${mode} channel dry run of a 200-AP zone over HTTP`, value: Number(median(times).toFixed(1)), unit: 'ms', baseline: 1000, baselineName: 'target' });
} finally {
  await serve.close();
  rmSync(dataDir, { recursive: true, force: true });
}
