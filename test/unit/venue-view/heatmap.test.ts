import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../simulator/scenario.js';
import { shadowField } from '../../../simulator/world/shadowing.js';
import { frequencyTermDb, geometricLossWithFields } from '../../../simulator/world/radio-world.js';
import { channelToFrequency } from '../../../src/protocol/wifi-channels.js';
import { cellStep, heatMap, heatSources, MAX_CELLS } from '../../../src/venue-view/heatmap.js';
import { openPlan, venueOf } from '../../helpers/sim-venue.js';

describe('venue view heat map', () => {
  const { venue } = venueOf(loadScenario('default').scenario);
  const field = (p: { floor: number; x: number; y: number }) => shadowField(venue.world.shadowing, p);

  it('gives each cell the strongest AP radio as the radio world computes it (walls and shadowing included)', () => {
    const sources = heatSources(venue.aps, venue.apField, venue.neighbours, field);
    for (const band of ['5G', '2G'] as const) {
      const map = heatMap(venue.world, 0, band, sources);
      const managed = sources.filter((s) => s.band === band && s.ap >= 0);
      for (let cell = 0; cell < map.rssi.length; cell += 53) {
        const p = { floor: 0, x: ((cell % map.cols) + 0.5) * map.step, y: (Math.floor(cell / map.cols) + 0.5) * map.step };
        const f = field(p);
        let best = -Infinity;
        let ap = -1;
        for (const s of managed) {
          const rx = s.txPower - geometricLossWithFields(venue.world, s.pos, s.field, p, f) - frequencyTermDb(channelToFrequency(s.band, s.channel)!);
          if (rx > best) { best = rx; ap = s.ap; }
        }
        expect(map.rssi[cell]).toBeCloseTo(best, 1);
        expect(map.ap[cell]).toBe(ap);
        expect(map.channel[cell]).toBe(venue.aps[ap]!.radios.find((r) => r.band === band)!.channel);
        expect(map.sinr[cell]!).toBeLessThanOrEqual(map.rssi[cell]! + 97);
      }
    }
  });

  it('computes a proposed plan without touching the radios: moving a co-channel AP away raises SINR near it', () => {
    // Two APs 20 m apart on channel 36; moving the second to 149 leaves the first alone on 36.
    const { venue: v } = venueOf(openPlan([{ serial: 'a0b1c2000001', x: 40, y: 50, width5: 20 }, { serial: 'a0b1c2000002', x: 60, y: 50, width5: 20 }]));
    const f = (p: { floor: number; x: number; y: number }) => shadowField(v.world.shadowing, p);
    const before = heatMap(v.world, 0, '5G', heatSources(v.aps, v.apField, v.neighbours, f));
    const after = heatMap(v.world, 0, '5G', heatSources(v.aps, v.apField, v.neighbours, f, { channels: { a0b1c2000002: { '5G': 149 } } }));
    const cell = Math.floor(50 / before.step) * before.cols + Math.floor(45 / before.step);
    expect(after.sinr[cell]!).toBeGreaterThan(before.sinr[cell]! + 10);
    expect(after.rssi[cell]).toBe(before.rssi[cell]);
    expect(v.aps[1]!.radios[0]!.channel).toBe(36);
  });

  it('leaves out a radio its configuration turned off', () => {
    const { venue: v } = venueOf(openPlan([{ serial: 'a0b1c2000001', x: 40, y: 50 }, { serial: 'a0b1c2000002', x: 60, y: 50 }]));
    const f = (p: { floor: number; x: number; y: number }) => shadowField(v.world.shadowing, p);
    v.aps[1]!.radios[0]!.enabled = false;
    const sources = heatSources(v.aps, v.apField, v.neighbours, f);
    expect(sources.filter((x) => x.ap === 1).map((x) => x.band)).toEqual(['2G']);
    expect(sources.filter((x) => x.ap === 0).map((x) => x.band)).toEqual(['5G', '2G']);
  });

  it('keeps the grid within MAX_CELLS on any floor size', () => {
    for (const [w, d] of [[60, 30], [200, 120], [1000, 800], [1, 1]] as const) {
      const s = cellStep(w, d);
      expect(Math.ceil(w / s) * Math.ceil(d / s)).toBeLessThanOrEqual(MAX_CELLS);
      expect(s).toBeGreaterThanOrEqual(0.5);
    }
  });
});
