import type { Clock } from '../protocol/clock.js';
import type { Store } from '../store/duckdb.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import type { Fleet } from '../../actors/fleet.js';
import type { Venue } from '../../simulator/venue.js';
import type { ScorePoint } from './score-series.js';

/** Everything the venue view reads; built by the composition root (src/runtime/serve.ts). */
export interface VenueViewDeps {
  /** The twin's clock (time stamps, chart ranges). */
  clock: Clock;
  /** Wall time: the live feed's tick (a browser watches in wall time). */
  wall: Clock;
  store: Store;
  fleet: Fleet;
  /** The APs the view shows are the gateway's device records. */
  devices: DevicesRepo;
  /** The simulated venue, when there is one: floor plan, stations, heat maps. Absent: topology view. */
  venue?: Venue;
  /** The RRM zones (its topology): serial lists for the charts. */
  zones(): Readonly<Record<string, readonly string[]>>;
  /** Where the RRM service listens, once it does (the page's RRM panel calls it). */
  rrm(): { port: number; tls: boolean } | undefined;
  /**
   * The zone's CCI score over time (epoch s), from the RRM's kept runs: predicted before/after per
   * run, measured after an applied run (score-series.ts). Absent: the charts go without it.
   */
  scoreSeries?: (zone: string, from: number, to: number) => Promise<ScorePoint[]>;
}
