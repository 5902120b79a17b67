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

const Health = Type.Object({
  status: Type.String({ enum: ['ok', 'degraded'], description: 'degraded when a link is not connected or ingest writes fail' }),
  uptime: Type.Integer({ description: 'seconds' }),
  devices: Type.Object({ known: Type.Integer(), connected: Type.Integer() }),
  ingest: Type.Object({ rowsQueued: Type.Integer(), rowsWritten: Type.Integer(), failures: Type.Integer(), rowsRejected: Type.Integer(), lastWriteAt: Type.Integer() }),
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
    const degraded = Object.values(links).some((l) => l.state !== 'connected') || ingest.rowsRejected > 0;
    return {
      status: degraded ? 'degraded' : 'ok',
      uptime: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
      devices: { known: deps.devices.size, connected: deps.status.connectionStatistics().connectedDevices },
      ingest: { rowsQueued: ingest.rowsQueued, rowsWritten: ingest.rowsWritten, failures: ingest.failures, rowsRejected: ingest.rowsRejected, lastWriteAt: ingest.lastWriteAt },
      links,
    };
  });
  const registry = sources.registry ?? new Registry();
  const events = registerServeMetrics(registry, deps, sources);
  app.addHook('onClose', async () => events.unsubscribe());
  app.get('/metrics', { schema: { tags: ['system'], summary: 'Prometheus metrics (no token needed; docs/metrics.md)', security: [] } }, async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()));
}
