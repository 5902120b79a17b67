/**
 * Ingest throughput: realistic state frames (the simulator's generator on the dense `hall`
 * venue: 200 APs, ~10 stations each, ~7.6 KB per frame) through device actor -> fleet events$
 * -> ingest pipeline -> DuckDB, versus the raw DuckDB appender writing the same rows (statistics + state_radios + state_associations,
 * values computed before the clock starts) in the same run. Each round gets fresh DuckDB files;
 * the median of the rounds is reported (target ratio >= 0.5, docs/performance.md).
 * `--writer=appender` runs the pipeline through the reference table writer (DuckDB's appender)
 * instead of the default chunk writer (src/pipelines/table-writer.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../actors/fleet.js';
import type { SimAp } from '../simulator/ap/ap-state.js';
import { connectFrame, stateFrame } from '../simulator/ap/frames.js';
import { VirtualClock } from '../simulator/clock.js';
import { startClients } from '../simulator/clients/dynamics.js';
import { loadScenario, scenarioStart } from '../simulator/scenario.js';
import { buildVenue } from '../simulator/venue.js';
import { clockScheduler } from '../src/pipelines/clock-scheduler.js';
import type { PipelineLogger } from '../src/pipelines/duckdb-sink.js';
import { eventRows, startIngest } from '../src/pipelines/ingest.js';
import { appenderWriters } from '../src/pipelines/table-writer.js';
import { TABLES, type Row, type TableName } from '../src/pipelines/tables.js';
import type { DeviceLink, LinkEvent } from '../src/protocol/device-link.js';
import type { NotificationFrame } from '../src/protocol/frame.js';
import { Store } from '../src/store/duckdb.js';
import { describeMachine } from './_machine.js';
import { report, median } from './_report.js';

const ROUNDS = Number(process.env.INGEST_BENCH_ROUNDS ?? 3);
const FRAMES_PER_AP = Number(process.env.INGEST_BENCH_FRAMES_PER_AP ?? 25);
const WRITER = process.argv.includes('--writer=appender') ? 'appender' : 'chunks';
const quiet: PipelineLogger = { info: () => undefined, warn: () => undefined, error: (o, m) => console.error(m, o) };

// --- frames: the hall venue at --speed max, a state from every AP each simulated minute -------
const { scenario } = loadScenario('hall');
const simClock = new VirtualClock(scenarioStart(scenario));
const venue = buildVenue(scenario, simClock);
startClients(venue);
simClock.increment(30 * 60_000); // let stations arrive and associate
const frames: { ap: SimAp; frame: NotificationFrame }[] = [];
for (let i = 0; i < FRAMES_PER_AP; i++) {
  simClock.increment(60_000);
  for (const ap of venue.aps) frames.push({ ap, frame: stateFrame(venue, ap) });
}
const bytes = frames.reduce((s, f) => s + JSON.stringify(f.frame).length, 0);
console.log(`ingest: ${frames.length} state frames of '${scenario.name}' (${venue.aps.length} APs, ${venue.clients.length} stations), avg ${(bytes / frames.length / 1024).toFixed(1)} KB, ${WRITER} table writer`);
await describeMachine();

/** A DeviceLink the bench pushes frames into, as a NATS or websocket link would deliver them. */
class PushLink implements DeviceLink {
  private listener: ((e: LinkEvent) => void) | undefined;
  constructor(readonly serial: string, private readonly now: () => number) {}
  subscribe(l: (e: LinkEvent) => void): () => void {
    this.listener = l;
    return () => (this.listener = undefined);
  }
  async send(): Promise<void> {}
  async close(): Promise<void> {}
  push(e: LinkEvent): void {
    this.listener?.(e);
  }
  frame(frame: NotificationFrame): void {
    this.push({ type: 'frame', at: this.now(), frame, bytes: 0 });
  }
}

