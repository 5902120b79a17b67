/**
 * The layered device configuration as pure functions (docs/upstream.md#rrm-behaviour). Every
 * operation takes the current layers (and topology) and returns new layers; the caller persists
 * them.
 *
 * effective(serial) = defaults ⊕ network ⊕ zone(serial) ⊕ ap(serial), where ⊕ copies every
 * non-null field of the later layer over the earlier one, whole values (maps are not merged
 * key-by-key, docs/upstream.md#rrm-behaviour).
 */
import { Value } from 'typebox/value';
import { badRequest, notFound } from '../../errors.js';
import {
  DEVICE_CONFIG_FIELDS, DeviceConfig, type EffectiveConfig,
} from '../schemas/device-config.js';
import type { LayeredConfig } from '../schemas/layered-config.js';
import type { Topology } from '../schemas/topology.js';
import { validateSchedule } from './schedule.js';
import { allSerials, isZoneInTopology, normalizeSerial, zoneOfSerial } from './topology.js';

/** Base layer (docs/upstream.md#rrm-behaviour): the three switches on, everything else unset. */
export function defaultEffectiveConfig(): EffectiveConfig {
  return {
    enableRRM: true, schedule: null, enableConfig: true, enableWifiScan: true, boundary: null,
    location: null, allowedChannels: null, allowedChannelWidths: null, autoChannels: null,
    userChannels: null, allowedTxPowers: null, autoTxPowers: null, userTxPowers: null,
  };
}

/** Copy every set field of `layer` over `base` (deep-cloned so callers never share maps). */
function applyLayer(base: EffectiveConfig, layer: DeviceConfig | undefined): EffectiveConfig {
  if (!layer) return base;
  const out = { ...base } as Record<string, unknown>;
  for (const f of DEVICE_CONFIG_FIELDS) {
    const v = layer[f];
    if (v !== undefined && v !== null) out[f] = structuredClone(v);
  }
  return out as EffectiveConfig;
}

/**
 * defaults ⊕ network ⊕ zone: what the scheduler reads for a zone (docs/upstream.md#rrm-behaviour,
 * #rrm-schedules).
 */
export function zoneEffectiveConfig(layers: LayeredConfig, zone: string): EffectiveConfig {
  return applyLayer(applyLayer(defaultEffectiveConfig(), layers.networkConfig), layers.zoneConfig[zone]);
}

/**
 * Effective configuration of one AP, or null when the serial is in no zone
 * (docs/upstream.md#rrm-behaviour).
 */
export function effectiveConfig(layers: LayeredConfig, topology: Topology, serial: string): EffectiveConfig | null {
  const zone = zoneOfSerial(topology, serial);
  if (zone === null) return null;
  return applyLayer(zoneEffectiveConfig(layers, zone), layers.apConfig[normalizeSerial(serial)]);
}

/** serial -> effective config for every AP of a zone (docs/upstream.md#rrm-behaviour). */
export function zoneDeviceConfigs(layers: LayeredConfig, topology: Topology, zone: string): Map<string, EffectiveConfig> {
  if (!isZoneInTopology(topology, zone)) throw notFound('zone', `Unknown zone '${zone}'.`);
  const base = zoneEffectiveConfig(layers, zone);
  const out = new Map<string, EffectiveConfig>();
  for (const s of topology[zone] ?? []) out.set(s, applyLayer(base, layers.apConfig[s]));
  return out;
}

const isEmptyConfig = (c: DeviceConfig | undefined): boolean =>
  !c || DEVICE_CONFIG_FIELDS.every((f) => c[f] === undefined || c[f] === null);

/**
 * Parses a request body into one layer. Unknown keys and null values are dropped (null means "not
 * set", docs/upstream.md#rrm-behaviour); wrong types are BAD_REQUEST naming the field. Values are
 * range-checked so a layer can never hold a power or channel the AP cannot use (divergence,
 * docs/rrm.md: upstream stores anything). `null`/`undefined` bodies return null (= delete the
 * layer).
 */
