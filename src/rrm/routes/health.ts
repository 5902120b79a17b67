import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Registry } from '../../server/prom.js';
import type { RrmDeps } from '../deps.js';

const Health = Type.Object({
  status: Type.String({ enum: ['ok'], description: 'ok while the RRM service answers' }),
  uptime: Type.Integer({ description: 'seconds' }),
});

/**
 * GET /health and GET /metrics on the RRM port, outside /api/v1 and without a token, for probes
 * and scrapers that only reach this port. The metrics are the process's: the same as the
 * gateway port's in `serve`, so scrape one of the two.
 */
export async function rrmHealthRoutes(app: FastifyInstance, deps: Pick<RrmDeps, 'clock' | 'startedAt'>, registry: Registry): Promise<void> {
  app.get('/health', { schema: { tags: ['system'], summary: 'Liveness (no token needed)', security: [], response: { 200: Health } } }, async () => ({
    status: 'ok', uptime: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
  }));
  app.get('/metrics', { schema: { tags: ['system'], summary: 'Prometheus metrics of the process (no token needed; docs/metrics.md)', security: [] } }, async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()));
}
