/**
 * Who hears whom, for venues without positions (APs that are not simulated): each AP's latest scan,
 * its entries named by the AP that serves the BSSID (from the states' BSSIDs), one edge per pair
 * of APs at the stronger of the two directions. BSSIDs no managed AP serves are unmanaged
 * neighbours. The page lays the graph out by force (stronger signal, shorter link).
 */
import { listValue } from '@duckdb/node-api';
import type { Store } from '../store/duckdb.js';

export interface HeardEntry { serial: string; bssid: string; ssid: string; channel: number; signal: number }

export interface TopologyEdge { a: string; b: string; signal: number }
export interface UnmanagedNode { bssid: string; ssid: string; channel: number; heardBy: { serial: string; signal: number }[] }

export interface Topology {
  edges: TopologyEdge[];
  unmanaged: UnmanagedNode[];
  /** Epoch seconds of the newest scan read, per AP. */
  scannedAt: Record<string, number>;
}

/** The entries of each AP's newest scan (one scan: same device, time and command). */
export async function latestScanEntries(store: Store, serials: readonly string[]): Promise<{ entries: HeardEntry[]; scannedAt: Record<string, number> }> {
  if (serials.length === 0) return { entries: [], scannedAt: {} };
  const rows = await store.query(
    `WITH latest AS (
       SELECT serial, max(recorded) AS recorded FROM wifi_scan_entries
       WHERE list_contains($1, serial) AND bssid IS NOT NULL AND signal IS NOT NULL GROUP BY serial)
     SELECT e.serial, e.recorded, lower(e.bssid) AS bssid, coalesce(e.ssid, '') AS ssid, coalesce(e.channel, 0) AS channel, e.signal
     FROM wifi_scan_entries e JOIN latest l ON e.serial = l.serial AND e.recorded = l.recorded
     WHERE e.bssid IS NOT NULL AND e.signal IS NOT NULL`,
    [listValue([...serials])],
  );
  const scannedAt: Record<string, number> = {};
  const entries = rows.map((r) => {
    scannedAt[String(r.serial)] = Number(r.recorded);
    return { serial: String(r.serial), bssid: String(r.bssid), ssid: String(r.ssid), channel: Number(r.channel), signal: Number(r.signal) };
  });
  return { entries, scannedAt };
}

/** The graph of the entries, given which AP serves which BSSID. Pure. */
export function topologyOf(entries: readonly HeardEntry[], servedBy: ReadonlyMap<string, string>): Omit<Topology, 'scannedAt'> {
  const pairs = new Map<string, TopologyEdge>();
  const unmanaged = new Map<string, UnmanagedNode>();
  for (const e of entries) {
    const other = servedBy.get(e.bssid);
    if (other === e.serial) continue;
    if (other === undefined) {
      let u = unmanaged.get(e.bssid);
      if (!u) unmanaged.set(e.bssid, (u = { bssid: e.bssid, ssid: e.ssid, channel: e.channel, heardBy: [] }));
      const seen = u.heardBy.find((h) => h.serial === e.serial);
      if (!seen) u.heardBy.push({ serial: e.serial, signal: e.signal });
      else seen.signal = Math.max(seen.signal, e.signal);
      continue;
    }
    const [a, b] = e.serial < other ? [e.serial, other] : [other, e.serial];
    const key = `${a} ${b}`;
    const edge = pairs.get(key);
    if (!edge) pairs.set(key, { a, b, signal: e.signal });
    else edge.signal = Math.max(edge.signal, e.signal);
  }
  const byKey = <T>(m: Map<string, T>): T[] => [...m.keys()].sort().map((k) => m.get(k)!);
  return { edges: byKey(pairs), unmanaged: byKey(unmanaged) };
}
