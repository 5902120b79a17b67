import { describe, expect, it } from 'vitest';
import { validateTopology, zoneOfSerial, zonesFromVenues } from '../../../../src/rrm/config/topology.js';
import { AirtwinError } from '../../../../src/errors.js';

function errorOf(fn: () => unknown): AirtwinError {
  try { fn(); } catch (e) { if (e instanceof AirtwinError) return e; throw e; }
  throw new Error('expected an error');
}

describe('topology validation', () => {
  it('sorts zones, lower-cases and de-duplicates serials', () => {
    expect(validateTopology({ b: ['AAAAAAAAAAA2'], a: ['aaaaaaaaaaa1', 'AAAAAAAAAAA1'] }))
      .toEqual({ a: ['aaaaaaaaaaa1'], b: ['aaaaaaaaaaa2'] });
    expect(Object.keys(validateTopology({ z: [], a: [] }))).toEqual(['a', 'z']);
  });

  it('writes a serial given as a MAC without its separators, as the gateway names the device', () => {
    expect(validateTopology({ z: ['90:3C:B3:BB:1C:9A', '90-3c-b3-bb-1c-9b', '903cb3bb1c9a'] })).toEqual({ z: ['903cb3bb1c9a', '903cb3bb1c9b'] });
    const t = validateTopology({ z: ['903CB3BB1C9A'] });
    expect(zoneOfSerial(t, '90:3c:b3:bb:1c:9a')).toBe('z');
  });

  it('rejects a serial that is not 12 hex digits, naming it and its zone', () => {
    for (const bad of ['doesnotexist', '903cb3bb1c9', '903cb3bb1c9a0', '90:3c:b3:bb:1c', 'gggggggggggg']) {
      const e = errorOf(() => validateTopology({ lab: ['aaaaaaaaaaa1', bad] }));
      expect([e.status, e.details, e.message]).toEqual([400, 'topology.lab', `'${bad}' in zone 'lab' is not a serial number (12 hex digits, as 903cb3bb1c9a or 90:3c:b3:bb:1c:9a)`]);
    }
  });

  it('rejects an empty zone name', () => {
    const e = errorOf(() => validateTopology({ '': ['aaaaaaaaaaa1'] }));
    expect([e.status, e.message]).toEqual([400, 'Empty zone name in topology']);
  });

  it('rejects an empty serial naming the zone', () => {
    expect(errorOf(() => validateTopology({ z1: [''] })).message).toBe("Empty serial number in zone 'z1'");
    expect(errorOf(() => validateTopology({ z1: [3] })).message).toBe("Empty serial number in zone 'z1'");
  });

  it('rejects a device in two zones naming both zones', () => {
    expect(errorOf(() => validateTopology({ z1: ['aaaaaaaaaaa1'], z2: ['aaaaaaaaaaa1'] })).message)
      .toBe("Device 'aaaaaaaaaaa1' in multiple zones ('z1', 'z2')");
  });

  it('rejects bodies that are not an object of lists', () => {
    expect(errorOf(() => validateTopology(null)).status).toBe(400);
    expect(errorOf(() => validateTopology([])).status).toBe(400);
    expect(errorOf(() => validateTopology({ z: 'aaaaaaaaaaa1' })).details).toBe('topology.z');
  });

  it('finds the zone of a serial, null when unmanaged', () => {
    const t = validateTopology({ z1: ['aaaaaaaaaaa1'] });
    expect(zoneOfSerial(t, 'AAAAAAAAAAA1')).toBe('z1');
    expect(zoneOfSerial(t, 'bbbbbbbbbbbb')).toBeNull();
    expect(zoneOfSerial(t, '')).toBeNull();
  });
});

describe('zonesFromVenues', () => {
  it('one zone per venue the records name, serials normalised and sorted; records without a venue left out', () => {
    expect(zonesFromVenues([
      { serialNumber: 'a0b1c2000002', venue: 'lab' },
      { serialNumber: 'A0:B1:C2:00:00:01', venue: 'lab' },
      { serialNumber: 'a0b1c2000009', venue: 'hall' },
      { serialNumber: 'a0b1c2000003', venue: '' },
      { serialNumber: 'a0b1c2000004' },
      { serialNumber: 'not-a-serial', venue: 'lab' },
    ])).toEqual({ hall: ['a0b1c2000009'], lab: ['a0b1c2000001', 'a0b1c2000002'] });
    expect(zonesFromVenues([])).toEqual({});
  });
});
