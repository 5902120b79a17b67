import { airtwinError } from '../errors.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../protocol/json-depth.js';

/**
 * A configuration arrives as a JSON string (the spec's type) or as an object; it must be a JSON
 * object. Structural checks cover what airtwin itself reads (uuid, radios); the AP validates the
 * rest and answers `configure` with its own verdict.
 */
export function parseConfiguration(value: unknown, field = 'configuration'): Record<string, unknown> {
  let doc: unknown = value;
  if (typeof value === 'string') {
    if (jsonDepth(value) > MAX_JSON_DEPTH) {
      throw airtwinError('INVALID_CONFIGURATION', field, `${field} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`);
    }
    try {
      doc = JSON.parse(value);
    } catch (e) {
      throw airtwinError('INVALID_CONFIGURATION', field, `${field} is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw airtwinError('INVALID_CONFIGURATION', field, `${field} must be a JSON object.`);
  }
  const obj = doc as Record<string, unknown>;
  if (obj.uuid !== undefined && (typeof obj.uuid !== 'number' || !Number.isInteger(obj.uuid) || obj.uuid < 0)) {
    throw airtwinError('INVALID_CONFIGURATION', `${field}.uuid`, `${field}.uuid must be a non-negative integer.`);
  }
  if (obj.radios !== undefined) {
    if (!Array.isArray(obj.radios)) throw airtwinError('INVALID_CONFIGURATION', `${field}.radios`, `${field}.radios must be an array.`);
    obj.radios.forEach((r, i) => {
      if (typeof r !== 'object' || r === null) throw airtwinError('INVALID_CONFIGURATION', `${field}.radios[${i}]`, `${field}.radios[${i}] must be an object.`);
      const radio = r as Record<string, unknown>;
      if (radio.band !== undefined && !['2G', '5G', '5G-lower', '5G-upper', '6G'].includes(String(radio.band))) {
        throw airtwinError('INVALID_CONFIGURATION', `${field}.radios[${i}].band`, `${field}.radios[${i}].band must be 2G, 5G, 5G-lower, 5G-upper or 6G.`);
      }
      for (const key of ['channel-width', 'tx-power']) {
        if (radio[key] !== undefined && typeof radio[key] !== 'number') {
          throw airtwinError('INVALID_CONFIGURATION', `${field}.radios[${i}].${key}`, `${field}.radios[${i}].${key} must be a number.`);
        }
      }
    });
  }
  return obj;
}
