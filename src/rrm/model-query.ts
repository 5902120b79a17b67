/**
 * The RRM data model from DuckDB (docs/upstream.md#rrm-data-model): the ingest pipeline stores
 * what APs report (states in `statistics`, scan entries in `wifi_scan_entries`, `capabilities`)
 * and the gateway keeps each device's configuration in `devices`. These queries gather, per
 * device, the latest 10 states and scans, the capabilities and the active configuration, and
 * the pure builder (model/build.ts) turns them into the model. Nothing here depends on where the
 * frames came from, so every kind of link gives the same model.
 */
import { listValue } from '@duckdb/node-api';
import type { Store } from '../store/duckdb.js';
import { buildModel, type DeviceDocuments } from './model/build.js';
import { MODEL_BUFFER_SIZE, type RrmModel } from './model/types.js';
import type { DeviceConfiguration } from './apply-plan.js';

const parse = (text: unknown): unknown => {
  try {
    return JSON.parse(String(text));
  } catch {
    return null;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** serial -> the configuration the device runs (its record), for the serials that have one. */
export async function currentConfigurations(store: Store, serials: readonly string[]): Promise<Map<string, DeviceConfiguration>> {
  const out = new Map<string, DeviceConfiguration>();
  if (serials.length === 0) return out;
  const rows = await store.query('SELECT serial, configuration FROM devices WHERE list_contains($1, serial)', [listValue([...serials])]);
  for (const r of rows) {
    const c = parse(r.configuration);
    if (isObject(c)) out.set(String(r.serial), c as DeviceConfiguration);
  }
  return out;
}

/** Which devices' states and scans to read (default: all of them); capabilities and configurations are always read. */
export interface StoredParts {
  states?: readonly string[];
  scans?: readonly string[];
}

/**
 * The builder's input for `serials`: latest `limit` states and scans per device (stored times
 * are epoch seconds; the model's are ms), capabilities and the active configuration.
 */
export async function deviceDocuments(store: Store, serials: readonly string[], limit = MODEL_BUFFER_SIZE, only: StoredParts = {}): Promise<DeviceDocuments[]> {
  if (serials.length === 0) return [];
  const list = listValue([...serials]);
  const docs = new Map<string, DeviceDocuments>(serials.map((s) => [s, { serial: s, states: [], scans: [], capabilities: null, activeConfig: null }]));
  const stateList = only.states ? listValue([...only.states]) : list;
  const scanList = only.scans ? listValue([...only.scans]) : list;
  // The window ranks ids only; the (large) state documents are read for the chosen rows alone.
  const states = only.states?.length === 0 ? [] : await store.query(
    `SELECT serial, recorded, data FROM statistics WHERE id IN (
       SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY serial ORDER BY recorded DESC, id DESC) AS rn
         FROM statistics WHERE list_contains($1, serial)) WHERE rn <= $2)`,
    [stateList, limit],
  );
  for (const r of states) docs.get(String(r.serial))?.states.push({ recorded: Number(r.recorded) * 1000, state: parse(r.data) });

  // One scan = the entries of one result: same device, time and command (notifications have no
  // command uuid, and are told apart by their time). Only scans with an entry the builder can use
  // (bssid, frequency, channel, signal) are ranked, as the builder skips the others: the newest
  // `limit` scans here are then the newest `limit` the model keeps.
  const scans = only.scans?.length === 0 ? [] : await store.query(
    `WITH scans AS (
       SELECT serial, recorded, source, command_uuid,
              row_number() OVER (PARTITION BY serial ORDER BY recorded DESC, command_uuid) AS rn
       FROM (SELECT DISTINCT serial, recorded, source, command_uuid FROM wifi_scan_entries
             WHERE list_contains($1, serial) AND bssid IS NOT NULL AND frequency IS NOT NULL AND channel IS NOT NULL AND signal IS NOT NULL))
     SELECT e.serial, e.recorded, e.source, e.command_uuid, e.data
     FROM wifi_scan_entries e JOIN scans s
       ON e.serial = s.serial AND e.recorded = s.recorded AND e.source = s.source AND e.command_uuid IS NOT DISTINCT FROM s.command_uuid
     WHERE s.rn <= $2`,
    [scanList, limit],
  );
  const grouped = new Map<string, { serial: string; recorded: number; entries: unknown[] }>();
  for (const r of scans) {
    const key = `${String(r.serial)}\u0000${Number(r.recorded)}\u0000${String(r.source)}\u0000${String(r.command_uuid)}`;
    let g = grouped.get(key);
    if (!g) grouped.set(key, (g = { serial: String(r.serial), recorded: Number(r.recorded) * 1000, entries: [] }));
    g.entries.push(parse(r.data));
  }
  for (const g of grouped.values()) docs.get(g.serial)?.scans.push({ recorded: g.recorded, entries: g.entries });

  for (const r of await store.query('SELECT serial, capabilities FROM capabilities WHERE list_contains($1, serial)', [list])) {
    const d = docs.get(String(r.serial));
    const caps = parse(r.capabilities);
    if (d && isObject(caps)) d.capabilities = caps;
  }
  for (const [serial, config] of await currentConfigurations(store, serials)) docs.get(serial)!.activeConfig = config;
  return [...docs.values()];
}

/** The model of `serials` (the topology's RRM-enabled devices for currentModel, a zone for a run). */
export async function queryModel(store: Store, serials: readonly string[]): Promise<RrmModel> {
  return buildModel(await deviceDocuments(store, serials));
}
