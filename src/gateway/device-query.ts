import { badRequest } from '../errors.js';
import type { Device } from '../store/records.js';

/** Fields a list may be ordered by or filtered on with `field:value` (GET /devices?orderSpec=true lists them). */
export const ORDERABLE_FIELDS = [
  'serialNumber', 'deviceType', 'macAddress', 'manufacturer', 'UUID', 'createdTimestamp', 'lastConfigurationChange',
  'lastConfigurationDownload', 'firmware', 'owner', 'location', 'venue', 'subscriber', 'entity', 'modified', 'locale',
  'compatible', 'lastFWUpdate', 'lastRecordedContact', 'simulated', 'connectReason',
] as const satisfies readonly (keyof Device)[];
type Field = (typeof ORDERABLE_FIELDS)[number];

const FIELD_BY_LOWER = new Map<string, Field>(ORDERABLE_FIELDS.map((f) => [f.toLowerCase(), f]));
/** Fields a bare filter word is matched against. */
const FREE_TEXT: Field[] = ['serialNumber', 'macAddress', 'manufacturer', 'venue', 'firmware'];

type Predicate = (d: Omit<Device, 'blackListed'>) => boolean;

/**
 * Filter syntax (documented in the README): terms separated by spaces or commas, all must match.
 * - a bare word matches, case-insensitively, a substring of serial, MAC (with or without ':'),
 *   manufacturer, venue, firmware or any note;
 * - `field:value` matches one field: a case-insensitive substring for text fields, equality for
 *   numbers and booleans. An unknown field is a 400 naming it.
 */
export function parseFilter(filter: string | undefined): Predicate {
  if (!filter || !filter.trim()) return () => true;
  const predicates: Predicate[] = filter.split(/[\s,]+/).filter(Boolean).map((term) => {
    const colon = term.indexOf(':');
    // A MAC like aa:bb:cc… is a bare word, not field:value.
    if (colon > 0 && !/^[0-9a-f]{2}(:[0-9a-f]{2})+$/i.test(term)) {
      const name = term.slice(0, colon);
      const field = FIELD_BY_LOWER.get(name.toLowerCase());
      if (!field) throw badRequest('filter', `Unknown filter field '${name}'. Filterable fields: ${ORDERABLE_FIELDS.join(', ')}.`);
      const value = term.slice(colon + 1).toLowerCase();
      return (d) => {
        const v = d[field];
        if (typeof v === 'string') return v.toLowerCase().includes(value);
        return String(v).toLowerCase() === value;
      };
    }
    const word = term.toLowerCase();
    const bare = word.replace(/[:-]/g, '');
    return (d) =>
      FREE_TEXT.some((f) => String(d[f]).toLowerCase().includes(word) || String(d[f]).toLowerCase().replace(/[:-]/g, '').includes(bare))
      || d.notes.some((n) => n.note.toLowerCase().includes(word));
  });
  return (d) => predicates.every((p) => p(d));
}

export type Comparator = (a: Omit<Device, 'blackListed'>, b: Omit<Device, 'blackListed'>) => number;

/** `field:a|d,...`; default serialNumber ascending. An unknown field or direction is a 400. */
export function parseOrderBy(orderBy: string | undefined): Comparator {
  const keys: { field: Field; dir: 1 | -1 }[] = [];
  for (const item of (orderBy ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name = '', dir = 'a', extra] = item.split(':');
    const field = FIELD_BY_LOWER.get(name.toLowerCase());
    if (!field || extra !== undefined || (dir !== 'a' && dir !== 'd')) {
      throw badRequest('orderBy', `Invalid orderBy item '${item}': expected field:a or field:d with field one of ${ORDERABLE_FIELDS.join(', ')}.`);
    }
    keys.push({ field, dir: dir === 'a' ? 1 : -1 });
  }
  if (!keys.some((k) => k.field === 'serialNumber')) keys.push({ field: 'serialNumber', dir: 1 });
  return (a, b) => {
    for (const { field, dir } of keys) {
      const x = a[field];
      const y = b[field];
      if (x === y) continue;
      return (x < y ? -1 : 1) * dir;
    }
    return 0;
  };
}
