/**
 * Building the RRM model of a 200-AP zone for a run (target <= 100 ms, docs/performance.md): the
 * `hall` venue (200 APs) runs under `serve` at --speed 20 until every AP has a stored state and
 * a stored scan (the venue's own periodic scans, every 15 venue minutes); then the run path
 * (apply.ts: the newest state and scan of each device, then the pure builder) is timed with the
 * venue stopped, beside the same documents read from DuckDB (the path before the in-memory copy)
 * and the currentModel path (10 of each).
 * Each figure is the median of 7 runs after 2 warm-ups.
 * Result: ms to build the run model of the 200-AP zone (target <= 100 ms; baseline: the same
 * model with every document read from DuckDB, measured in the same run).
 */
import { rmSync } from 'node:fs';
import { startScannedHall } from './_hall-scanned.js';
import { RUN_BUFFER } from '../src/rrm/apply.js';
import { buildModel } from '../src/rrm/model/build.js';
import { deviceDocuments, queryModel } from '../src/rrm/model-query.js';
import { median, report } from './_report.js';

const { serve, dataDir, serials, began } = await startScannedHall('rrm-model');
try {
  const [rows] = await serve.store.query<{ s: number; e: number }>('SELECT (SELECT count(*) FROM statistics)::INTEGER AS s, (SELECT count(*) FROM wifi_scan_entries)::INTEGER AS e');
  // The venue stops (and ingest drains) before timing: the figure is the model's cost, not the
  // simulation's contention for the one event loop (at --speed 20 the hall alone keeps it busy).
  await serve.sim!.close();
  await serve.ingest.flush();
  console.log(`hall: ${serials.length} APs; store holds ${rows!.s} states, ${rows!.e} scan entries (after ${((Date.now() - began) / 1000).toFixed(0)} s)`);
  const time = async (fn: () => Promise<unknown>): Promise<number[]> => {
    for (let i = 0; i < 2; i++) await fn();
    const out: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
    return out;
  };
  const applier = serve.rrmService!.applier;
  // The run path: each AP's newest state and scan from memory (kept from the fleet's events),
  // capabilities and configurations from DuckDB; beside it, the same documents all read from DuckDB.
  let readOnly: number[] = [];
  const run = await time(async () => {
    const t = performance.now();
    const docs = await applier.runDocuments(serials);
    readOnly.push(performance.now() - t);
    return buildModel(docs);
  });
  readOnly = readOnly.slice(2);
  let queryOnly: number[] = [];
  const stored = await time(async () => {
    const t = performance.now();
    const docs = await deviceDocuments(serve.store, serials, RUN_BUFFER);
    queryOnly.push(performance.now() - t);
    return buildModel(docs);
  });
  queryOnly = queryOnly.slice(2);
  const full = await time(() => queryModel(serve.store, serials));
  const ms = (xs: number[]): string => xs.map((v) => v.toFixed(0)).join(', ');
  console.log(`run model (newest state + scan per AP, from memory): ${ms(run)} ms; median ${median(run).toFixed(1)} (documents ${median(readOnly).toFixed(1)}; target 100)`);
  console.log(`same model read from DuckDB (before): ${ms(stored)} ms; median ${median(stored).toFixed(1)} (queries ${median(queryOnly).toFixed(1)})`);
  console.log(`currentModel (10 states + 10 scans per AP): ${ms(full)} ms; median ${median(full).toFixed(1)}`);
  report({ bench: 'rrm-model', metric: 'ms to build the run model of a 200-AP zone', value: Number(median(run).toFixed(1)), unit: 'ms', baseline: Number(median(stored).toFixed(1)), baselineName: 'read from DuckDB' });
} finally {
  await serve.close();
  rmSync(dataDir, { recursive: true, force: true });
}
