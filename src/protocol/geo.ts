/**
 * An AP's position as it reports it: the state document's `gps` object
 * `{latitude, longitude, elevation}` (uCentral state schema `gps`, fw `system/state/gps.uc`,
 * filled from the AP's GPS receiver). A venue's floor plan is in metres (x east, y north, from its
 * south-west corner); `origin` is where that corner lies on the earth. Both directions use the
 * same local flat-earth (equirectangular) projection around the origin, so a position survives
 * the round trip to well under a centimetre over a venue's few hundred metres.
 *
 * The RRM's `location` is `[x, y]` in metres; `gpsToVenue` gives it back from what an AP reports.
 */

export interface GeoOrigin {
  /** Degrees, north positive. */
  latitude: number;
  /** Degrees, east positive. */
  longitude: number;
  /** Metres above sea level of the ground floor (default 0). */
  elevation?: number;
}

/** The state's `gps` object. */
export interface GpsPosition { latitude: number; longitude: number; elevation: number }

/** Mean earth radius (IUGG), metres. */
const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;
/** 1e-7 degree is ~1.1 cm: the resolution GPS receivers report at. */
const round7 = (deg: number): number => Math.round(deg * 1e7) / 1e7;

const metresPerDegree = (origin: GeoOrigin) => {
  const lat = EARTH_RADIUS_M * RAD;
  return { lat, lon: lat * Math.cos(origin.latitude * RAD) };
};

/** The `gps` object of a point `x` m east, `y` m north and `z` m above the origin. */
export function venueToGps(origin: GeoOrigin, x: number, y: number, z = 0): GpsPosition {
  const m = metresPerDegree(origin);
  return {
    latitude: round7(origin.latitude + y / m.lat),
    longitude: round7(origin.longitude + x / m.lon),
    elevation: Math.round(((origin.elevation ?? 0) + z) * 10) / 10,
  };
}

/** Metres east (`x`), north (`y`) and up (`z`) of the origin for a reported `gps` object. */
export function gpsToVenue(origin: GeoOrigin, gps: GpsPosition): { x: number; y: number; z: number } {
  const m = metresPerDegree(origin);
  return {
    x: (gps.longitude - origin.longitude) * m.lon,
    y: (gps.latitude - origin.latitude) * m.lat,
    z: gps.elevation - (origin.elevation ?? 0),
  };
}
