import { filter, map, type Observable, type SchedulerLike } from 'rxjs';
import type { FleetEvent } from '../../actors/fleet.js';
import { isObject } from '../protocol/frame.js';
import type { Store } from '../store/duckdb.js';
import { runBatches } from './batch.js';
import { DuckDbSink, type PipelineLogger, type RetryPolicy } from './duckdb-sink.js';
import { IngestCounters, type IngestMetrics } from './metrics.js';
import { fin, int32, stateRows, str } from './state-rows.js';
import type { OpenTableWriter } from './table-writer.js';
import type { Row, RowSet, TableName } from './tables.js';

/**
 * Fleet events -> rows (docs/upstream.md#what-each-notification-does says what the gateway
 * stores per event) -> batches -> DuckDB inserts. Pure mapping here; batching in batch.ts, writing in
 * duckdb-sink.ts. Stored times are epoch seconds of the event's clock time (`telemetry`: ms).
 */

const sec = (ms: number): number => Math.floor(ms / 1000);
const json = (v: unknown): string => JSON.stringify(v ?? {}) ?? '{}';
// Module-level, not inside eventRows: a closure made per event also costs a name definition
// per event where the code runs through tsx (esbuild's keepNames).
const row = (table: TableName, values: Row['values']): Row => ({ table, values });

/** What one fleet event becomes in the store; undefined for events that store nothing. */
export function eventRows(e: FleetEvent): RowSet | undefined {
  const recorded = sec(e.at);
  switch (e.type) {
    case 'state': {
      const { uuid, state, stateText } = e.payload;
      // The text the link parsed the state from (its bytes, from a recording), when it kept it.
      const text = stateText ?? json(state);
      const derived = stateRows(e.serial, recorded, uuid, state);
      // The statistics row first: the document itself is stored even when its parts are odd.
      derived.rows.unshift(row('statistics', [e.serial, uuid, text, recorded]));
      return derived;
    }
    case 'healthcheck': {
      const { uuid, sanity, data } = e.payload;
      return { rows: [row('health_checks', [e.serial, uuid, json(data), sanity, recorded])] };
    }
    case 'log': {
      const p = e.payload;
      return { rows: [row('device_logs', [e.serial, p.log, json(p.data), p.severity, p.recorded, p.logType, p.uuid])] };
    }
    case 'crashlog': {
      // crashlog/recovery, as the gateway stores them: each line followed by CRLF, severity 0, log type 1; recovery adds the firmware, uuid 0.
      const p = e.payload;
      const lines = p.loglines.map((l) => `${l}\r\n`).join('');
      const text = p.recovery ? `Firmware: ${p.firmware ?? ''}\r\n${lines}` : lines;
      return { rows: [row('device_logs', [e.serial, text, '{}', 0, recorded, 1, p.recovery ? 0 : p.uuid])] };
    }
    case 'capabilities': {
      const caps = e.payload.capabilities;
      const compatible = typeof caps.compatible === 'string' && caps.compatible ? caps.compatible : typeof caps.model === 'string' ? caps.model : '';
      return { rows: [], capabilities: { serial: e.serial, capabilities: json(caps), compatible, at: recorded } };
    }
    case 'wifiscan-result': {
      const p = e.payload;
      let odd: string | undefined;
      const rows: Row[] = [];
      for (const entry of p.entries) {
        if (!isObject(entry)) {
          odd = 'a scan entry is not an object';
          continue;
        }
        rows.push(row('wifi_scan_entries', [
          e.serial, recorded, p.source, p.commandUuid ?? null, str(entry.bssid), str(entry.ssid), int32(entry.channel), int32(entry.frequency),
          fin(entry.signal), fin(entry.last_seen), fin(entry.tsf), int32(entry.capability), str(entry.ht_oper), str(entry.vht_oper),
          int32(entry.sta_count), int32(entry.ch_util), json(entry),
        ]));
      }
      return { rows, odd };
    }
    case 'event': {
      const p = e.payload;
      return { rows: [row('device_events', [e.serial, recorded, p.eventType, p.timestamp, json(p.payload)])] };
    }
    case 'alarm':
      return { rows: [row('device_events', [e.serial, recorded, 'alarm', recorded, json(e.payload.data)])] };
    case 'telemetry':
      return { rows: [row('telemetry', [e.serial, e.at, e.payload.adhoc, json(e.payload.data)])] };
    default:
      return undefined;
  }
}

/** Largest write made of batches that queued up while DuckDB committed the previous one. */
const COALESCE_ROWS = 20_000;

const weightOf = (s: RowSet): number => s.rows.length + (s.capabilities ? 1 : 0);

