import { describe, expect, it } from 'vitest';
import { hash32, rngStream } from '../../../simulator/rng.js';
import { openPlan, venueOf } from '../../helpers/sim-venue.js';

const draw = (seed: number, name: string, n = 5): number[] => {
  const r = rngStream(seed, name);
  return Array.from({ length: n }, () => r.next());
};

describe('rng streams', () => {
  it('give the same numbers for the same seed and component', () => {
    expect(draw(42, 'ap/a0b1c2000001')).toEqual(draw(42, 'ap/a0b1c2000001'));
  });

  it('differ between seeds and between components', () => {
    expect(draw(42, 'ap/a0b1c2000001')).not.toEqual(draw(43, 'ap/a0b1c2000001'));
    expect(draw(42, 'ap/a0b1c2000001')).not.toEqual(draw(42, 'ap/a0b1c2000002'));
  });

  it('do not depend on other streams being drawn from (adding a component reshuffles nothing)', () => {
    const alone = draw(7, 'client/0/1');
    const other = rngStream(7, 'client/0/0');
    for (let i = 0; i < 100; i++) other.next();
    expect(draw(7, 'client/0/1')).toEqual(alone);
  });

  it('helpers stay in range', () => {
    const r = rngStream(1, 'x');
    for (let i = 0; i < 1000; i++) {
      const k = r.int(3, 5);
      expect(k >= 3 && k <= 5 && Number.isInteger(k)).toBe(true);
      expect(r.exp(10)).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(r.normal())).toBe(true);
    }
    expect(() => r.pick([])).toThrow(RangeError);
  });

  it('hash32 depends only on its inputs', () => {
    expect(hash32(1, 2, 3)).toBe(hash32(1, 2, 3));
    expect(hash32(1, 2, 3)).not.toBe(hash32(1, 3, 2));
  });
});

describe('venue randomness', () => {
  it('adding an AP leaves every other AP and station draw unchanged', () => {
    const a = { serial: 'a0b1c2000001', x: 10, y: 10 };
    const b = { serial: 'a0b1c2000002', x: 60, y: 60 };
    const small = venueOf(openPlan([a, b], { clients: 20, sigma: 5 })).venue;
    const big = venueOf(openPlan([a, b, { serial: 'a0b1c2000003', x: 90, y: 10 }], { clients: 20, sigma: 5 })).venue;
    for (const i of [0, 1]) {
      expect(big.aps[i]!.uuid).toBe(small.aps[i]!.uuid);
      expect(big.aps[i]!.bootAt).toBe(small.aps[i]!.bootAt);
      expect(big.aps[i]!.radios.map((r) => r.bssids)).toEqual(small.aps[i]!.radios.map((r) => r.bssids));
    }
    expect(big.clients.map((c) => [c.mac, c.to, c.trafficKbps, c.mobile])).toEqual(small.clients.map((c) => [c.mac, c.to, c.trafficKbps, c.mobile]));
    expect(big.losses.geometric(0, 1)).toBe(small.losses.geometric(0, 1));
  });
});
