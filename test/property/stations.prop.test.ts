import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configure } from '../../simulator/ap/configure.js';
import { stateDocument } from '../../simulator/ap/frames.js';
import { stationLink } from '../../simulator/ap/airtime.js';
import { VirtualClock } from '../../simulator/clock.js';
import { LINK_LOST_DBM, startClients } from '../../simulator/clients/dynamics.js';
import { scenarioStart } from '../../simulator/scenario.js';
import { buildVenue, type Venue } from '../../simulator/venue.js';
import { openPlan, type SimAp } from '../helpers/sim-venue.js';

const SEED = 3434;
const serial = (i: number): string => `0000bb0000${(i + 16).toString(16).padStart(2, '0')}`;

const aps = fc.array(fc.record({ x: fc.integer({ min: 0, max: 100 }), y: fc.integer({ min: 0, max: 100 }) }), { minLength: 1, maxLength: 5 })
  .map((list) => list.map((a, i): SimAp => ({ serial: serial(i), x: a.x, y: a.y, ch5: [36, 44, 149, 157][i % 4], ch2: [1, 6, 11][i % 3], width5: 40 })));
const walls = fc.array(fc.record({ from: fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })), to: fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })), db: fc.integer({ min: 0, max: 25 }) }), { maxLength: 4 });
/** Every `at` ms, AP `ap` takes a configuration: each radio on with a power, or left out (off). */
const changes = fc.array(fc.record({
  at: fc.integer({ min: 1000, max: 600_000 }), ap: fc.nat(4),
  radios: fc.tuple(fc.option(fc.integer({ min: 0, max: 23 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined })),
}), { maxLength: 6 });

type Heard = { type: string; payload: Record<string, unknown> };

function venueOf(list: SimAp[], wallList: { from: [number, number]; to: [number, number]; db: number }[], seed: number) {
  const scenario = openPlan(list, { seed, sigma: 5, clients: 25, walls: wallList, clientGroup: { mobile: 0.5, speed: 1.5, sessionMinutes: 30, awayMinutes: 10 } });
  const clock = new VirtualClock(scenarioStart(scenario));
  const venue = buildVenue(scenario, clock);
  const events: Heard[] = [];
  for (const ap of venue.aps) ap.onClientEvent = (type, payload) => events.push({ type, payload });
  startClients(venue);
  return { venue, clock, events };
}

/** Every radio's station list and every station's own view agree; an off radio has no one. */
function consistent(v: Venue): void {
  const seen = new Set<unknown>();
  for (const ap of v.aps) {
    for (const r of ap.radios) {
      if (!r.enabled) expect(r.stations).toEqual([]);
      for (const c of r.stations) {
        expect(seen.has(c)).toBe(false);
        seen.add(c);
        expect(c.ap).toBe(ap);
        expect(c.radio).toBe(r);
        expect(c.present).toBe(true);
      }
    }
  }
  for (const c of v.clients) if (c.radio) expect(seen.has(c)).toBe(true);
}

describe('simulated stations (property, seed 3434)', () => {
  it('no state reports a station below sensitivity, stations sit on one running radio, and joins happen above the association floor', () => {
    fc.assert(fc.property(aps, walls, changes, fc.integer({ min: 1, max: 1000 }), (list, wallList, plan, seed) => {
      const { venue, clock, events } = venueOf(list, wallList as never, seed);
      const steps = [...plan].sort((a, b) => a.at - b.at);
      const start = clock.now();
      for (const step of steps) {
        clock.runUntil(start + step.at);
        const ap = venue.aps[step.ap % venue.aps.length]!;
        const radios = ap.radios.flatMap((r, i) => (step.radios[i] === undefined ? [] : [{ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': step.radios[i] }]));
        configure(venue, ap, 1, { uuid: 5, config: { radios } }, () => undefined);
        consistent(venue);
      }
      for (let t = 0; t <= 900_000; t += 60_000) {
        clock.runUntil(start + 600_000 + t);
        for (const ap of venue.aps) {
          const st = stateDocument(venue, ap) as { interfaces: { ssids: { associations: { rssi: number }[] }[] }[] };
          for (const s of st.interfaces[0]!.ssids) for (const a of s.associations) expect(a.rssi).toBeGreaterThanOrEqual(LINK_LOST_DBM);
          for (const r of ap.radios) {
            for (const c of r.stations) expect(stationLink(venue, c, clock.now()).downDbm).toBeGreaterThanOrEqual(LINK_LOST_DBM);
          }
        }
        consistent(venue);
      }
      for (const e of events) if (e.type === 'client.join') expect(e.payload.rssi as number).toBeGreaterThanOrEqual(-82);
    }), { seed: SEED, numRuns: 30 });
  });

  it('turning an AP\'s power down never brings it a station, turning it up never sends one away (at that instant)', () => {
    fc.assert(fc.property(aps, fc.integer({ min: 0, max: 23 }), fc.integer({ min: -23, max: 23 }), fc.integer({ min: 1, max: 1000 }), (list, from, delta, seed) => {
      const { venue, clock } = venueOf(list, [], seed);
      clock.runUntil(clock.now() + 120_000);
      const ap = venue.aps[0]!;
      const set = (tx: number) => configure(venue, ap, 1, { uuid: 6, config: { radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': tx })) } }, () => undefined);
      set(from);
      const before = new Set(ap.radios.flatMap((r) => r.stations));
      const to = Math.max(0, Math.min(23, from + delta));
      set(to);
      const after = new Set(ap.radios.flatMap((r) => r.stations));
      if (to <= from) for (const c of after) expect(before.has(c)).toBe(true);
      else for (const c of before) expect(after.has(c)).toBe(true);
    }), { seed: SEED, numRuns: 40 });
  });
});
