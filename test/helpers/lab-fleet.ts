/**
 * The `lab` venue run by real device actors on SimLinks, all on one VirtualClock, with the
 * command service on an in-memory store: the wiring harness of actor, ingest and record tests.
 */
import { Fleet, type FleetEvent } from '../../actors/fleet.js';
import { CommandService } from '../../actors/command-service.js';
import { VirtualClock } from '../../simulator/clock.js';
import { startClients } from '../../simulator/clients/dynamics.js';
import { SimLink } from '../../simulator/link.js';
import { loadScenario, scenarioStart } from '../../simulator/scenario.js';
import { buildVenue } from '../../simulator/venue.js';
import type { DeviceLink } from '../../src/protocol/device-link.js';
import { flush } from './fake-link.js';
import { MemoryCommandStore } from './memory-command-store.js';

export interface LabFleetOptions {
  seed?: number;
  /** The clock to run on (default: a VirtualClock at the scenario's start). */
  clock?: VirtualClock;
  /** Decorates each AP's link before the fleet gets it (e.g. a recorder). */
  wrap?: (link: DeviceLink) => DeviceLink;
  /** Runs after the fleet exists and before any AP connects (subscribe pipelines here). */
  beforeAttach?: (fleet: Fleet, clock: VirtualClock) => void;
}

export function labFleet(opts: LabFleetOptions = {}) {
  const { scenario } = loadScenario('lab');
  const clock = opts.clock ?? new VirtualClock(scenarioStart(scenario));
  const venue = buildVenue(scenario, clock, opts.seed ?? scenario.seed);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const fleet = new Fleet({ clock, newId });
  const events: FleetEvent[] = [];
  fleet.events$.subscribe((e) => events.push(e));
  const commandStore = new MemoryCommandStore();
  const svc = new CommandService({ fleet, store: commandStore, clock, newId });
  opts.beforeAttach?.(fleet, clock);
  for (const ap of venue.aps) {
    const link = new SimLink(venue, ap.serial);
    fleet.attach(opts.wrap ? opts.wrap(link) : link);
  }
  startClients(venue);
  /** Advance virtual time in 1 s steps, letting promise callbacks run between steps. */
  const advance = async (ms: number) => {
    const end = clock.now() + ms;
    while (clock.now() < end) {
      clock.runUntil(Math.min(end, clock.now() + 1000));
      await flush();
    }
  };
  /** Advance virtual time until `p` settles (at most 300 simulated seconds). */
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    void p.then(() => { done = true; }, () => { done = true; });
    for (let t = 0; !done && t < 300_000; t += 1000) await advance(1000);
    return p;
  };
  return { clock, venue, fleet, events, svc, commandStore, advance, settle, serials: venue.aps.map((a) => a.serial) };
}
