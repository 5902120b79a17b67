/**
 * The tables the ingest pipeline appends to, with their columns in table order (as the DuckDB
 * appender needs them). statistics, health_checks and device_logs come from migration 1 and are
 * read by src/store/device-data-repo.ts; the others from migration 2. Keep in step with
 * src/store/migrations.ts.
 */

/**
 * How a value is appended. `id`: taken from the table's sequence by the sink (the appender
 * cannot evaluate a `nextval` default). Numbers go in as doubles and DuckDB casts them to the
 * column type, which avoids a BigInt per value.
 */
export type ColumnKind = 'id' | 'text' | 'number' | 'bool';

export interface TableSpec {
  name: string;
  /** Sequence feeding the `id` column, when the table has one. */
  sequence?: string;
  columns: readonly (readonly [name: string, kind: ColumnKind])[];
}

const t = (name: string, columns: string, sequence?: string): TableSpec => ({
  name,
  sequence,
  columns: columns.split(/\s+/).filter(Boolean).map((c) => {
    const [col, kind] = c.split(':') as [string, ColumnKind | undefined];
    return [col, kind ?? 'number'] as const;
  }),
});

export const TABLES = {
  statistics: t('statistics', 'id:id serial:text uuid data:text recorded', 'statistics_id'),
  health_checks: t('health_checks', 'id:id serial:text uuid data:text sanity recorded', 'health_checks_id'),
  device_logs: t('device_logs', 'id:id serial:text log:text data:text severity recorded log_type uuid', 'device_logs_id'),
  state_radios: t('state_radios', `serial:text recorded uuid radio phy:text band:text channel channel_width frequency tx_power
    noise chan_util active_ms busy_ms rx_ms tx_ms temperature`),
  state_associations: t('state_associations', `serial:text recorded radio band:text bssid:text ssid:text station:text rssi
    ack_signal rx_rate tx_rate rx_bytes tx_bytes rx_packets tx_packets tx_retries tx_failed connected inactive`),
  wifi_scan_entries: t('wifi_scan_entries', `serial:text recorded source:text command_uuid:text bssid:text ssid:text channel
    frequency signal last_seen tsf capability ht_oper:text vht_oper:text sta_count ch_util data:text`),
  device_events: t('device_events', 'serial:text recorded event_type:text timestamp payload:text'),
  telemetry: t('telemetry', 'serial:text recorded_ms adhoc:bool data:text'),
} as const satisfies Record<string, TableSpec>;

export type TableName = keyof typeof TABLES;
export const APPEND_TABLES = Object.keys(TABLES) as TableName[];

/** A value as the sink appends it; `null` for an absent optional field; a Uint8Array is UTF-8 text. */
export type Cell = string | number | boolean | null | Uint8Array;

/**
 * One row for one table, values in column order. For tables with an `id` column the id is
 * left out here (the sink prepends it), so `values` has one cell fewer than `columns`.
 */
export interface Row {
  table: TableName;
  values: Cell[];
}

/** Capabilities are upserted (the first update is kept), which an appender cannot do. */
export interface CapabilitiesUpsert {
  serial: string;
  capabilities: string;
  compatible: string;
  at: number;
}

/** What one fleet event becomes: rows to append and at most one capabilities upsert. */
export interface RowSet {
  rows: Row[];
  capabilities?: CapabilitiesUpsert;
  /** The event's state document had odd parts that were skipped (counted in the metrics). */
  odd?: string;
}
