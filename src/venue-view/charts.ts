/**
 * Series over time for the venue view's charts, from what ingest stored in DuckDB: channel
 * utilisation and clients per AP (mean and worst over the zone's APs, or one AP), and the RRM
 * runs as markers. Time is the twin's (epoch seconds), bucketed (a minute at least) so a range
 * gives at most MAX_POINTS points whatever its length.
 */
import { listValue } from '@duckdb/node-api';
import type { Store } from '../store/duckdb.js';
import type { ScorePoint } from './score-series.js';

export const MAX_POINTS = 240;

export interface SeriesPoint { t: number; mean: number; max: number }
export interface RunMarker { t: number; zone: string; algorithm: string; mode: string; dryRun: boolean }

export interface ChartSeries {
  from: number;
  to: number;
  /** Bucket length in seconds. */
  bucket: number;
  chanUtil: SeriesPoint[];
  clients: SeriesPoint[];
  runs: RunMarker[];
  /** The zone's CCI score per RRM run (predicted before/after, measured), when a zone is asked for. */
  score?: ScorePoint[];
}

export interface ChartQuery { serials: readonly string[]; band: string; from: number; to: number }

/** APs report a state about once a minute: a shorter bucket would hold only some of them. */
export const MIN_BUCKET_S = 60;

export function bucketOf(from: number, to: number): number {
  return Math.max(MIN_BUCKET_S, Math.ceil((to - from) / MAX_POINTS));
}

const point = (r: Record<string, unknown>): SeriesPoint => ({ t: Number(r.t), mean: Math.round(Number(r.mean) * 10) / 10, max: Number(r.max) });

export async function chartSeries(store: Store, q: ChartQuery, zone?: string): Promise<Omit<ChartSeries, 'score'>> {
  const bucket = bucketOf(q.from, q.to);
  // No AP (none known yet, or all deleted): nothing to chart, and DuckDB cannot type an empty list parameter.
  const serials = listValue([...q.serials]);
  const none = q.serials.length === 0;
  const chanUtil = none ? [] : await store.query(
    `SELECT (recorded // $1) * $1 AS t, avg(chan_util) AS mean, max(chan_util) AS max FROM state_radios
     WHERE recorded BETWEEN $2 AND $3 AND band = $4 AND chan_util IS NOT NULL AND list_contains($5, serial)
     GROUP BY t ORDER BY t`,
    [bucket, q.from, q.to, q.band, serials],
  );
  // Clients per AP: associations of the band per state, states with none counted as 0.
  const clients = none ? [] : await store.query(
    `WITH states AS (
       SELECT DISTINCT serial, recorded FROM state_radios
       WHERE recorded BETWEEN $2 AND $3 AND band = $4 AND list_contains($5, serial)),
     counts AS (
       SELECT s.serial, s.recorded, count(a.station) AS n FROM states s
       LEFT JOIN state_associations a ON a.serial = s.serial AND a.recorded = s.recorded AND a.band = $4
       GROUP BY s.serial, s.recorded)
     SELECT (recorded // $1) * $1 AS t, avg(n) AS mean, max(n) AS max FROM counts GROUP BY t ORDER BY t`,
    [bucket, q.from, q.to, q.band, serials],
  );
  const runs = await store.query(
    `SELECT created_ms, zone, algorithm, mode, dry_run FROM rrm_runs
     WHERE created_ms BETWEEN $1 AND $2 ${zone !== undefined ? 'AND zone = $3' : ''} ORDER BY created_ms`,
    zone !== undefined ? [q.from * 1000, q.to * 1000 + 999, zone] : [q.from * 1000, q.to * 1000 + 999],
  );
  return {
    from: q.from, to: q.to, bucket,
    chanUtil: chanUtil.map(point),
    clients: clients.map(point),
    runs: runs.map((r) => ({ t: Math.floor(Number(r.created_ms) / 1000), zone: String(r.zone), algorithm: String(r.algorithm), mode: String(r.mode), dryRun: Boolean(r.dry_run) })),
  };
}
