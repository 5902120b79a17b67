import type { IncomingMessage, Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { LiveFeed } from './live-feed.js';

/**
 * GET /api/v1/venue/live: the view's websocket. Server to page only: LiveMessage objects as
 * JSON text (live-feed.ts); messages from the page are ignored. Auth: the /api/v1 bearer token;
 * a browser cannot set headers on a websocket, so `?token=` is taken instead, moved into the
 * Authorization header before routing and dropped from the URL (it never reaches the log).
 */
export const LIVE_PATH = '/api/v1/venue/live';

const patched = new WeakSet<Server>();

function acceptQueryToken(server: Server): void {
  if (patched.has(server)) return;
  patched.add(server);
  server.prependListener('upgrade', (req: IncomingMessage) => {
    if (req.url?.split('?')[0] !== LIVE_PATH) return;
    const url = new URL(req.url, 'http://x');
    const token = url.searchParams.get('token');
    if (token === null) return;
    if (!req.headers.authorization && token) req.headers.authorization = `Bearer ${token}`;
    url.searchParams.delete('token');
    req.url = `${url.pathname}${url.search}`;
  });
}

/** Needs @fastify/websocket on `api` (the gateway registers it on its /api/v1 instance). */
export async function liveRoute(api: FastifyInstance, feed: LiveFeed): Promise<void> {
  acceptQueryToken(api.server);
  api.get('/venue/live', { websocket: true, schema: { hide: true } }, (socket) => {
    const unsubscribe = feed.subscribe({
      send: (text) => socket.send(text),
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
    });
    socket.on('close', unsubscribe);
    socket.on('error', unsubscribe);
  });
}
