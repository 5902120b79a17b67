import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../protocol/clock.js';
import type { Authenticator } from '../../server/auth.js';
import type { UiNotifications } from '../ui-notifications.js';
import { awaitTokenFrame } from '../ws-token-frame.js';

export interface UiWebsocketDeps {
  notifications: UiNotifications;
  authenticator: Authenticator;
  clock: Clock;
}

/**
 * GET /api/v1/ws: the OpenWiFi UI's notification socket (src/gateway/ui-notifications.ts). The
 * upgrade needs no header (the UI cannot send one): the client's first frame is `token:<t>`.
 * Registered after @fastify/websocket (registerTelemetryRoutes registers it).
 */
export async function uiWebsocketRoutes(api: FastifyInstance, deps: UiWebsocketDeps): Promise<void> {
  api.get('/ws', { websocket: true, config: { firstFrameToken: 'only' }, schema: { hide: true } }, (socket) => {
    awaitTokenFrame(socket, {
      authenticator: deps.authenticator, clock: deps.clock,
      onAuthenticated: () => {
        const member = deps.notifications.join({
          send: (text) => socket.send(text),
          close: (code, reason) => socket.close(code, reason),
          get bufferedAmount() {
            return socket.bufferedAmount;
          },
        });
        socket.on('close', member.leave);
        socket.on('error', member.leave);
        return member.message;
      },
    });
  });
}
