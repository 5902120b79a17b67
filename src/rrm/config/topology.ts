/**
 * Topology: zones of APs (docs/upstream.md#rrm-behaviour). Pure functions; persistence lives in the
 * store. Divergences (docs/rrm.md): serials are trimmed, lower-cased and written without MAC
 * separators (as the gateway stores them), a topology serial must be 12 hex digits, and a rejected
 * topology never replaces the stored one (the caller only stores what `validateTopology` returns).
 */
import { badRequest } from '../../errors.js';
import type { Topology } from '../schemas/topology.js';

/**
 * A serial as the gateway stores it: trimmed, lower-cased, and a MAC written with ':' or '-'
 * (`90:3C:B3:BB:1C:9A`) without them, so the RRM service names a device as the gateway does.
 * Kept as it is otherwise (a lookup of an odd serial finds nothing rather than failing).
 */
export const normalizeSerial = (serial: string): string => {
  const s = serial.trim().toLowerCase();
  return MAC.test(s) ? s.replace(/[:-]/g, '') : s;
};
const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/;
const SERIAL = /^[0-9a-f]{12}$/;

/**
 * Validates a topology body and returns its normal form: zones sorted by name, serials normalised
 * (normalizeSerial) and de-duplicated in first-seen order (set semantics). Throws BAD_REQUEST naming the zone or device: empty zone name, empty
 * serial, a serial that is not 12 hex digits, a device in two zones, or a non-object body.
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
      // A device the topology could never match: upstream kept any text, and RRM then silently
      // planned nothing for the zone.
      if (!SERIAL.test(serial)) {
        throw badRequest(`topology.${zone}`, `'${s}' in zone '${zone}' is not a serial number (12 hex digits, as 903cb3bb1c9a or 90:3c:b3:bb:1c:9a)`);
      }
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

/**
 * The zone holding `serial`, or null when the device is not managed
 * (docs/upstream.md#rrm-behaviour).
 */
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

/**
 * Zones from the gateway's device records when no topology was ever set: one zone per `venue`
 * the records name (a simulated venue names itself on every AP it starts), its devices sorted.
 * Records without a venue, or whose serial is not a valid one, are left out.
 */
export function zonesFromVenues(devices: Iterable<{ serialNumber: string; venue?: string | undefined }>): Topology {
  const zones = new Map<string, string[]>();
  for (const d of devices) {
    const venue = d.venue?.trim();
    const serial = normalizeSerial(d.serialNumber);
    if (!venue || !SERIAL.test(serial)) continue;
    let list = zones.get(venue);
    if (!list) zones.set(venue, (list = []));
    list.push(serial);
  }
  const out: Topology = {};
  for (const name of [...zones.keys()].sort()) out[name] = [...new Set(zones.get(name)!)].sort();
  return out;
}
