/**
 * The RRM's Site port (src/rrm/site.ts) for a simulated venue: its floors, origin and the
 * simulator's own path loss (distance, walls, floors, shadowing), so the power figures and
 * location-based TPC see the walls the simulated APs and stations see.
 */
import type { Site, SitePoint } from '../rrm/site.js';
import { frequencyTermDb, geometricLossWithFields } from '../../simulator/world/radio-world.js';
import { shadowField } from '../../simulator/world/shadowing.js';
import type { Venue } from '../../simulator/venue.js';

export function siteOfVenue(v: Venue): Site {
  const w = v.world;
  // A grid scores the same points against every radio: each point's shadowing field is hashed once.
  const fields = new WeakMap<SitePoint, number>();
  const field = (p: SitePoint): number => {
    let f = fields.get(p);
    if (f === undefined) fields.set(p, (f = shadowField(w.shadowing, p)));
    return f;
  };
  return {
    origin: v.origin,
    floors: w.geometry.floors,
    floorHeightM: w.geometry.floorHeightM,
    lossDb: (a, b, frequencyMHz) => geometricLossWithFields(w, a, field(a), b, field(b)) + frequencyTermDb(frequencyMHz),
  };
}
