import { Type } from 'typebox';
import { badRequest } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A path parameter holding a UUID (checked by `parseUuid`, so the 400 names the field). */
export const UuidParam = <K extends string>(name: K) =>
  Type.Object({ [name]: Type.String({ description: 'A UUID (8-4-4-4-12 hex digits).' }) } as Record<K, ReturnType<typeof Type.String>>);

/** spec: commandUUID and uuid are UUID format; anything else is 400, an unknown one 404. */
export function parseUuid(value: string, field: string): string {
  const v = value.trim().toLowerCase();
  if (!UUID.test(v)) throw badRequest(field, `${JSON.stringify(value)} is not a UUID.`);
  return v;
}

/** Date filters are inclusive epoch seconds; an empty range is a mistake worth a 400. */
export function checkRange(q: { startDate?: number; endDate?: number }): void {
  if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) {
    throw badRequest('startDate', `startDate ${q.startDate} is after endDate ${q.endDate}.`);
  }
}
