/**
 * Where things are: the one place the venue view reads the simulator. A simulated venue has a
 * floor plan (floors, walls, AP and neighbour positions, moving stations); any other
 * venue has none, and the view lays its APs out from their scans instead (topology.ts).
 */
import { positionAt } from '../../simulator/clients/station.js';
import type { Venue } from '../../simulator/venue.js';
import type { Band } from '../protocol/wifi-channels.js';

export interface PlanWall { x1: number; y1: number; x2: number; y2: number; db: number }
export interface PlanFloor { width: number; depth: number; walls: PlanWall[] }
export interface PlacedAp { serial: string; floor: number; x: number; y: number }
export interface PlacedNeighbour { bssid: string; ssid: string; floor: number; x: number; y: number; band: Band; channel: number; width: number; txPower: number }

export interface FloorPlan {
  name: string;
  floors: PlanFloor[];
  aps: PlacedAp[];
  neighbours: PlacedNeighbour[];
}

/**
 * The stations now, as flat arrays (one entry per station present): compact on the wire, where
 * 2,000 stations go out every second. `ap` is an index into the plan's `aps`, -1 when unassociated.
 */
export interface ClientPositions {
  /** Venue time (epoch ms) the positions are for. */
  at: number;
  id: number[];
  floor: number[];
  x: number[];
  y: number[];
  ap: number[];
  band: string[];
}

/** The floor plan of a simulated venue. Walls and positions never change while it runs. */
export function floorPlanOf(v: Venue): FloorPlan {
  const g = v.world.geometry;
  return {
    name: v.name,
    floors: g.floors.map((f, i) => ({
      width: f.width, depth: f.depth,
      walls: g.walls.filter((w) => w.floor === i).map((w) => ({ x1: w.x1, y1: w.y1, x2: w.x2, y2: w.y2, db: w.db })),
    })),
    aps: v.aps.map((a) => ({ serial: a.serial, floor: a.pos.floor, x: a.pos.x, y: a.pos.y })),
    neighbours: v.neighbours.map((n) => ({ bssid: n.bssid, ssid: n.ssid, floor: n.pos.floor, x: n.pos.x, y: n.pos.y, band: n.band, channel: n.channel, width: n.width, txPower: n.txPower })),
  };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Where every present station is now and which AP it is on (positions to 0.1 m). */
export function clientPositions(v: Venue): ClientPositions {
  const t = v.clock.now();
  const out: ClientPositions = { at: t, id: [], floor: [], x: [], y: [], ap: [], band: [] };
  for (const c of v.clients) {
    if (!c.present) continue;
    const p = positionAt(c, t);
    out.id.push(c.id);
    out.floor.push(p.floor);
    out.x.push(round1(p.x));
    out.y.push(round1(p.y));
    out.ap.push(c.ap ? c.ap.index : -1);
    out.band.push(c.radio?.band ?? '');
  }
  return out;
}
