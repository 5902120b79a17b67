/**
 * Topology: zones of APs (reference §3.1). Pure functions; persistence lives in the store.
 * Divergences (docs/rrm.md): serials are trimmed and lower-cased (airtwin stores serials
 * lowercase everywhere), and a rejected topology never replaces the stored one (the caller only
 * stores what `validateTopology` returns).
 */
import { badRequest } from '../../errors.js';
import type { Topology } from '../schemas/topology.js';

export const normalizeSerial = (serial: string): string => serial.trim().toLowerCase();

/**
 * Validates a topology body and returns its normal form: zones sorted by name, serials
 * de-duplicated in first-seen order (set semantics, §1.4). Throws BAD_REQUEST naming the zone
 * or device: empty zone name, empty serial, a device in two zones, or a non-object body.
 */
export function validateTopology(raw: unknown): Topology {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('topology', 'The topology must be an object of zone name to a list of serial numbers.');
  }
  const zoneOf = new Map<string, string>();
  const out: Topology = {};
  for (const zone of Object.keys(raw).sort()) {
    if (zone.trim() === '') throw badRequest('topology', 'Empty zone name in topology');
    const serials = (raw as Record<string, unknown>)[zone];
    if (!Array.isArray(serials)) {
      throw badRequest(`topology.${zone}`, `Zone '${zone}' must be a list of serial numbers.`);
    }
    const list: string[] = [];
    for (const s of serials) {
      if (typeof s !== 'string' || s.trim() === '') {
        throw badRequest(`topology.${zone}`, `Empty serial number in zone '${zone}'`);
      }
      const serial = normalizeSerial(s);
      const other = zoneOf.get(serial);
      if (other !== undefined && other !== zone) {
        throw badRequest(`topology.${zone}`, `Device '${serial}' in multiple zones ('${other}', '${zone}')`);
      }
      if (other === undefined) {
        zoneOf.set(serial, zone);
        list.push(serial);
      }
    }
    out[zone] = list;
  }
  return out;
}

/** The zone holding `serial`, or null when the device is not managed (§2.3). */
export function zoneOfSerial(topology: Topology, serial: string): string | null {
  const s = normalizeSerial(serial);
  if (s === '') return null;
  for (const [zone, serials] of Object.entries(topology)) if (serials.includes(s)) return zone;
  return null;
}

export const isZoneInTopology = (topology: Topology, zone: string): boolean =>
  zone !== '' && Object.prototype.hasOwnProperty.call(topology, zone);

/** Every serial of the topology (for sanitising AP layers). */
export function allSerials(topology: Topology): Set<string> {
  const out = new Set<string>();
  for (const serials of Object.values(topology)) for (const s of serials) out.add(s);
  return out;
}
