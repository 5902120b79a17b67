/**
 * A client station: where it is (static or walking a random-waypoint path), which BSS it is on,
 * and its traffic counters. Position is a pure function of time between waypoints, so it is
 * only computed when someone needs it (a state, a roam check).
 */
import type { Rng } from '../rng.js';
import type { Position } from '../world/geometry.js';
import type { SimAp, SimRadio } from '../ap/ap-state.js';

export interface SimClient {
  id: number;
  mac: string;
  ipv4: string;
  rng: Rng;
  dualBand: boolean;
  nss: number;
  /** Mean offered load, kbit/s (down + up). */
  trafficKbps: number;
  /** Station transmit power, dBm (what the AP hears: rssi = this - loss). */
  txPowerDbm: number;
  mobile: boolean;
  speed: number;
  floors: readonly number[];
  sessionMs: number;
  awayMs: number;
  // movement: from -> to, leaving `from` at `legStart`
  from: Position;
  to: Position;
  legStart: number;
  present: boolean;
  /** A station that stands still has a look at its link pending (clients/dynamics.ts `watch`). */
  watching?: boolean;
  ap?: SimAp;
  radio?: SimRadio;
  ssidIndex: number;
  assocAt: number;
  lastTrafficAt: number;
  /** Last computed link to its AP (same time, same radio epoch => same answer). */
  link?: { t: number; epoch: number; radio: unknown; down: number; up: number; rate: import('./mcs.js').PhyRate };
  c: { rxBytes: number; txBytes: number; rxPackets: number; txPackets: number; retries: number; failed: number; rxDurUs: number; txDurUs: number };
}

/** Position at time t (ms). Walks the current leg at `speed` m/s and waits at its end. */
export function positionAt(c: SimClient, t: number): Position {
  if (!c.mobile || c.from === c.to) return c.to;
  const legM = Math.hypot(c.to.x - c.from.x, c.to.y - c.from.y);
  const walked = ((t - c.legStart) / 1000) * c.speed;
  if (legM === 0 || walked >= legM) return c.to;
  const f = walked < 0 ? 0 : walked / legM;
  return { floor: c.to.floor, x: c.from.x + (c.to.x - c.from.x) * f, y: c.from.y + (c.to.y - c.from.y) * f };
}

/** True when the station has reached the end of its leg at time t. */
export function legDone(c: SimClient, t: number): boolean {
  const legM = Math.hypot(c.to.x - c.from.x, c.to.y - c.from.y);
  return ((t - c.legStart) / 1000) * c.speed >= legM;
}
