/** Small simulated venues for simulator tests (`venue(seed)`). */
import { VirtualClock } from '../../simulator/clock.js';
import { startClients } from '../../simulator/clients/dynamics.js';
import { SimLink } from '../../simulator/link.js';
import { loadScenario, parseScenario, scenarioStart, type Scenario } from '../../simulator/scenario.js';
import { buildVenue, type Venue } from '../../simulator/venue.js';
import type { LinkEvent } from '../../src/protocol/device-link.js';

export interface SimAp { serial: string; x: number; y: number; ch5?: number; ch2?: number; tx5?: number; tx2?: number; width5?: 20 | 40 | 80 | 160 }

/** An open-plan 100 x 100 m floor with the given APs (EAP101, 5G + 2G), no clients unless asked. */
export function openPlan(aps: SimAp[], opts: {
  seed?: number; clients?: number; sigma?: number; walls?: { from: [number, number]; to: [number, number]; db: number }[];
  /** More of the client group (mobile, sessionMinutes, ...). */
  clientGroup?: Record<string, unknown>;
} = {}): Scenario {
  return parseScenario(JSON.stringify({
    name: 'test-open-plan',
    seed: opts.seed ?? 1,
    intervals: { state: 60, healthcheck: 120, roam: 30 },
    building: { shadowing: { sigma: opts.sigma ?? 0, decorrelation: 10 }, floors: [{ width: 100, depth: 100, walls: opts.walls ?? [] }] },
    ssids: [{ name: 'test', bands: ['2G', '5G'] }],
    aps: aps.map((a) => ({
      serial: a.serial, floor: 0, at: [a.x, a.y],
      radios: [
        { band: '5G', channel: a.ch5 ?? 36, width: a.width5 ?? 80, txPower: a.tx5 ?? 20 },
        { band: '2G', channel: a.ch2 ?? 1, width: 20, txPower: a.tx2 ?? 17 },
      ],
    })),
    clients: opts.clients ? [{ ...opts.clientGroup, count: opts.clients }] : [],
  }), 'test-open-plan.json');
}

/** A venue on its own VirtualClock, stations placed. */
export function venueOf(scenario: Scenario, seed?: number): { venue: Venue; clock: VirtualClock } {
  const clock = new VirtualClock(scenarioStart(scenario));
  const venue = buildVenue(scenario, clock, seed ?? scenario.seed);
  startClients(venue);
  return { venue, clock };
}

/** The lab venue with one SimLink per AP and every link event collected per serial. */
export function labWithLinks(seed?: number) {
  const { scenario } = loadScenario('lab');
  const { venue, clock } = venueOf(scenario, seed);
  const events = new Map<string, LinkEvent[]>();
  const links = venue.aps.map((ap) => {
    const link = new SimLink(venue, ap.serial);
    events.set(ap.serial, []);
    link.subscribe((e) => events.get(ap.serial)!.push(e));
    return link;
  });
  return { venue, clock, links, events };
}
