import { invalidSerial } from '../errors.js';

const SERIAL = /^[0-9a-f]{12}$/;

/**
 * Serial numbers are 12 hex digits (an AP's base MAC), case-insensitive, with optional
 * ':' or '-' separators; stored lowercase. Anything else is a 400 naming `field`.
 */
export function normalizeSerial(value: unknown, field = 'serialNumber'): string {
  if (typeof value !== 'string') throw invalidSerial(field, value);
  const s = value.trim().toLowerCase();
  const bare = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/.test(s) ? s.replace(/[:-]/g, '') : s;
  if (!SERIAL.test(bare)) throw invalidSerial(field, value);
  return bare;
}

/**
 * The key a serial is filed under when it is not being validated (actor maps, recordings):
 * trimmed, lowercase, without ':' or '-'. Validation is `normalizeSerial`'s job.
 */
export function serialKey(raw: string): string {
  return raw.trim().toLowerCase().replace(/[:-]/g, '');
}

export function isSerial(value: unknown): boolean {
  return parseSerial(value) !== undefined;
}

/**
 * The stored form of `value` when it is a serial, else undefined (no error built). A serial
 * already in its stored form, as every line of our recordings has it, takes one regex test.
 */
export function parseSerial(value: unknown): string | undefined {
  if (typeof value === 'string' && SERIAL.test(value)) return value;
  try {
    return normalizeSerial(value);
  } catch {
    return undefined;
  }
}

/** `aabbccddeeff` -> `aa:bb:cc:dd:ee:ff`. */
export function serialToMac(serial: string): string {
  return serial.match(/../g)!.join(':');
}
