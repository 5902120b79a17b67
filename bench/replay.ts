/**
 * Replay throughput (architecture.md, "Benchmarks": replay). Records the dense `hall` venue
 * (200 APs) for REPLAY_BENCH_HOURS simulated hours (default 1) in this run, then:
 * - value: frames/s of `airtwin replay FILE --speed max` into a fresh data dir: reading and
 *   checking lines, device actors, the ingest pipeline and DuckDB, until every row is written;
 * - baseline: frames/s of the raw DuckDB appender writing the same rows (read back from the
 *   replayed database) into another fresh data dir, one appender per table, flushed every
 *   10,000 rows like the pipeline's batches at --speed max. Target ratio >= 0.5.
 * The pipeline commits on DuckDB's threads (staged appenders) while the event loop reads and
 * maps the next lines; the baseline appends and flushes on the event loop, as a plain program
 * would.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runReplay } from '../src/commands/replay.js';
import { runSimulate } from '../src/commands/simulate.js';
import { TABLES, type TableName } from '../src/pipelines/tables.js';
import { Store } from '../src/store/duckdb.js';
import { report } from './_report.js';

const HOURS = Number(process.env.REPLAY_BENCH_HOURS ?? 1);
const BATCH = 10_000; // src/commands/replay.ts: maxRows at --speed max
const dir = mkdtempSync(join(tmpdir(), 'airtwin-bench-replay-'));
const quiet = () => new PassThrough().resume();

type Table = { name: TableName; kinds: string[]; rows: unknown[][] };

/** Every row the replay wrote to the appended tables, in column order. */
async function readRows(dataDir: string): Promise<Table[]> {
  const store = await Store.open(dataDir);
  try {
    const out: Table[] = [];
    for (const name of Object.keys(TABLES) as TableName[]) {
      const spec = TABLES[name];
      const cols = spec.columns.map(([c]) => `"${c}"`).join(', ');
      const rows = await store.query(`SELECT ${cols} FROM ${spec.name}`);
      out.push({ name, kinds: spec.columns.map(([, k]) => k), rows: rows.map((r) => spec.columns.map(([c]) => r[c])) });
    }
    return out;
  } finally {
    await store.close();
  }
}

/** The baseline: the same rows through raw appenders. Returns ms spent appending. */
async function appendRaw(dataDir: string, tables: Table[]): Promise<number> {
  const store = await Store.open(dataDir);
  try {
    const handles = await Promise.all(tables.map((t) => store.appender(TABLES[t.name].name)));
    const t0 = performance.now();
    tables.forEach((t, i) => {
      const a = handles[i]!.appender;
      t.rows.forEach((row, r) => {
        row.forEach((v, c) => {
          if (v === null || v === undefined) a.appendNull();
          else if (t.kinds[c] === 'text') a.appendVarchar(String(v));
          else if (t.kinds[c] === 'bool') a.appendBoolean(v === true);
          else a.appendDouble(Number(v));
        });
        a.endRow();
        if ((r + 1) % BATCH === 0) a.flushSync();
      });
      a.flushSync();
    });
    const ms = performance.now() - t0;
    for (const h of handles) h.close();
    return ms;
  } finally {
    await store.close();
  }
}

try {
  console.log(`replay: record ${HOURS} simulated hour(s) of 'hall', replay it at --speed max into DuckDB, vs raw appenders for the same rows`);
  // Warm-up: a short lab recording replayed once, so the JIT and DuckDB have seen the paths.
  const warm = join(dir, 'warm.ndjson');
  await runSimulate({ scenario: 'lab', until: '10m', record: warm }, quiet());
  await runReplay({ file: warm, dataDir: join(dir, 'warm-data'), speed: 'max' }, { out: quiet() });

  const file = join(dir, 'hall.ndjson');
  const sim = await runSimulate({ scenario: 'hall', until: `${HOURS}h`, record: file }, quiet());
  console.log(`  recording: ${sim.frames} frames from ${sim.devices} devices, ${(statSync(file).size / 1e6).toFixed(1)} MB`);

  const replayed = await runReplay({ file, dataDir: join(dir, 'replayed'), speed: 'max' }, { out: quiet() });
  const frames = replayed.summary.frames;
  const fps = frames / (replayed.wallMs / 1000);
  const rows = replayed.ingest.rowsWritten;
  console.log(`  replay: ${frames} frames, ${rows} rows in ${(replayed.wallMs / 1000).toFixed(2)} s -> ${Math.round(fps)} frames/s (${replayed.summary.rejectedCount} rejected)`);

  const tables = await readRows(join(dir, 'replayed'));
  const baseRows = tables.reduce((n, t) => n + t.rows.length, 0);
  const baseMs = await appendRaw(join(dir, 'baseline'), tables);
  const baseFps = frames / (baseMs / 1000);
  console.log(`  raw appender: the same ${baseRows} rows in ${(baseMs / 1000).toFixed(2)} s -> ${Math.round(baseFps)} frames/s equivalent`);
  report({ bench: 'replay', metric: 'frames/s replayed at --speed max into DuckDB', value: Math.round(fps), unit: 'frames/s', baseline: Math.round(baseFps), baselineName: 'raw DuckDB appender, same rows' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
