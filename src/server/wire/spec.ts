import { Type } from 'typebox';
import { envelopeAnswer, type WireProfile, type WireShapes } from './profile.js';
import { unknownQueryError } from '../teaching-errors.js';

/**
 * The `spec` wire: the API documents literally. 401 with `WWW-Authenticate` for a missing,
 * invalid or expired token; 204 with no body for a DELETE; 400 for a query parameter the route
 * does not take; results as the route made them (JSON documents as text where the spec says string).
 */
export function specWire(shapes: WireShapes = {}): WireProfile {
  return {
    name: 'spec',
    shapes,
    error: (e) => {
      const answer = envelopeAnswer(e);
      return e.status === 401 ? { ...answer, headers: { 'WWW-Authenticate': 'Bearer realm="airtwin"' } } : answer;
    },
    deleted: () => ({ status: 204 }),
    deleteResponses: { 204: Type.Null({ description: 'Deleted; no content.' }) },
    undeclaredQuery: (names, request) => {
      throw unknownQueryError(names, request);
    },
  };
}
