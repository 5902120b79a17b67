/**
 * Venue geometry: floors, walls and positions, and what a straight radio path crosses.
 * Plain data and pure functions: the venue is built once from the scenario and never mutated.
 */

export interface Position { floor: number; x: number; y: number }

/**
 * Typical attenuation per wall crossing at 2.4-5 GHz, in dB. Sources: IEEE 802.11ax TGax
 * enterprise model uses 7 dB per (office) wall (doc 11-14/0980, docs/upstream.md#radio-physics); the other
 * types follow the usual survey-planning figures (drywall ~3, glass ~2-4, brick ~8-10, concrete
 * ~12-15, elevator/metal ~20+). A scenario may override any value.
 */
export const DEFAULT_WALL_DB: Readonly<Record<string, number>> = {
  drywall: 3,
  glass: 3,
  wood: 4,
  office: 7,
  brick: 10,
  concrete: 14,
  metal: 25,
};

export interface Wall {
  floor: number;
  x1: number; y1: number; x2: number; y2: number;
  /** Loss in dB for one crossing. */
  db: number;
}

export interface Geometry {
  /** Floor outlines, index = floor number. */
  floors: readonly { width: number; depth: number }[];
  walls: readonly Wall[];
  /** Storey height in metres (vertical distance between floors). */
  floorHeightM: number;
  /**
   * Loss per floor crossed, dB. ITU-R P.1238 floor penetration factor for offices is about
   * 14-16 dB for one floor at 2-5 GHz; 15 dB is used unless the scenario says otherwise.
   */
  floorLossDb: number;
}

/** 3-D distance in metres, never below 1 m (the path-loss models are defined from 1 m). */
export function distanceM(g: Geometry, a: Position, b: Position): number {
  const dz = (a.floor - b.floor) * g.floorHeightM;
  const d = Math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2 + dz * dz);
  return d < 1 ? 1 : d;
}

/** True when segments p1-p2 and q1-q2 cross (touching endpoints count as crossing). */
function segmentsCross(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx);
  const d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx);
  const d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  const d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0) || d1 === 0 || d2 === 0)
    && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0) || d3 === 0 || d4 === 0)
    && !(d1 === 0 && d2 === 0 && d3 === 0 && d4 === 0 && !overlapCollinear(ax, ay, bx, by, cx, cy, dx, dy));
}

function overlapCollinear(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const within = (p: number, q: number, r: number): boolean => Math.min(p, q) <= r && r <= Math.max(p, q);
  return (within(ax, bx, cx) && within(ay, by, cy)) || (within(ax, bx, dx) && within(ay, by, dy))
    || (within(cx, dx, ax) && within(cy, dy, ay));
}

/**
 * Wall and floor loss (dB) on the straight path a-b. Walls count on the floors at both ends
 * (the path is projected on each; a wall is counted once). Symmetric in a and b.
 */
export function obstructionDb(g: Geometry, a: Position, b: Position): number {
  let db = Math.abs(a.floor - b.floor) * g.floorLossDb;
  for (const w of g.walls) {
    if (w.floor !== a.floor && w.floor !== b.floor) continue;
    // Order the endpoints so the orientation tests are exactly symmetric in (a, b).
    const [p, q] = a.x < b.x || (a.x === b.x && a.y <= b.y) ? [a, b] : [b, a];
    if (segmentsCross(p.x, p.y, q.x, q.y, w.x1, w.y1, w.x2, w.y2)) db += w.db;
  }
  return db;
}
