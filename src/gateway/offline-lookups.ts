import { createRequire } from 'node:module';

/**
 * Offline reference data bundled as npm packages, loaded on first use (5-8 MB each, so a
 * process that never asks pays nothing) and kept for the life of the process. The data is
 * immutable, which is why a module-level memo is fine here (no connection, no clock):
 * - `oui-data`: the IEEE MA-L/MA-M/MA-S registries as JSON (package version = data age).
 * - `geoip-country`: MaxMind GeoLite2 Country, IPv4 and IPv6 (the version's suffix is the build
 *   date, e.g. 5.0.202609260156 = 2026-09-26).
 * Upstream downloads oui.txt every 7 days and calls a paid web API per IP; a twin must
 * work offline and answer the same thing every run, so both come from the lockfile instead.
 */
const require = createRequire(import.meta.url);

let ouiTable: Record<string, string> | undefined;
let geoip: { lookup(ip: string): { country?: string } | null } | undefined;

/** `aa:bb:cc...`, `aa-bb-...`, `aabb.cc..` -> upper-case hex, or undefined if not 6-12 hex digits. */
export function macHex(value: string): string | undefined {
  const hex = value.trim().replace(/[:.-]/g, '').toUpperCase();
  return /^[0-9A-F]{6,12}$/.test(hex) ? hex : undefined;
}

/**
 * The organisation that holds the longest registered prefix of `hex` (MA-S 9 digits, MA-M 7,
 * MA-L 6), first line only (the registry entry also carries the postal address); '' if none.
 */
export function ouiVendor(hex: string): string {
  ouiTable ??= require('oui-data') as Record<string, string>;
  const key = hex.toUpperCase();
  const entry = ouiTable[key.slice(0, 9)] ?? ouiTable[key.slice(0, 7)] ?? ouiTable[key.slice(0, 6)];
  return entry ? entry.split('\n', 1)[0]!.trim() : '';
}

/** ISO 3166-1 alpha-2 code of a public IP; '' for private, reserved or unlisted addresses. */
export function ipCountry(ip: string): string {
  geoip ??= require('geoip-country') as typeof geoip;
  return geoip!.lookup(ip)?.country ?? '';
}
