/**
 * What the RRM's data collection should ask for now (docs/upstream.md#rrm-data-collection), and
 * which configure pushes a debounce lets through (docs/upstream.md#how-rrm-applies-results). Pure:
 * the caller owns the clock, the fleet and the bookkeeping of the last times.
 */
import type { EffectiveConfig } from './schemas/device-config.js';

/** docs/upstream.md#rrm-data-collection. */
export const DEFAULT_WIFI_SCAN_INTERVAL_MS = 900_000;
export const DEFAULT_CAPABILITIES_INTERVAL_MS = 3_600_000;
export const DEFAULT_CONFIG_DEBOUNCE_MS = 30_000;

export interface CollectionInput {
  /** Managed devices (every zone member) with their effective configs. */
  configs: ReadonlyMap<string, EffectiveConfig>;
  /** Serials connected now; others are skipped (a scan cannot be queued). */
  connected: ReadonlySet<string>;
  /** serial -> epoch ms of the last scan / capabilities request (absent = never). */
  lastScanAt: ReadonlyMap<string, number>;
  lastCapabilitiesAt: ReadonlyMap<string, number>;
  now: number;
  /** <= 0 disables periodic scans (upstream: -1). */
  wifiScanIntervalMs?: number;
  capabilitiesIntervalMs?: number;
}

export interface CollectionPlan { wifiScan: string[]; capabilities: string[] }

/**
 * Devices due for a wifi scan (connected, effective enableWifiScan, interval elapsed) and for a
 * capabilities refresh (connected, interval elapsed), in serial order.
 */
export function dueCollections(input: CollectionInput): CollectionPlan {
  const scanEvery = input.wifiScanIntervalMs ?? DEFAULT_WIFI_SCAN_INTERVAL_MS;
  const capsEvery = Math.max(1000, input.capabilitiesIntervalMs ?? DEFAULT_CAPABILITIES_INTERVAL_MS);
  const due = (last: number | undefined, every: number) => last === undefined || input.now - last >= every;
  const wifiScan: string[] = [];
  const capabilities: string[] = [];
  for (const serial of [...input.configs.keys()].sort()) {
    if (!input.connected.has(serial)) continue;
    const cfg = input.configs.get(serial)!;
    if (scanEvery > 0 && cfg.enableWifiScan && due(input.lastScanAt.get(serial), scanEvery)) wifiScan.push(serial);
    if (due(input.lastCapabilitiesAt.get(serial), capsEvery)) capabilities.push(serial);
  }
  return { wifiScan, capabilities };
}

/**
 * Splits configure pushes by the debounce (docs/upstream.md#how-rrm-applies-results: a device
 * configured less than `debounceMs` ago waits). Deferred pushes are the caller's to retry after the
 * window.
 */
export function debouncePushes<T>(
  pushes: ReadonlyMap<string, T>, lastPushAt: ReadonlyMap<string, number>, now: number, debounceMs = DEFAULT_CONFIG_DEBOUNCE_MS,
): { send: Map<string, T>; defer: Map<string, T> } {
  const send = new Map<string, T>();
  const defer = new Map<string, T>();
  for (const [serial, doc] of pushes) {
    const last = lastPushAt.get(serial);
    (last !== undefined && now - last < debounceMs ? defer : send).set(serial, doc);
  }
  return { send, defer };
}
