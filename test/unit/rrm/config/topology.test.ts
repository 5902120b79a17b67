import { describe, expect, it } from 'vitest';
import { validateTopology, zoneOfSerial } from '../../../../src/rrm/config/topology.js';
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