const settle = () => new Promise((r) => setImmediate(r));
/** Collect the previous run's garbage before a timed section, so neither path pays for the other's. */
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-bench-ingest-'));
  const store = await Store.open(dir);
  try {
    return await work(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Subject: frames -> actors -> events$ -> pipeline -> DuckDB. Returns frames/s. */
async function subject(list: typeof frames): Promise<number> {
  return withStore(async (store) => {
    const clock = new VirtualClock(simClock.now());
    const fleet = new Fleet({ clock, newId: () => 'bench' });
    const links = new Map<string, PushLink>();
    for (const ap of venue.aps) {
      const link = new PushLink(ap.serial, () => clock.now());
      links.set(ap.serial, link);
      fleet.attach(link);
      link.push({ type: 'connected', at: clock.now(), ipAddress: '10.0.0.1', certificate: 'VERIFIED' });
      link.frame(connectFrame(ap));
    }
    await settle();
    const ingest = startIngest({
      events$: fleet.events$, store, scheduler: clockScheduler(clock), logger: quiet, ...(WRITER === 'appender' ? { openWriter: appenderWriters(store) } : {}),
    });
    await ingest.flush(); // connect-time rows (capabilities) and open appenders: not timed
    gc();
    const t0 = performance.now();
    // Frames arrive as network reads do: one simulated minute of the venue (a state per AP), then
    // the event loop turns, so the pipeline writes while the next minute comes in.
    for (let i = 0; i < list.length; i++) {
      const { ap, frame } = list[i]!;
      links.get(ap.serial)!.frame(frame);
      if (i % venue.aps.length === venue.aps.length - 1) await settle();
    }
    await ingest.flush();
    const ms = performance.now() - t0;
    const m = ingest.metrics();
    if (m.rowsByTable.statistics !== list.length || m.failures > 0) throw new Error(`ingest lost frames: ${JSON.stringify(m)}`);
    fleet.stopAll();
    await ingest.close();
    return list.length / (ms / 1000);
  });
}

/** Baseline: the same rows, already computed, appended row by row with raw appenders. */
async function baseline(list: typeof frames): Promise<number> {
  const rows: Row[] = [];
  for (const { ap, frame } of list) {
    const p = frame.params as { uuid: number; state: Record<string, unknown> };
    rows.push(...eventRows({ type: 'state', serial: ap.serial, at: simClock.now(), payload: { uuid: p.uuid, state: p.state } })!.rows);
  }
  return withStore(async (store) => {
    const tables: TableName[] = ['statistics', 'state_radios', 'state_associations'];
    const handles = new Map(await Promise.all(tables.map(async (t) => [t, await store.appender(t)] as const)));
    const kinds = new Map(tables.map((t) => [t, TABLES[t].columns.map((c) => c[1]).filter((k) => k !== 'id')]));
    let id = 1;
    gc();
    const t0 = performance.now();
    for (let i = 0; i < rows.length; i++) {
      const { table, values } = rows[i]!;
      const a = handles.get(table)!.appender;
      const k = kinds.get(table)!;
      if (table === 'statistics') a.appendDouble(id++);
      for (let c = 0; c < k.length; c++) {
        const v = values[c];
        if (v === null || v === undefined) a.appendNull();
        else if (k[c] === 'text') a.appendVarchar(v as string);
        else a.appendDouble(v as number);
      }
      a.endRow();
      if (i % 2000 === 1999) for (const h of handles.values()) h.appender.flushSync();
    }
    for (const h of handles.values()) h.appender.flushSync();
    const ms = performance.now() - t0;
    for (const h of handles.values()) h.close();
    return list.length / (ms / 1000);
  });
}


// Warm-up: a tenth of the frames through both paths, so the JIT has seen the hot code.
await subject(frames.slice(0, Math.ceil(frames.length / 10)));
await baseline(frames.slice(0, Math.ceil(frames.length / 10)));

const subj: number[] = [];
const base: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which path goes first: the machine's load drifts during a run.
  if (r % 2 === 0) {
    base.push(await baseline(frames));
    subj.push(await subject(frames));
  } else {
    subj.push(await subject(frames));
    base.push(await baseline(frames));
  }
  console.log(`  round ${r + 1}: pipeline ${Math.round(subj[r]!)} frames/s, raw appender ${Math.round(base[r]!)} frames/s`);
}
const value = Math.round(median(subj));
const baselineValue = Math.round(median(base));
const rowsPerFrame = frames.reduce((s, f) => {
  const p = f.frame.params as { uuid: number; state: Record<string, unknown> };
  return s + eventRows({ type: 'state', serial: f.ap.serial, at: 0, payload: { uuid: p.uuid, state: p.state } })!.rows.length;
}, 0) / frames.length;
console.log(`  rows per frame ${rowsPerFrame.toFixed(1)} (1 statistics + radios + associations)`);
console.log(`  actor -> pipeline -> DuckDB: ${value} frames/s (median of ${ROUNDS})`);
console.log(`  raw DuckDB appender, same rows: ${baselineValue} frames/s (median of ${ROUNDS})`);
report({ bench: 'ingest', metric: WRITER === 'appender' ? 'state frames/s (appender writer)' : 'state frames/s', value, unit: 'frames/s', baseline: baselineValue, baselineName: 'raw DuckDB appender' });
