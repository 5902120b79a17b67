import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../simulator/clock.js';
import { parseScenario } from '../../../simulator/scenario.js';
import { buildVenue } from '../../../simulator/venue.js';
import { LossMatrix, geometricLossDb } from '../../../simulator/world/radio-world.js';

// Three floors of 144 APs with walls and strong shadowing: the spatial grid, the floor budget
// and the lower bound all get exercised; 433 points stay dense-cached, so a second matrix
// built without the cache (all points, larger than DENSE_LOSS_MAX_POINTS) is compared with it.
const scenario = parseScenario(JSON.stringify({
  name: 'loss-grid', seed: 3, intervals: { state: 60, healthcheck: 60 },
  building: {
    floorHeight: 3.5, floorLoss: 12, shadowing: { sigma: 8, decorrelation: 7 },
    floors: [0, 1, 2].map(() => ({ width: 240, depth: 240, walls: [{ from: [0, 80], to: [240, 80], type: 'concrete' }, { from: [120, 0], to: [120, 240], type: 'drywall' }] })),
  },
  ssids: [{ name: 'x', bands: ['2G', '5G'] }],
  apGrids: [{ floors: [0, 1, 2], rows: 12, cols: 12, firstSerial: 'f00000000001', radios: [{ band: '5G', channels: [36, 52, 100, 116], width: 80 }, { band: '2G', channels: [1, 6, 11] }] }],
  neighbours: [{ ssid: 'n', floor: 1, at: [10, 10], band: '2G', channel: 6 }],
}));
const venue = buildVenue(scenario, new VirtualClock(0));
const points = [...venue.aps.map((a) => a.pos), ...venue.neighbours.map((n) => n.pos)];

describe('LossMatrix', () => {
  it('gives geometricLossDb bit for bit, cached or not, and a lower bound never above it', () => {
    const uncached = new LossMatrix(venue.world, [...points, ...Array.from({ length: 2048 }, () => points[0]!)]);
    for (let i = 0; i < points.length; i += 5) {
      for (let j = 0; j < points.length; j += 3) {
        if (i === j) continue;
        const exact = geometricLossDb(venue.world, points[Math.min(i, j)]!, points[Math.max(i, j)]!);
        expect(venue.losses.geometric(i, j)).toBe(exact);
        expect(uncached.geometric(i, j)).toBe(exact);
        expect(venue.losses.lowerBound(i, j)).toBeLessThanOrEqual(exact);
      }
    }
  });

  it('within(i, L) lists exactly the points whose lower bound is at most L, in index order', () => {
    for (const maxLoss of [60, 95, 102, 120]) {
      for (let i = 0; i < points.length; i += 11) {
        const want: number[] = [];
        for (let j = 0; j < points.length; j++) if (j !== i && venue.losses.lowerBound(i, j) <= maxLoss) want.push(j);
        expect(venue.losses.within(i, maxLoss)).toEqual(want);
      }
    }
  });
});