export function parseDeviceConfig(body: unknown, knownAlgorithms: readonly string[]): DeviceConfig | null {
  if (body === null || body === undefined) return null;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('body', 'A device configuration must be a JSON object.');
  }
  const out: Record<string, unknown> = {};
  for (const f of DEVICE_CONFIG_FIELDS) {
    const v = (body as Record<string, unknown>)[f];
    if (v !== undefined && v !== null) out[f] = v;
  }
  const err = Value.Errors(DeviceConfig, out)[0];
  if (err) {
    const field = err.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
    throw badRequest(field, `${field}: ${err.message}.`);
  }
  const cfg = out as DeviceConfig;
  checkRanges(cfg);
  if (cfg.schedule) validateSchedule(cfg.schedule, knownAlgorithms);
  return cfg;
}

function checkRanges(cfg: DeviceConfig): void {
  const powerMaps = { allowedTxPowers: cfg.allowedTxPowers, autoTxPowers: cfg.autoTxPowers, userTxPowers: cfg.userTxPowers };
  for (const [name, m] of Object.entries(powerMaps)) {
    for (const [band, v] of Object.entries(m ?? {})) {
      for (const p of Array.isArray(v) ? v : [v]) {
        if (p < 0 || p > 30) throw badRequest(`${name}.${band}`, `${name}.${band}: ${p} dBm is outside 0..30 (radio schema tx-power).`);
      }
      if (Array.isArray(v) && v.length === 0) throw badRequest(`${name}.${band}`, `${name}.${band}: the list is empty.`);
    }
  }
  const channelMaps = { allowedChannels: cfg.allowedChannels, autoChannels: cfg.autoChannels, userChannels: cfg.userChannels };
  for (const [name, m] of Object.entries(channelMaps)) {
    for (const [band, v] of Object.entries(m ?? {})) {
      for (const c of Array.isArray(v) ? v : [v]) {
        if (c < 1 || c > 233) throw badRequest(`${name}.${band}`, `${name}.${band}: channel ${c} is outside 1..233.`);
      }
      if (Array.isArray(v) && v.length === 0) throw badRequest(`${name}.${band}`, `${name}.${band}: the list is empty.`);
    }
  }
  if (cfg.location && (cfg.location.length < 2 || cfg.location.length > 3 || cfg.location.some((x) => x < 0))) {
    throw badRequest('location', 'location: expected [x, y] (or [x, y, z]) with non-negative metres.');
  }
  if (cfg.boundary !== undefined && cfg.boundary <= 0) throw badRequest('boundary', 'boundary: must be a positive number of metres.');
}

/**
 * Drops zone layers of zones not in the topology, AP layers of serials not in it, and empty
 * layers (docs/upstream.md#rrm-behaviour). Runs after every change and after setTopology.
 */
export function sanitizeLayers(layers: LayeredConfig, topology: Topology): LayeredConfig {
  const serials = allSerials(topology);
  const zoneConfig: LayeredConfig['zoneConfig'] = {};
  for (const [z, c] of Object.entries(layers.zoneConfig ?? {})) {
    if (isZoneInTopology(topology, z) && !isEmptyConfig(c)) zoneConfig[z] = c;
  }
  const apConfig: LayeredConfig['apConfig'] = {};
  for (const [s, c] of Object.entries(layers.apConfig ?? {})) {
    if (serials.has(s) && !isEmptyConfig(c)) apConfig[s] = c;
  }
  return { apConfig, zoneConfig, networkConfig: layers.networkConfig ?? {} };
}

/**
 * setDeviceNetworkConfig: replaces the network layer; null resets it to {}
 * (docs/upstream.md#rrm-api).
 */
export function setNetworkLayer(layers: LayeredConfig, topology: Topology, cfg: DeviceConfig | null): LayeredConfig {
  return sanitizeLayers({ ...layers, networkConfig: cfg ?? {} }, topology);
}

