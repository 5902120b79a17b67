import { Type } from 'typebox';
import { envelope, envelopeAnswer, type WireProfile, type WireShapes } from './profile.js';

/**
 * Upstream's numbered answers to token failures (docs/upstream.md#rest-conventions): HTTP 403
 * whose `ErrorCode` is the number, so the OpenWiFi UI logs the operator out (it does on 8 and 9).
 */
const TOKEN_FAILURES: Readonly<Record<string, readonly [number, string]>> = {
  UNAUTHORIZED: [8, 'Invalid token.'],
  TOKEN_EXPIRED: [9, 'Expired token.'],
};

/**
 * The `openwifi` wire: what the OpenWiFi gateway sends and accepts wherever a real client
 * depends on it (docs/wire-profiles.md). Token failures are 403 with upstream's numbers; a
 * DELETE answers 200 with `{Code, Operation, Details}` (upstream's `OK()` has an empty body:
 * the operation result keeps the body valid JSON); query parameters a route does not take are
 * dropped and logged at debug, as upstream ignores them.
 */
export function openwifiWire(shapes: WireShapes = {}): WireProfile {
  const deleted: WireProfile['deleted'] = (request) => ({
    status: 200, body: { Operation: request.method, Details: 'Command completed.', Code: 0 },
  });
  return {
    name: 'openwifi',
    shapes,
    error: (e, request) => {
      const token = TOKEN_FAILURES[e.code];
      if (token) {
        const [number, text] = token;
        const extra = e.message === text ? '' : ` (${e.message})`;
        return { status: 403, body: envelope(number, request.method, `${number}: ${text}${extra}`) };
      }
      // Upstream answers success when a DELETE finds nothing (default configuration, capabilities).
      if (e.code === 'NOTHING_TO_DELETE') return deleted(request);
      return envelopeAnswer(e);
    },
    deleted,
    deleteResponses: { 200: Type.Ref('OperationResult') },
    undeclaredQuery: (names, request) => {
      request.log.debug({ names }, 'query parameters this route does not take: ignored');
      const query = request.query as Record<string, unknown>;
      for (const name of names) delete query[name];
    },
  };
}
