/**
 * Replay throughput (docs/performance.md). Records the dense `hall` venue
 * (200 APs) for REPLAY_BENCH_HOURS simulated hours (default 1) in this run, then:
 * - value: frames/s of `airtwin replay FILE --speed max` into a fresh data dir: reading and
 *   checking lines, device actors, the ingest pipeline and DuckDB, until every row is written;
 * - baseline: frames/s of the raw DuckDB appender writing the same rows (read back from the
 *   replayed database) into another fresh data dir, one appender per table, flushed every
 *   10,000 rows like the pipeline's batches at --speed max. Target ratio >= 0.5.
 * Rounds (REPLAY_BENCH_ROUNDS, default 3) alternate the two; each figure is the median of its
 * rounds, as in the ingest and gateway-api benchmarks: one round of the baseline takes about a
 * second, and on a noisy machine a single one swung by half between runs.
 * The pipeline inserts and commits on pool threads (Store.tableInserter) while the event loop reads and
 * maps the next lines; the baseline appends and flushes on the event loop, as a plain program
 * would.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runReplay } from '../src/runtime/replay.js';
import { runSimulate } from '../src/runtime/simulate.js';
import { Store } from '../src/store/duckdb.js';
import { appenderWriters } from '../src/pipelines/table-writer.js';
import { appendRaw, readAppendedRows, type TableRows } from './_raw-appender.js';
import { describeMachine } from './_machine.js';
import { report, median } from './_report.js';

const HOURS = Number(process.env.REPLAY_BENCH_HOURS ?? 1);
const ROUNDS = Math.max(1, Number(process.env.REPLAY_BENCH_ROUNDS ?? 3));
const BATCH = 10_000; // src/runtime/replay.ts: maxRows at --speed max
const dir = mkdtempSync(join(tmpdir(), 'airtwin-bench-replay-'));
const quiet = () => new PassThrough().resume();
// `--writer=appender`: ingest through the reference table writer (src/pipelines/table-writer.ts) instead of the default.
const tableWriters = process.argv.includes('--writer=appender') ? appenderWriters : undefined;

/** Every row the replay wrote to the appended tables. */
async function readRows(dataDir: string): Promise<TableRows[]> {
  const store = await Store.open(dataDir);
  try {
    return await readAppendedRows(store);
  } finally {
    await store.close();
  }
}

try {
  console.log(`replay: record ${HOURS} simulated hour(s) of 'hall', replay it at --speed max into DuckDB, vs raw appenders for the same rows${tableWriters ? ' (ingest through the appender writer)' : ''}`);
  await describeMachine();
  // Warm-up: a short lab recording replayed once, so the JIT and DuckDB have seen the paths.
  const warm = join(dir, 'warm.ndjson');
  await runSimulate({ scenario: 'lab', until: '10m', record: warm }, quiet());
  await runReplay({ file: warm, dataDir: join(dir, 'warm-data'), speed: 'max' }, { out: quiet(), tableWriters });

  const file = join(dir, 'hall.ndjson');
  const sim = await runSimulate({ scenario: 'hall', until: `${HOURS}h`, record: file }, quiet());
  console.log(`  recording: ${sim.frames} frames from ${sim.devices} devices, ${(statSync(file).size / 1e6).toFixed(1)} MB`);

  const replayRates: number[] = [];
  const baseRates: number[] = [];
  // Each run starts on a collected heap, as `airtwin replay` starts in a fresh process: the
  // simulation that made the recording leaves garbage the replay should not pay for, and the
  // baseline's rows (~100 MB of strings, read back from the replayed data dir) are not kept
  // across a replay round, whose GC would have to mark them at every full collection.
  const collect = () => (globalThis as { gc?: () => void }).gc?.();
  let expectedRows: number | undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    collect();
    const replayed = await runReplay({ file, dataDir: join(dir, `replayed-${round}`), speed: 'max' }, { out: quiet(), tableWriters });
    const frames = replayed.summary.frames;
    const fps = frames / (replayed.wallMs / 1000);
    replayRates.push(fps);
    // rowsWritten counts the capabilities upserts too; the appended rows are what the baseline writes.
    const upserts = replayed.ingest.rowsByTable.capabilities ?? 0;
    console.log(`  round ${round} replay: ${frames} frames, ${replayed.ingest.rowsWritten - upserts} rows (+ ${upserts} capabilities upserts) in ${(replayed.wallMs / 1000).toFixed(2)} s -> ${Math.round(fps)} frames/s (${replayed.summary.rejectedCount} rejected)`);
    const tables = await readRows(join(dir, `replayed-${round}`));
    rmSync(join(dir, `replayed-${round}`), { recursive: true, force: true });
    const baseRows = tables.reduce((n, t) => n + t.rows.length, 0);
    // A deterministic replay writes the same rows every round.
    expectedRows ??= baseRows;
    if (baseRows !== expectedRows) throw new Error(`round ${round} wrote ${baseRows} rows, round 1 ${expectedRows}`);
    // ...and the baseline appends exactly the rows the pipeline said it appended.
    if (baseRows !== replayed.ingest.rowsWritten - upserts) throw new Error(`round ${round}: ${baseRows} rows in the tables, the pipeline counted ${replayed.ingest.rowsWritten - upserts}`);
    collect();
    const baseMs = await appendRaw(join(dir, `baseline-${round}`), tables, BATCH);
    rmSync(join(dir, `baseline-${round}`), { recursive: true, force: true });
    const baseFps = frames / (baseMs / 1000);
    baseRates.push(baseFps);
    console.log(`  round ${round} raw appender: the same ${baseRows} rows in ${(baseMs / 1000).toFixed(2)} s -> ${Math.round(baseFps)} frames/s equivalent`);
  }
  const fps = median(replayRates);
  const baseFps = median(baseRates);
  console.log(`  median of ${ROUNDS}: replay ${Math.round(fps)} frames/s, raw appender ${Math.round(baseFps)} frames/s -> ratio ${(fps / baseFps).toFixed(2)}`);
  report({ bench: 'replay', metric: tableWriters ? 'frames/s replayed at --speed max into DuckDB (appender writer)' : 'frames/s replayed at --speed max into DuckDB', value: Math.round(fps), unit: 'frames/s', baseline: Math.round(baseFps), baselineName: 'raw DuckDB appender, same rows' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
