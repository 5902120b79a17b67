import type { IncomingMessage, Server } from 'node:http';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound } from '../../errors.js';
import { normalizeSerial } from '../../protocol/serial.js';
import type { Authenticator } from '../../server/auth.js';
import type { Clock } from '../../protocol/clock.js';
import { CLOSE, type TelemetryRegistry } from '../telemetry.js';
import { errorResponses } from '../../server/schemas.js';
import { awaitTokenFrame } from '../ws-token-frame.js';

/**
 * GET /api/v1/ws_telemetry?uuid=<command UUID>&serialNumber=<serial>: the websocket of a telemetry
 * stream started by POST /device/{serial}/telemetry (docs/upstream.md#events-and-telemetry).
 *
 * - Auth: the /api/v1 bearer token, as every route. Browsers cannot set headers on a websocket,
 *   so `?token=<token>` is accepted too (moved into the Authorization header before routing and
 *   removed from the URL, so it never reaches the request log), and so is a first frame
 *   `token:<token>`, as the OpenWiFi UI sends it: without a header the socket opens and gets
 *   nothing until that frame (src/gateway/ws-token-frame.ts).
 * - Unknown or ended stream: 404 before the upgrade. Each telemetry frame of the device is one
 *   text message (its JSON `data` plus `timestamp`). The server closes with 1000 and a reason
 *   when the stream stops (interval 0 or end of lifetime), 1001 at shutdown, 1013 when the
 *   client cannot keep up. Messages from the client are ignored.
 */
const TelemetryQuery = Type.Object({
  uuid: Type.String({ minLength: 1, description: 'UUID of the telemetry command (the `uuid` of its answer).' }),
  serialNumber: Type.String({ minLength: 1 }),
  token: Type.Optional(Type.String({ description: 'Bearer token, for clients that cannot send the Authorization header.' })),
});
type TelemetryQuery = Static<typeof TelemetryQuery>;

export interface TelemetryRouteDeps {
  telemetry: TelemetryRegistry;
  /** Checks a first-frame token. */
  authenticator: Authenticator;
  clock: Clock;
}

export const WS_TELEMETRY_PATH = '/api/v1/ws_telemetry';

const withQueryToken = new WeakSet<Server>();

/**
 * Runs before @fastify/websocket's own upgrade listener (prepended), hence before the /api/v1
 * auth hook: the only place a query token can become a header without touching that hook.
 */
function acceptQueryToken(server: Server): void {
  if (withQueryToken.has(server)) return;
  withQueryToken.add(server);
  server.prependListener('upgrade', (req: IncomingMessage) => {
    if (!req.url?.startsWith(WS_TELEMETRY_PATH)) return;
    const url = new URL(req.url, 'http://x');
    const token = url.searchParams.get('token');
    if (token === null) return;
    // A header, when sent, wins; the query token is dropped from the URL either way.
    if (!req.headers.authorization && token) req.headers.authorization = `Bearer ${token}`;
    url.searchParams.delete('token');
    req.url = `${url.pathname}${url.search}`;
  });
}

/** Registers @fastify/websocket and the ws_telemetry route on the /api/v1 instance. */
export async function registerTelemetryRoutes(api: FastifyInstance, deps: TelemetryRouteDeps): Promise<void> {
  await api.register(websocket, { options: { maxPayload: 64 * 1024 } });
  acceptQueryToken(api.server);

  api.get<{ Querystring: TelemetryQuery }>('/ws_telemetry', {
    websocket: true,
    config: { firstFrameToken: 'unless-header', openapi: { websocket: true } },
    schema: {
      tags: ['telemetry'], summary: 'The websocket of a telemetry stream (GET with Upgrade: websocket)',
      description: 'Opened with the `uri` that POST /device/{serialNumber}/telemetry answers. The token comes in the Authorization '
        + 'header, the `token` query parameter, or as the first text message `token:<token>`. Each telemetry frame of the device is '
        + 'one text message (its JSON `data` plus `timestamp`); the server closes with 1000 when the stream stops, 1001 at shutdown, '
        + '1013 when the client cannot keep up. An unknown or ended stream is a 404 before the upgrade.',
      querystring: TelemetryQuery,
      response: { 101: Type.Null({ description: 'Switching protocols: the websocket is open.' }), ...errorResponses },
    },
    // Before the upgrade: an unknown stream is a plain 404 envelope, not an opened-then-closed socket.
    preHandler: async (request) => {
      const serial = normalizeSerial(request.query.serialNumber);
      if (!deps.telemetry.has(serial, request.query.uuid)) {
        throw notFound('uuid', `No running websocket telemetry stream ${request.query.uuid} for device ${serial}.`);
      }
    },
  }, (socket, request) => {
    const serial = normalizeSerial(request.query.serialNumber);
    const subscribe = () => {
      const unsubscribe = deps.telemetry.subscribe(serial, request.query.uuid, {
        send: (text) => socket.send(text),
        close: (code, reason) => socket.close(code, reason),
        get bufferedAmount() {
          return socket.bufferedAmount;
        },
      });
      if (!unsubscribe) {
        // The stream ended before the socket could join it.
        socket.close(CLOSE.normal, 'telemetry stream ended');
        return;
      }
      socket.on('close', unsubscribe);
      socket.on('error', unsubscribe);
    };
    // Messages from the client are ignored once it is subscribed.
    if (request.principal) subscribe();
    else awaitTokenFrame(socket, { authenticator: deps.authenticator, clock: deps.clock, onAuthenticated: () => (subscribe(), () => undefined) });
  });
}
