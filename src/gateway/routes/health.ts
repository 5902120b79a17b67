import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { IngestMetrics } from '../../pipelines/metrics.js';
import { Registry } from '../../server/prom.js';
import type { GatewayDeps } from '../deps.js';
import { registerServeMetrics } from '../metrics.js';

/** What a probe sees of the process: the ingest backlog and each link's state. */
export interface HealthSources {
  ingest: () => IngestMetrics;
  /** Link adapters by name (e.g. `nats`), each answering its own status object. */
  links: () => Record<string, { state: string; [k: string]: unknown }>;
  /** Where /metrics comes from (serve: one with the process metrics and request durations); default a registry of its own. */
  registry?: Registry;
}

/** How long after a row DuckDB refused /health says degraded. */
const REJECTED_DEGRADES_MS = 5 * 60_000;

const Health = Type.Object({
  status: Type.String({ enum: ['ok', 'degraded'], description: 'degraded while a link is not connected, the disk is full, or within 5 minutes of a row DuckDB refused' }),
  uptime: Type.Integer({ description: 'seconds' }),
  devices: Type.Object({ known: Type.Integer(), connected: Type.Integer() }),
  ingest: Type.Object({
    rowsQueued: Type.Integer(), rowsWritten: Type.Integer(), failures: Type.Integer(), rowsRejected: Type.Integer(), lastWriteAt: Type.Integer(),
    diskFull: Type.Boolean({ description: 'the last write found the disk full: rows are held and retried' }),
    rowsHeld: Type.Integer({ description: 'rows held in memory until the disk has room' }),
    rowsDropped: Type.Integer({ description: 'rows dropped because the held ones reached their bound' }),
  }),
  links: Type.Record(Type.String(), Type.Object({ state: Type.String() }, { additionalProperties: true })),
});

/**
 * GET /health (JSON) and GET /metrics (Prometheus text), outside /api/v1 and without a token,
 * as load-balancer probes and scrapers expect. They reveal counts only, never device data.
 */
export async function healthRoutes(app: FastifyInstance, deps: GatewayDeps, sources: HealthSources): Promise<void> {
  app.get('/health', { schema: { tags: ['system'], summary: 'Liveness, ingest backlog and link states (no token needed)', security: [], response: { 200: Health } } }, async () => {
    const ingest = sources.ingest();
    const links = sources.links();
    const now = deps.clock.now();
    // Recovers by itself: a full disk for as long as it lasts, a refused row for a while after.
    const rejectedLately = ingest.lastRejectedAt > 0 && now - ingest.lastRejectedAt < REJECTED_DEGRADES_MS;
    const degraded = Object.values(links).some((l) => l.state !== 'connected') || ingest.diskFull || rejectedLately;
    return {
      status: degraded ? 'degraded' : 'ok',
      uptime: Math.floor((now - deps.startedAt) / 1000),
      devices: { known: deps.devices.size, connected: deps.status.connectionStatistics().connectedDevices },
      ingest: {
        rowsQueued: ingest.rowsQueued, rowsWritten: ingest.rowsWritten, failures: ingest.failures, rowsRejected: ingest.rowsRejected, lastWriteAt: ingest.lastWriteAt,
        diskFull: ingest.diskFull, rowsHeld: ingest.rowsHeld, rowsDropped: ingest.rowsDropped,
      },
      links,
    };
  });
  const registry = sources.registry ?? new Registry();
  const events = registerServeMetrics(registry, deps, sources);
  app.addHook('onClose', async () => events.unsubscribe());
  app.get('/metrics', { schema: { tags: ['system'], summary: 'Prometheus metrics (no token needed; docs/metrics.md)', security: [] } }, async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()));
}
