/**
 * `airtwin edge --metrics-port`: the edge's Prometheus metrics (docs/metrics.md) on a small HTTP
 * listener of its own, apart from the device port (which answers websocket upgrades only).
 * Counters are read from the edge's stats at each scrape.
 */
import { createServer, type Server } from 'node:http';
import { counterFrom, gaugeFrom, processRegistry, type Registry } from '../../server/prom.js';
import type { Edge } from './edge-server.js';

type Stats = ReturnType<Edge['stats']>;

const COUNTERS: [keyof Stats, string, string][] = [
  ['framesUp', 'airtwin_edge_frames_in_total', 'Frames from APs published to NATS'],
  ['framesDown', 'airtwin_edge_frames_out_total', 'Frames from serve written to AP sockets'],
  ['protocolErrors', 'airtwin_edge_malformed_frames_total', 'Frames from APs that broke the protocol (not JSON, unknown method, bad compress_64, refused by NATS)'],
  ['droppedForErrors', 'airtwin_edge_protocol_error_disconnects_total', 'APs disconnected for too many protocol errors'],
  ['rateLimited', 'airtwin_edge_rate_limited_frames_total', 'Frames dropped for being over their AP\'s budget'],
  ['droppedForRate', 'airtwin_edge_rate_limit_disconnects_total', 'APs disconnected for staying over their budget'],
  ['publishFailures', 'airtwin_edge_publish_failures_total', 'Publishes NATS refused (over max_payload, connection closing)'],
  ['heldSent', 'airtwin_edge_outage_sent_total', 'Frames held through a NATS outage and sent when it was back'],
  ['handshakeTimeouts', 'airtwin_edge_handshake_timeouts_total', 'Connections closed for not completing TLS, the upgrade or the connect frame in time'],
  ['refusedConnections', 'airtwin_edge_refused_connections_total', 'Connections refused because --max-connections were open'],
];

const DROPPED: [keyof Stats, string][] = [['rateLimited', 'rate_limit'], ['publishFailures', 'publish_failed'], ['lostInOutage', 'outage_buffer_full']];

export interface EdgeMetricsOptions {
  edge: Edge;
  port: number;
  host: string;
}

export interface EdgeMetrics {
  url: string;
  registry: Registry;
  close(): Promise<void>;
}

/** The edge's registry: process metrics and the edge's counters, gauges and link state. */
export function edgeRegistry(edge: Edge): Registry {
  const registry = processRegistry();
  const stat = (k: keyof Stats): number => Number(edge.stats()[k]);
  for (const [key, name, help] of COUNTERS) counterFrom(registry, name, help, () => stat(key));
  counterFrom(registry, 'airtwin_edge_frames_dropped_total', 'Frames from APs that did not reach NATS, by reason',
    () => DROPPED.map(([key, reason]) => [{ reason }, stat(key)]), ['reason']);
  gaugeFrom(registry, 'airtwin_edge_sessions', 'APs with a known serial on this edge', () => stat('sessions'));
  gaugeFrom(registry, 'airtwin_edge_sockets', 'Open AP websockets (also those before their connect)', () => stat('sockets'));
  gaugeFrom(registry, 'airtwin_edge_outage_held', 'Frames held now while NATS is down', () => stat('held'));
  gaugeFrom(registry, 'airtwin_edge_nats_connected', 'NATS link state (1 connected, 0 down or closed)', () => (edge.natsConnected() ? 1 : 0));
  return registry;
}

/** Serves GET /metrics (and GET /health) on `host:port`. */
export async function startEdgeMetrics(opts: EdgeMetricsOptions): Promise<EdgeMetrics> {
  const registry = edgeRegistry(opts.edge);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    if (path === '/health') {
      const ok = opts.edge.natsConnected();
      return void res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'degraded', sessions: opts.edge.stats().sessions }));
    }
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics or /health\n');
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  // A scraper that stalls must not hold a socket for ever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    url: `http://${opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host}:${port}`,
    registry,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
