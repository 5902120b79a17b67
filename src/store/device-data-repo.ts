import type { Params, Store } from './duckdb.js';
import type { DeviceCapabilities, DeviceLog, HealthCheck, StatisticsRecord } from './records.js';

/** Date range and paging shared by logs, health checks and statistics (epoch seconds, inclusive). */
export interface RangeQuery {
  startDate?: number;
  endDate?: number;
  /** 1-based; 0 or absent reads as 1. */
  offset?: number;
  /** Absent: all. */
  limit?: number;
  /** Newest first (recorded desc) instead of oldest first. */
  newest?: boolean;
}

/**
 * Log kinds of a query. 0-2 are the spec's (DELETE logs "0 any kind, 1 normal logs, 2 crash
 * logs"; the same for GET); a reboot log is not a crash, so it counts as normal there. 3 and 4
 * select one stored kind each, for upstream's meaning of logType (0 normal only, 2 reboot logs
 * only), which the openwifi wire maps to them. Stored `log_type` keeps the device protocol's
 * values: 0 normal, 1 crash/recovery, 2 reboot log.
 */
export type LogKind = 0 | 1 | 2 | 3 | 4;
const LOG_KIND_SQL: Record<LogKind, string> = { 0: '', 1: 'log_type <> 1', 2: 'log_type = 1', 3: 'log_type = 0', 4: 'log_type = 2' };

export interface LogQuery extends RangeQuery {
  logType?: LogKind;
}

/** A row to store; `serial` is the normalised serial. */
export type NewLog = DeviceLog & { serial: string };
export type NewHealthCheck = HealthCheck & { serial: string };
export type NewStatistics = Omit<StatisticsRecord, 'serialNumber'> & { serial: string };

class Where {
  readonly terms: string[] = [];
  readonly params: Params = [];
  add(term: string, ...values: (string | number)[]): this {
    let t = term;
    for (const v of values) {
      this.params.push(v);
      t = t.replace('?', `$${this.params.length}`);
    }
    this.terms.push(t);
    return this;
  }
  range(q: Pick<RangeQuery, 'startDate' | 'endDate'>): this {
    if (q.startDate !== undefined) this.add('recorded >= ?', q.startDate);
    if (q.endDate !== undefined) this.add('recorded <= ?', q.endDate);
    return this;
  }
  get sql(): string {
    return this.terms.length ? ` WHERE ${this.terms.join(' AND ')}` : '';
  }
  /** ORDER BY recorded (then insertion order), LIMIT/OFFSET as parameters. */
  page(q: RangeQuery): string {
    const dir = q.newest ? 'DESC' : 'ASC';
    this.params.push(q.limit ?? null, Math.max(1, q.offset ?? 1) - 1);
    const n = this.params.length;
    return `${this.sql} ORDER BY recorded ${dir}, id ${dir} LIMIT $${n - 1} OFFSET $${n}`;
  }
}

const LOG_COLS = 'log, recorded, severity, data, log_type AS "logType", uuid AS "UUID"';
const HC_COLS = 'uuid AS "UUID", sanity, data, recorded';
const STATS_COLS = 'serial AS "serialNumber", recorded, uuid AS "UUID", data';

/**
 * Per-device records the APs report: logs, health checks, statistics (state blocks) and
 * capabilities. The ingest pipelines may append to the same tables with DuckDB appenders
 * (`id` columns default to their sequences); these methods are the parameterised SQL path.
 */
export class DeviceDataRepo {
  constructor(private readonly store: Store) {}

  // --- writes -------------------------------------------------------------------------------

  async insertLogs(rows: readonly NewLog[]): Promise<void> {
    await this.insertMany('device_logs', ['serial', 'log', 'data', 'severity', 'recorded', 'log_type', 'uuid'], rows,
      (r) => [r.serial, r.log, r.data, r.severity, r.recorded, r.logType, r.UUID]);
  }

  async insertHealthChecks(rows: readonly NewHealthCheck[]): Promise<void> {
    await this.insertMany('health_checks', ['serial', 'uuid', 'data', 'sanity', 'recorded'], rows,
      (r) => [r.serial, r.UUID, r.data, r.sanity, r.recorded]);
  }

  async insertStatistics(rows: readonly NewStatistics[]): Promise<void> {
    await this.insertMany('statistics', ['serial', 'uuid', 'data', 'recorded'], rows,
      (r) => [r.serial, r.UUID, r.data, r.recorded]);
  }

  /**
   * Stores the capabilities of a connect, keeping `firstUpdate` of an earlier row (upstream
   * upsert). `compatible` defaults to the object's `compatible`, else its `model`, as the gateway does at connect.
   */
  async upsertCapabilities(serial: string, capabilities: string, now: number, compatible?: string): Promise<void> {
    const model = compatible || compatibleOf(capabilities);
    await this.store.run(
      `INSERT INTO capabilities (serial, capabilities, compatible, first_update, last_update) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (serial) DO UPDATE SET capabilities = excluded.capabilities, compatible = excluded.compatible, last_update = excluded.last_update`,
      [serial, capabilities, model, now],
    );
  }