export interface IngestOptions {
  /** The fleet's `events$`. Its completion (fleet.stopAll) flushes the pipeline too. */
  events$: Observable<FleetEvent>;
  store: Store;
  /** Drives the time limit and retry waits: `clockScheduler(clock)` with the process clock. */
  scheduler: SchedulerLike;
  logger: PipelineLogger;
  /** Rows per batch (default 2,000). */
  maxRows?: number;
  /** Longest a received row waits for its batch (default 1,000 ms). */
  maxDelayMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * Where retry waits run (default `scheduler`). A `--speed max` run whose virtual clock stands
   * still once the input ends should pass a wall-time scheduler here, or a retry during the
   * final flush would wait for virtual time that never comes.
   */
  retryScheduler?: SchedulerLike;
  /**
   * Where each table's rows go (table-writer.ts): chunkWriters (the default) or appenderWriters
   * (the reference); tests wrap one to inject failures.
   */
  openWriter?: OpenTableWriter;
  /**
   * Rows held in memory while the disk is full (default MAX_HELD_ROWS); past it new rows are
   * dropped and counted (`rowsDropped`) until a write succeeds again.
   */
  maxHeldRows?: number;
}

/** Rows held while the disk is full: ~100-300 MB of typical state rows. */
export const MAX_HELD_ROWS = 200_000;

export interface Ingest {
  metrics(): IngestMetrics;
  /** Resolves once everything received so far is in DuckDB. */
  flush(): Promise<void>;
  /** Resolves once at most `rows` received rows wait to be written (backpressure for a fast producer). */
  backlogAtMost(rows: number): Promise<void>;
  /** Stops taking events, writes everything received, closes the table writers. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the ingest pipeline: subscribes to `events$` at once (nothing emitted after this call
 * is missed, even while the inserters open) and returns its handle. Shutdown order: close the APIs, stop the fleet, `await ingest.close()`, then close the store.
 */
export function startIngest(opts: IngestOptions): Ingest {
  const { logger, scheduler } = opts;
  const counters = new IngestCounters();
  const sink = new DuckDbSink({
    store: opts.store, scheduler, retryScheduler: opts.retryScheduler, logger, counters, retry: opts.retry, openWriter: opts.openWriter,
  });
  const ready = sink.open().catch((err: unknown) => {
    // Not fatal: each write opens what is missing and retries.
    counters.failures++;
    logger.error({ err }, 'ingest: opening the DuckDB table writers failed; writes will retry');
  });

  let backlog = (): number => 0;
  const rows$ = opts.events$.pipe(
    map(eventRowsCounted(counters, logger)),
    filter(roomWhileFull(counters, logger, opts.maxHeldRows ?? MAX_HELD_ROWS, () => backlog())),
  );

  const run = runBatches(rows$, async (batch) => {
    await ready;
    await sink.write(batch);
  }, {
    scheduler,
    maxRows: opts.maxRows ?? 2000,
    maxDelayMs: opts.maxDelayMs ?? 1000,
    // Batches that waited behind a commit go out together: one commit per table for all of them.
    coalesceRows: Math.max(opts.maxRows ?? 2000, COALESCE_ROWS),
    weight: weightOf,
    onError: (err, batch) => logger.error({ err, sets: batch?.length }, 'ingest: pipeline error'),
  });
  backlog = () => run.backlog;

  let closing: Promise<void> | undefined;
  return {
    metrics: () => counters.snapshot(run.backlog),
    flush: () => run.flush(),
    backlogAtMost: (rows) => run.backlogAtMost(rows),
    close: () => (closing ??= (async () => {
      await run.stop();
      await ready;
      await sink.close();
      logger.info({ rows: counters.rowsWritten, batches: counters.batchesWritten }, 'ingest: flushed and closed');
    })()),
  };
}

/** An event's rows, counting it; odd parts warned once per serial and kind, an unmappable event logged and skipped. */
function eventRowsCounted(counters: IngestCounters, logger: PipelineLogger): (e: FleetEvent) => RowSet | undefined {
  const oddSeen = new Set<string>();
  return (e) => {
    counters.eventsReceived++;
    try {
      const set = eventRows(e);
      if (set?.odd) {
        counters.oddDocuments++;
        // A firmware quirk repeats with every report: warn once per serial and kind, count always.
        const key = `${e.serial} ${set.odd}`;
        if (!oddSeen.has(key) && oddSeen.size < 10_000) {
          oddSeen.add(key);
          logger.warn({ serial: e.serial, type: e.type, odd: set.odd }, 'ingest: odd parts of a document were skipped');
        }
      }
      return set;
    } catch (err) {
      counters.unmappable++;
      logger.error({ serial: e.serial, type: e.type, err }, 'ingest: an event could not be turned into rows');
      return undefined;
    }
  };
}

/**
 * Keeps a non-empty row set unless the disk is full and it does not fit beside the `maxHeld`
 * rows held for it (those are counted as dropped, logged once per stretch).
 */
function roomWhileFull(
  counters: IngestCounters, logger: PipelineLogger, maxHeld: number, backlog: () => number,
): (s: RowSet | undefined) => s is RowSet {
  let droppingSince = -1;
  const room = (s: RowSet): boolean => {
    if (!counters.diskFull) {
      droppingSince = -1;
      return true;
    }
    if (backlog() + weightOf(s) <= maxHeld) return true;
    counters.rowsDropped += weightOf(s);
    if (droppingSince < 0) {
      droppingSince = counters.rowsDropped;
      logger.error({ maxHeldRows: maxHeld }, 'ingest: the disk is still full and the held rows reached their bound; new rows are dropped (counted) until it has room');
    }
    return false;
  };
  return (s): s is RowSet => s !== undefined && weightOf(s) > 0 && room(s);
}
