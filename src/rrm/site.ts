/**
 * The venue as RRM may know it: floors, where the floor plan lies on the earth and a path-loss
 * function with the venue's walls and floors. A port: the composition root builds one from the
 * simulated venue's radio world (src/runtime/sim-site.ts); without one, RRM knows no walls and
 * the power figures that need positions (grid coverage) are not computed.
 *
 * APs are placed from what they report: the state's `gps` (protocol/geo.ts, converted with the
 * site's origin) or, when set, the RRM `location` ([x, y] metres on floor 0).
 */
import { gpsToVenue, type GeoOrigin } from '../protocol/geo.js';
import type { RrmModel } from './model/types.js';

export interface SitePoint { floor: number; x: number; y: number }

export interface Site {
  /** Where the floor plan's (0, 0) corner lies: turns a state's `gps` into floor-plan metres. */
  origin: GeoOrigin;
  /** Floor outlines in metres, index = floor number. */
  floors: readonly { width: number; depth: number }[];
  floorHeightM: number;
  /** Path loss (dB) from `a` to `b` at `frequencyMHz`: distance, walls, floors, as the venue has them. */
  lossDb(a: SitePoint, b: SitePoint, frequencyMHz: number): number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Where an AP is: its RRM `location` when set (x, y on floor 0), else the `gps` of its latest
 * state that has one, placed on the nearest floor. Undefined when neither is known or the point
 * lies off the site's floors.
 */
export function apPosition(site: Site, model: RrmModel, serial: string, location?: readonly number[] | null): SitePoint | undefined {
  if (location && location.length >= 2 && location[0]! >= 0 && location[1]! >= 0) return { floor: 0, x: location[0]!, y: location[1]! };
  const states = model.latestStates[serial] ?? [];
  for (let i = states.length - 1; i >= 0; i--) {
    const gps = states[i]?.gps as { latitude?: unknown; longitude?: unknown; elevation?: unknown } | undefined;
    const lat = num(gps?.latitude);
    const lon = num(gps?.longitude);
    if (lat === undefined || lon === undefined) continue;
    const p = gpsToVenue(site.origin, { latitude: lat, longitude: lon, elevation: num(gps?.elevation) ?? site.origin.elevation ?? 0 });
    const floor = Math.max(0, Math.min(site.floors.length - 1, Math.round(p.z / site.floorHeightM)));
    const f = site.floors[floor]!;
    // A position a little off the plan (rounding) is kept; one far outside is not this site's.
    if (p.x < -1 || p.y < -1 || p.x > f.width + 1 || p.y > f.depth + 1) return undefined;
    return { floor, x: Math.min(f.width, Math.max(0, p.x)), y: Math.min(f.depth, Math.max(0, p.y)) };
  }
  return undefined;
}
