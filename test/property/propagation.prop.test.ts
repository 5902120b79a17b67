import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tgaxEnterpriseDb } from '../../simulator/world/path-loss.js';
import { obstructionDb, type Geometry, type Position } from '../../simulator/world/geometry.js';
import { pathLossDb, rxPowerDbm, type RadioWorld } from '../../simulator/world/radio-world.js';
import { linkShadowingDb } from '../../simulator/world/shadowing.js';
import { channelOverlap } from '../../simulator/world/interference.js';
import { noiseFloorDbm } from '../../simulator/world/noise.js';

const SEED = 424242;
const geometry = (walls: Geometry['walls'] = []): Geometry => ({ floors: [{ width: 100, depth: 100 }, { width: 100, depth: 100 }], walls, floorHeightM: 3.5, floorLossDb: 15 });
const world = (sigma: number, walls: Geometry['walls'] = []): RadioWorld => ({ geometry: geometry(walls), shadowing: { seed: 99, sigmaDb: sigma, decorrelationM: 10 } });
const coord = fc.double({ min: 0, max: 100, noNaN: true });
const pos = fc.record({ floor: fc.integer({ min: 0, max: 1 }), x: coord, y: coord });
const freq = fc.constantFrom(2412, 2437, 5180, 5500, 5745, 6115);

describe('propagation (property, seed 424242)', () => {
  it('path loss grows with distance (TGax enterprise, any frequency)', () => {
    fc.assert(fc.property(fc.double({ min: 1, max: 300, noNaN: true }), fc.double({ min: 0.01, max: 100, noNaN: true }), freq, (d, extra, f) => {
      expect(tgaxEnterpriseDb(d + extra, f)).toBeGreaterThan(tgaxEnterpriseDb(d, f));
    }), { seed: SEED });
  });

  it('moving the receiver away along a line never lowers the loss (no shadowing)', () => {
    const w = world(0);
    fc.assert(fc.property(pos, fc.double({ min: 0.5, max: 40, noNaN: true }), freq, (a, step, f) => {
      const near = { ...a, floor: a.floor, x: Math.min(100, a.x) };
      const b1: Position = { floor: a.floor, x: near.x, y: Math.min(100, a.y + 2) };
      const b2: Position = { ...b1, y: b1.y + step };
      expect(pathLossDb(w, near, b2, f)).toBeGreaterThanOrEqual(pathLossDb(w, near, b1, f));
    }), { seed: SEED });
  });

  it('a wall across the path adds exactly its loss; floors add theirs', () => {
    fc.assert(fc.property(fc.double({ min: 1, max: 30, noNaN: true }), fc.double({ min: 1, max: 30, noNaN: true }), fc.double({ min: 1, max: 30, noNaN: true }), freq, (y1, y2, db, f) => {
      const a: Position = { floor: 0, x: 10, y: y1 };
      const b: Position = { floor: 0, x: 90, y: y2 };
      const wall = { floor: 0, x1: 50, y1: 0, x2: 50, y2: 100, db };
      expect(pathLossDb(world(0, [wall]), a, b, f) - pathLossDb(world(0), a, b, f)).toBeCloseTo(db, 9);
      expect(obstructionDb(geometry(), a, { ...b, floor: 1 })).toBe(15);
    }), { seed: SEED });
  });

  it('received power moves dB for dB with the transmitter tx power', () => {
    const w = world(5);
    fc.assert(fc.property(pos, pos, fc.integer({ min: 0, max: 30 }), fc.integer({ min: -10, max: 10 }), freq, (a, b, tx, delta, f) => {
      expect(rxPowerDbm(w, a, tx + delta, b, f) - rxPowerDbm(w, a, tx, b, f)).toBeCloseTo(delta, 9);
    }), { seed: SEED });
  });

  it('links are symmetric, shadowing and walls included', () => {
    const walls = [{ floor: 0, x1: 30, y1: 0, x2: 30, y2: 60, db: 7 }, { floor: 1, x1: 0, y1: 50, x2: 100, y2: 50, db: 12 }];
    const w = world(6, walls);
    fc.assert(fc.property(pos, pos, freq, (a, b, f) => {
      expect(pathLossDb(w, a, b, f)).toBeCloseTo(pathLossDb(w, b, a, f), 9);
      expect(linkShadowingDb(w.shadowing, a, b)).toBeCloseTo(linkShadowingDb(w.shadowing, b, a), 12);
    }), { seed: SEED });
  });

  it('shadowing is spatially consistent: nearby receivers see nearly the same value', () => {
    const s = { seed: 5, sigmaDb: 6, decorrelationM: 10 };
    fc.assert(fc.property(pos, pos, fc.double({ min: -0.05, max: 0.05, noNaN: true }), (a, b, dx) => {
      const b2 = { ...b, x: b.x + dx };
      expect(Math.abs(linkShadowingDb(s, a, b) - linkShadowingDb(s, a, b2))).toBeLessThan(0.5);
    }), { seed: SEED });
  });

  it('2.4 GHz adjacent channels interfere less the further apart they are; 1/6/11 do not', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 11 }), fc.integer({ min: 1, max: 11 }), fc.integer({ min: 1, max: 11 }), (a, b, c) => {
      const ov = (x: number, y: number): number => channelOverlap({ band: '2G', channel: x, width: 20 }, { band: '2G', channel: y, width: 20 });
      if (Math.abs(a - b) <= Math.abs(a - c)) expect(ov(a, b)).toBeGreaterThanOrEqual(ov(a, c));
      expect(ov(a, b)).toBe(ov(b, a));
    }), { seed: SEED });
    expect(channelOverlap({ band: '2G', channel: 1, width: 20 }, { band: '2G', channel: 6, width: 20 })).toBe(0);
    expect(channelOverlap({ band: '5G', channel: 36, width: 80 }, { band: '5G', channel: 44, width: 20 })).toBe(1);
    expect(channelOverlap({ band: '5G', channel: 44, width: 20 }, { band: '5G', channel: 36, width: 80 })).toBe(0.25);
  });

  it('noise floor rises 3 dB per doubling of width', () => {
    expect(noiseFloorDbm(40) - noiseFloorDbm(20)).toBeCloseTo(3.01, 2);
    expect(Math.round(noiseFloorDbm(20))).toBe(-96);
  });
});
