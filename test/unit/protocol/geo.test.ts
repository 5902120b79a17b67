import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpsToVenue, venueToGps } from '../../../src/protocol/geo.js';
import { stateDocument } from '../../../simulator/ap/frames.js';
import { DEFAULT_ORIGIN, loadScenario, parseScenario } from '../../../simulator/scenario.js';
import { venueOf } from '../../helpers/sim-venue.js';

describe('AP positions as GPS (protocol/geo.ts)', () => {
  it('round-trips a venue point to well under 2 cm (property, seed 41)', () => {
    const origin = fc.record({
      latitude: fc.double({ min: -80, max: 80, noNaN: true }), longitude: fc.double({ min: -179, max: 179, noNaN: true }),
      elevation: fc.double({ min: -100, max: 3000, noNaN: true }),
    });
    const metres = fc.double({ min: 0, max: 2000, noNaN: true });
    fc.assert(fc.property(origin, metres, metres, fc.double({ min: 0, max: 300, noNaN: true }), (o, x, y, z) => {
      const back = gpsToVenue(o, venueToGps(o, x, y, z));
      expect(Math.abs(back.x - x)).toBeLessThan(0.02);
      expect(Math.abs(back.y - y)).toBeLessThan(0.02);
      expect(Math.abs(back.z - z)).toBeLessThanOrEqual(0.051);
    }), { seed: 41, numRuns: 300 });
  });

  it('x grows east, y north', () => {
    const o = { latitude: 45, longitude: 7 };
    const p = venueToGps(o, 100, 200);
    expect(p.longitude).toBeGreaterThan(7);
    expect(p.latitude).toBeGreaterThan(45);
    expect(p.elevation).toBe(0);
  });

  it('every simulated AP reports where it stands in its state (`gps`), from the venue origin or the default one', () => {
    const { venue } = venueOf(loadScenario('hotel').scenario);
    for (const ap of venue.aps) {
      const st = stateDocument(venue, ap) as { gps: { latitude: number; longitude: number; elevation: number } };
      const back = gpsToVenue(venue.origin, st.gps);
      expect(Math.abs(back.x - ap.pos.x)).toBeLessThan(0.02);
      expect(Math.abs(back.y - ap.pos.y)).toBeLessThan(0.02);
      expect(back.z).toBeCloseTo(ap.pos.floor * venue.world.geometry.floorHeightM, 1);
    }
    expect(venue.origin).toEqual(DEFAULT_ORIGIN);
    const placed = parseScenario(JSON.stringify({
      name: 'placed', seed: 1, origin: { latitude: 51.5, longitude: -0.12 }, intervals: { state: 60, healthcheck: 60 },
      building: { floors: [{ width: 10, depth: 10 }] }, ssids: [{ name: 'x', bands: ['5G'] }],
      aps: [{ serial: '0000cc000001', floor: 0, at: [0, 0], radios: [{ band: '5G', channel: 36 }] }],
    }));
    const v = venueOf(placed).venue;
    expect(stateDocument(v, v.aps[0]!).gps).toEqual({ latitude: 51.5, longitude: -0.12, elevation: 0 });
  });
});
