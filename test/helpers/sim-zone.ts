/**
 * A shipped (or any) venue as the RRM sees it, without servers: the simulated venue runs a few
 * minutes of virtual time with its stations, then each AP's state, scan, capabilities and
 * configuration become the RRM model, as a collector would gather them. The site port is the
 * venue's own radio world. Used by the power tests and bench/rrm-power.ts.
 */
import { VirtualClock } from '../../simulator/clock.js';
import { startClients } from '../../simulator/clients/dynamics.js';
import { stateDocument } from '../../simulator/ap/frames.js';
import { scanEntries } from '../../simulator/ap/scan.js';
import { loadScenario, scenarioStart, type Scenario } from '../../simulator/scenario.js';
import { buildVenue, type Venue } from '../../simulator/venue.js';
import { siteOfVenue } from '../../src/runtime/sim-site.js';
import { defaultEffectiveConfig } from '../../src/rrm/config/layered.js';
import { buildModel } from '../../src/rrm/model/build.js';
import type { RrmModel } from '../../src/rrm/model/types.js';
import type { EffectiveConfig } from '../../src/rrm/schemas/device-config.js';
import type { Site } from '../../src/rrm/site.js';

export interface SimZone {
  venue: Venue;
  clock: VirtualClock;
  model: RrmModel;
  serials: string[];
  configs: Map<string, EffectiveConfig>;
  site: Site;
}

/** The model of a running venue now (one state and one scan per AP). */
export function venueRrmModel(v: Venue): RrmModel {
  const t = v.clock.now();
  return buildModel(v.aps.map((ap) => ({
    serial: ap.serial,
    states: [{ recorded: t, state: stateDocument(v, ap) }],
    scans: [{ recorded: t, entries: scanEntries(v, ap) }],
    capabilities: ap.capabilities,
    activeConfig: {
      radios: ap.radios.filter((r) => r.enabled).map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.txPower, country: v.country })),
    },
  })));
}

/** `scenario` (a shipped name or a Scenario) with `seed`, after `minutes` of virtual time. */
export function simZone(scenario: string | Scenario, seed: number, minutes = 2): SimZone {
  const s = typeof scenario === 'string' ? loadScenario(scenario).scenario : scenario;
  const clock = new VirtualClock(scenarioStart(s));
  const venue = buildVenue(s, clock, seed);
  startClients(venue);
  clock.runUntil(clock.now() + minutes * 60_000);
  const serials = venue.aps.map((a) => a.serial);
  return {
    venue, clock, model: venueRrmModel(venue), serials,
    configs: new Map(serials.map((x) => [x, defaultEffectiveConfig()])), site: siteOfVenue(venue),
  };
}