function requireZone(topology: Topology, zone: string | undefined): string {
  if (zone === undefined || zone.trim() === '') throw badRequest('zone', 'Invalid zone');
  if (!isZoneInTopology(topology, zone)) throw notFound('zone', `Unknown zone '${zone}'.`);
  return zone;
}

function requireSerial(topology: Topology, serial: string | undefined): string {
  if (serial === undefined || serial.trim() === '') throw badRequest('serial', 'Invalid serial number');
  const s = normalizeSerial(serial);
  if (zoneOfSerial(topology, s) === null) throw notFound('serial', `Unknown device '${s}': it is in no zone of the topology.`);
  return s;
}

/**
 * setDeviceZoneConfig: replaces one zone's layer; null deletes it (docs/upstream.md#rrm-behaviour).
 */
export function setZoneLayer(layers: LayeredConfig, topology: Topology, zone: string | undefined, cfg: DeviceConfig | null): LayeredConfig {
  const z = requireZone(topology, zone);
  const zoneConfig = { ...layers.zoneConfig };
  if (cfg === null) delete zoneConfig[z];
  else zoneConfig[z] = cfg;
  return sanitizeLayers({ ...layers, zoneConfig }, topology);
}

/** setDeviceApConfig: replaces one AP's layer; null deletes it (docs/upstream.md#rrm-behaviour). */
export function setApLayer(layers: LayeredConfig, topology: Topology, serial: string | undefined, cfg: DeviceConfig | null): LayeredConfig {
  const s = requireSerial(topology, serial);
  const apConfig = { ...layers.apConfig };
  if (cfg === null) delete apConfig[s];
  else apConfig[s] = cfg;
  return sanitizeLayers({ ...layers, apConfig }, topology);
}

/**
 * modifyDeviceApConfig: shallow merge into one AP's layer: a field absent (or null) in the body
 * is kept; a body with no supported field is BAD_REQUEST (docs/upstream.md#rrm-api).
 */
export function modifyApLayer(layers: LayeredConfig, topology: Topology, serial: string | undefined, cfg: DeviceConfig | null): LayeredConfig {
  const s = requireSerial(topology, serial);
  if (isEmptyConfig(cfg ?? undefined)) throw badRequest('body', 'No supported fields in request body');
  const merged: Record<string, unknown> = { ...(layers.apConfig[s] ?? {}) };
  for (const f of DEVICE_CONFIG_FIELDS) {
    const v = cfg![f];
    if (v !== undefined && v !== null) merged[f] = v;
  }
  return sanitizeLayers({ ...layers, apConfig: { ...layers.apConfig, [s]: merged as DeviceConfig } }, topology);
}

/** getDeviceConfig: the effective config, or NOT_FOUND / BAD_REQUEST like the setters. */
export function getDeviceConfig(layers: LayeredConfig, topology: Topology, serial: string | undefined): EffectiveConfig {
  const s = requireSerial(topology, serial);
  return effectiveConfig(layers, topology, s)!;
}

/**
 * Writes algorithm results into AP layers (docs/upstream.md#how-rrm-applies-results), keeping the
 * auto values of bands this run did not compute (divergence, docs/rrm.md: upstream replaces the
 * whole map).
 */
export function writeAutoValues(
  layers: LayeredConfig, topology: Topology, field: 'autoChannels' | 'autoTxPowers',
  updates: Record<string, Record<string, number>>,
): LayeredConfig {
  const apConfig = { ...layers.apConfig };
  for (const [serial, bands] of Object.entries(updates)) {
    if (Object.keys(bands).length === 0) continue;
    const prev = apConfig[serial] ?? {};
    apConfig[serial] = { ...prev, [field]: { ...(prev[field] ?? {}), ...bands } };
  }
  return sanitizeLayers({ ...layers, apConfig }, topology);
}
