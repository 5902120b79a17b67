/**
 * Versioned schema changes, applied in order at start inside a transaction each.
 * Append new versions; never edit one that has shipped. Timestamps are epoch seconds
 * (the gateway API's unit) unless a column name ends in `_ms`.
 */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

/** Statements that replace `table` by a copy with `columns` (its rows, in order; its indexes gone). */
function rebuild(table: string, columns: string, names: string): string[] {
  return [
    `CREATE TABLE ${table}_rebuilt (${columns})`,
    `INSERT INTO ${table}_rebuilt (${names}) SELECT ${names} FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${table}_rebuilt RENAME TO ${table}`,
  ];
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'gateway records',
    statements: [
      `CREATE TABLE devices (
        serial VARCHAR PRIMARY KEY, device_type VARCHAR NOT NULL, mac_address VARCHAR NOT NULL,
        manufacturer VARCHAR NOT NULL, uuid BIGINT NOT NULL, configuration VARCHAR NOT NULL,
        notes VARCHAR NOT NULL, created BIGINT NOT NULL, last_configuration_change BIGINT NOT NULL,
        last_configuration_download BIGINT NOT NULL, firmware VARCHAR NOT NULL, device_password VARCHAR NOT NULL,
        owner VARCHAR NOT NULL, location VARCHAR NOT NULL, venue VARCHAR NOT NULL, subscriber VARCHAR NOT NULL,
        entity VARCHAR NOT NULL, modified BIGINT NOT NULL, locale VARCHAR NOT NULL, compatible VARCHAR NOT NULL,
        last_fw_update BIGINT NOT NULL, last_recorded_contact BIGINT NOT NULL, simulated BOOLEAN NOT NULL,
        connect_reason VARCHAR NOT NULL)`,
      `CREATE TABLE commands (
        uuid VARCHAR PRIMARY KEY, serial VARCHAR NOT NULL, command VARCHAR NOT NULL, status VARCHAR NOT NULL,
        submitted_by VARCHAR NOT NULL, details VARCHAR NOT NULL, results VARCHAR NOT NULL, error_text VARCHAR NOT NULL,
        error_code BIGINT NOT NULL, submitted BIGINT NOT NULL, executed BIGINT NOT NULL, completed BIGINT NOT NULL,
        run_at BIGINT NOT NULL, custom BIGINT NOT NULL, waiting_for_file BIGINT NOT NULL, attach_file BIGINT NOT NULL,
        attach_size BIGINT NOT NULL, attach_type VARCHAR NOT NULL, execution_time DOUBLE NOT NULL)`,
      `CREATE INDEX commands_serial_submitted ON commands (serial, submitted)`,
      `CREATE TABLE default_configs (
        name VARCHAR PRIMARY KEY, model_ids VARCHAR NOT NULL, description VARCHAR NOT NULL,
        configuration VARCHAR NOT NULL, platform VARCHAR NOT NULL, created BIGINT NOT NULL, last_modified BIGINT NOT NULL)`,
      `CREATE TABLE blacklist (serial VARCHAR PRIMARY KEY, reason VARCHAR NOT NULL, author VARCHAR NOT NULL, created BIGINT NOT NULL)`,
      `CREATE SEQUENCE device_logs_id`,
      `CREATE TABLE device_logs (
        id BIGINT PRIMARY KEY DEFAULT nextval('device_logs_id'), serial VARCHAR NOT NULL, log VARCHAR NOT NULL,
        data VARCHAR NOT NULL, severity BIGINT NOT NULL, recorded BIGINT NOT NULL, log_type BIGINT NOT NULL, uuid BIGINT NOT NULL)`,
      `CREATE INDEX device_logs_serial_recorded ON device_logs (serial, recorded)`,
      `CREATE SEQUENCE health_checks_id`,
      `CREATE TABLE health_checks (
        id BIGINT PRIMARY KEY DEFAULT nextval('health_checks_id'), serial VARCHAR NOT NULL, uuid BIGINT NOT NULL,
        data VARCHAR NOT NULL, sanity BIGINT NOT NULL, recorded BIGINT NOT NULL)`,
      `CREATE INDEX health_checks_serial_recorded ON health_checks (serial, recorded)`,
      `CREATE SEQUENCE statistics_id`,
      `CREATE TABLE statistics (
        id BIGINT PRIMARY KEY DEFAULT nextval('statistics_id'), serial VARCHAR NOT NULL, uuid BIGINT NOT NULL,
        data VARCHAR NOT NULL, recorded BIGINT NOT NULL)`,
      `CREATE INDEX statistics_serial_recorded ON statistics (serial, recorded)`,
      `CREATE TABLE capabilities (
        serial VARCHAR PRIMARY KEY, capabilities VARCHAR NOT NULL, compatible VARCHAR NOT NULL,
        first_update BIGINT NOT NULL, last_update BIGINT NOT NULL)`,
      `CREATE TABLE files (
        uuid VARCHAR PRIMARY KEY, serial VARCHAR NOT NULL, type VARCHAR NOT NULL, created BIGINT NOT NULL, content BLOB NOT NULL)`,
      `CREATE TABLE radius_proxy_config (id INTEGER PRIMARY KEY, config VARCHAR NOT NULL, modified BIGINT NOT NULL)`,
    ],
  },
  {
    // Ingest pipelines (src/pipelines, docs/pipelines.md): rows derived from what APs report.
    // No indexes and no id sequences: these tables only grow through DuckDB appenders, and
    // DuckDB's zone maps serve (serial, recorded) range scans without an ART index to maintain.
    version: 2,
    name: 'ingest tables',
    statements: [
      `CREATE TABLE state_radios (
        serial VARCHAR NOT NULL, recorded BIGINT NOT NULL, uuid BIGINT NOT NULL, radio INTEGER NOT NULL,
        phy VARCHAR, band VARCHAR, channel INTEGER, channel_width INTEGER, frequency INTEGER, tx_power DOUBLE,
        noise DOUBLE, chan_util DOUBLE, active_ms BIGINT, busy_ms BIGINT, rx_ms BIGINT, tx_ms BIGINT, temperature DOUBLE)`,
      `CREATE TABLE state_associations (
        serial VARCHAR NOT NULL, recorded BIGINT NOT NULL, radio INTEGER, band VARCHAR, bssid VARCHAR, ssid VARCHAR,
        station VARCHAR NOT NULL, rssi DOUBLE, ack_signal DOUBLE, rx_rate BIGINT, tx_rate BIGINT,
        rx_bytes BIGINT, tx_bytes BIGINT, rx_packets BIGINT, tx_packets BIGINT, tx_retries BIGINT, tx_failed BIGINT,
        connected BIGINT, inactive BIGINT)`,
      `CREATE TABLE wifi_scan_entries (
        serial VARCHAR NOT NULL, recorded BIGINT NOT NULL, source VARCHAR NOT NULL, command_uuid VARCHAR,
        bssid VARCHAR, ssid VARCHAR, channel INTEGER, frequency INTEGER, signal DOUBLE, last_seen BIGINT, tsf DOUBLE,
        capability INTEGER, ht_oper VARCHAR, vht_oper VARCHAR, sta_count INTEGER, ch_util INTEGER, data VARCHAR NOT NULL)`,
      `CREATE TABLE device_events (
        serial VARCHAR NOT NULL, recorded BIGINT NOT NULL, event_type VARCHAR NOT NULL, timestamp BIGINT NOT NULL,
        payload VARCHAR NOT NULL)`,
      `CREATE TABLE telemetry (
        serial VARCHAR NOT NULL, recorded_ms BIGINT NOT NULL, adhoc BOOLEAN NOT NULL, data VARCHAR NOT NULL)`,
    ],
  },
  {
    // RRM service (src/rrm/store.ts, docs/rrm.md): the topology and the layered configuration as
    // one JSON document each (they are small and always read and written whole), and the run
    // history, which records every run's seed so a run can be reproduced.
    version: 3,
    name: 'rrm documents and runs',
    statements: [
      `CREATE TABLE rrm_documents (name VARCHAR PRIMARY KEY, document VARCHAR NOT NULL, modified BIGINT NOT NULL)`,
      `CREATE TABLE rrm_runs (
        id VARCHAR PRIMARY KEY, zone VARCHAR NOT NULL, algorithm VARCHAR NOT NULL, mode VARCHAR NOT NULL, seed VARCHAR NOT NULL,
        args VARCHAR NOT NULL, dry_run BOOLEAN NOT NULL, source VARCHAR NOT NULL, plan VARCHAR NOT NULL, pushed VARCHAR NOT NULL,
        created_ms BIGINT NOT NULL)`,
    ],
  },
  {
    // Records the OpenWiFi clients use beyond the API documents (docs/wire-profiles.md): the
    // command fields upstream records carry, stored scripts a `script` command runs by id, and
    // the default firmware per device type.
    version: 4,
    name: 'command fields, scripts, default firmwares',
    statements: [
      `ALTER TABLE commands ADD COLUMN last_try BIGINT DEFAULT 0`,
      `ALTER TABLE commands ADD COLUMN deferred BOOLEAN DEFAULT false`,
      `CREATE TABLE scripts (
        id VARCHAR PRIMARY KEY, name VARCHAR NOT NULL, description VARCHAR NOT NULL, uri VARCHAR NOT NULL,
        content VARCHAR NOT NULL, version VARCHAR NOT NULL, type VARCHAR NOT NULL, created BIGINT NOT NULL,
        modified BIGINT NOT NULL, author VARCHAR NOT NULL, restricted VARCHAR NOT NULL, deferred BOOLEAN NOT NULL,
        timeout BIGINT NOT NULL, default_upload_uri VARCHAR NOT NULL)`,
      `CREATE TABLE default_firmwares (
        device_type VARCHAR PRIMARY KEY, description VARCHAR NOT NULL, uri VARCHAR NOT NULL, revision VARCHAR NOT NULL,
        image_creation_date BIGINT NOT NULL, created BIGINT NOT NULL, last_modified BIGINT NOT NULL)`,
    ],
  },
  {
    // The ingest tables of migration 1 without their ART indexes (the `id` primary keys and the
    // `(serial, recorded)` indexes): no query uses them (DuckDB reads these tables by zone maps;
    // EXPLAIN shows no index scan), their ids come from sequences, and every checkpoint wrote
    // each index out whole, so a checkpoint cost more as a table grew (seconds at ~80,000
    // statistics rows, against tens of ms without), and a restart rebuilt them from the WAL.
    // DuckDB cannot drop a primary key: each table is copied into one without, once.
    version: 5,
    name: 'ingest tables without indexes',
    statements: [
      ...rebuild('statistics', `id BIGINT NOT NULL DEFAULT nextval('statistics_id'), serial VARCHAR NOT NULL, uuid BIGINT NOT NULL,
        data VARCHAR NOT NULL, recorded BIGINT NOT NULL`, 'id, serial, uuid, data, recorded'),
      ...rebuild('health_checks', `id BIGINT NOT NULL DEFAULT nextval('health_checks_id'), serial VARCHAR NOT NULL, uuid BIGINT NOT NULL,
        data VARCHAR NOT NULL, sanity BIGINT NOT NULL, recorded BIGINT NOT NULL`, 'id, serial, uuid, data, sanity, recorded'),
      ...rebuild('device_logs', `id BIGINT NOT NULL DEFAULT nextval('device_logs_id'), serial VARCHAR NOT NULL, log VARCHAR NOT NULL,
        data VARCHAR NOT NULL, severity BIGINT NOT NULL, recorded BIGINT NOT NULL, log_type BIGINT NOT NULL, uuid BIGINT NOT NULL`,
      'id, serial, log, data, severity, recorded, log_type, uuid'),
    ],
  },
  {
    // RRM runs keep their scores: the predicted score of the plan before and after,
    // whether it was applied, and the effect measured from the first scans after the apply.
    version: 6,
    name: 'rrm run scores',
    statements: [
      `ALTER TABLE rrm_runs ADD COLUMN score VARCHAR`,
      `ALTER TABLE rrm_runs ADD COLUMN applied BOOLEAN DEFAULT false`,
      `ALTER TABLE rrm_runs ADD COLUMN serials VARCHAR`,
      `ALTER TABLE rrm_runs ADD COLUMN measured VARCHAR`,
      `ALTER TABLE rrm_runs ADD COLUMN measured_ms BIGINT`,
    ],
  },
];