  /** Rows in chunks of one multi-row INSERT each, all in one transaction. */
  private async insertMany<T>(table: string, columns: string[], rows: readonly T[], values: (r: T) => (string | number)[]): Promise<void> {
    if (rows.length === 0) return;
    const chunk = Math.max(1, Math.floor(1000 / columns.length));
    await this.store.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += chunk) {
        const part = rows.slice(i, i + chunk);
        const tuples = part.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
        await tx.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, part.flatMap(values));
      }
    });
  }

  // --- reads --------------------------------------------------------------------------------

  async logs(serial: string, q: LogQuery = {}): Promise<DeviceLog[]> {
    const w = new Where().add('serial = ?', serial).range(q);
    if (q.logType) w.add(LOG_KIND_SQL[q.logType]);
    return this.store.query<DeviceLog>(`SELECT ${LOG_COLS} FROM device_logs${w.page(q)}`, w.params);
  }

  async healthChecks(serial: string, q: RangeQuery = {}): Promise<HealthCheck[]> {
    const w = new Where().add('serial = ?', serial).range(q);
    return this.store.query<HealthCheck>(`SELECT ${HC_COLS} FROM health_checks${w.page(q)}`, w.params);
  }

  async lastHealthCheck(serial: string): Promise<HealthCheck | undefined> {
    return (await this.healthChecks(serial, { newest: true, limit: 1 }))[0];
  }

  async statistics(serial: string, q: RangeQuery = {}): Promise<StatisticsRecord[]> {
    const w = new Where().add('serial = ?', serial).range(q);
    return this.store.query<StatisticsRecord>(`SELECT ${STATS_COLS} FROM statistics${w.page(q)}`, w.params);
  }

  /** How many statistics records of the device fall in the date range. */
  async countStatistics(serial: string, q: Pick<RangeQuery, 'startDate' | 'endDate'> = {}): Promise<number> {
    const w = new Where().add('serial = ?', serial).range(q);
    const rows = await this.store.query<{ n: number }>(`SELECT count(*) AS n FROM statistics${w.sql}`, w.params);
    return Number(rows[0]?.n ?? 0);
  }

  async lastStatistics(serial: string): Promise<StatisticsRecord | undefined> {
    return (await this.statistics(serial, { newest: true, limit: 1 }))[0];
  }

  async capabilities(serial: string): Promise<DeviceCapabilities | undefined> {
    const rows = await this.store.query<DeviceCapabilities>(
      'SELECT serial AS "serialNumber", capabilities, last_update AS "lastUpdate", first_update AS "firstUpdate" FROM capabilities WHERE serial = $1',
      [serial],
    );
    return rows[0];
  }

  /** The latest capabilities per `compatible` (GET /capabilities), sorted by compatible. */
  async deviceTypes(): Promise<{ deviceType: string; capabilities: string }[]> {
    return this.store.query<{ deviceType: string; capabilities: string }>(
      `SELECT compatible AS "deviceType", arg_max(capabilities, last_update) AS capabilities
       FROM capabilities WHERE compatible <> '' GROUP BY compatible ORDER BY compatible`,
    );
  }

  // --- deletes (each returns how many rows went) ---------------------------------------------

  deleteLogs(serial: string, q: Pick<LogQuery, 'startDate' | 'endDate' | 'logType'> = {}): Promise<number> {
    const w = new Where().add('serial = ?', serial).range(q);
    if (q.logType) w.add(LOG_KIND_SQL[q.logType]);
    return this.store.run(`DELETE FROM device_logs${w.sql}`, w.params);
  }

  deleteHealthChecks(serial: string, q: Pick<RangeQuery, 'startDate' | 'endDate'> = {}): Promise<number> {
    const w = new Where().add('serial = ?', serial).range(q);
    return this.store.run(`DELETE FROM health_checks${w.sql}`, w.params);
  }

  deleteStatistics(serial: string, q: Pick<RangeQuery, 'startDate' | 'endDate'> = {}): Promise<number> {
    const w = new Where().add('serial = ?', serial).range(q);
    return this.store.run(`DELETE FROM statistics${w.sql}`, w.params);
  }

  deleteCapabilities(serial: string): Promise<number> {
    return this.store.run('DELETE FROM capabilities WHERE serial = $1', [serial]);
  }
}

function compatibleOf(capabilities: string): string {
  try {
    const c = JSON.parse(capabilities) as { compatible?: unknown; model?: unknown };
    if (typeof c.compatible === 'string' && c.compatible) return c.compatible;
    return typeof c.model === 'string' ? c.model : '';
  } catch {
    return '';
  }
}
