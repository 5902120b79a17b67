import type { FastifyInstance } from 'fastify';
import { buildServiceApp, registerApi } from '../server/build-app.js';
import type { HttpLimits } from '../server/http-limits.js';
import type { Authenticator } from '../server/auth.js';
import { systemRoutes } from '../server/system-routes.js';
import type { WireName } from '../server/wire/profile.js';
import { wireProfile } from '../server/wire/install.js';
import type { RrmDeps } from './deps.js';
import { rrmRoutes } from './routes/rrm.js';
import { rrmHealthRoutes } from './routes/health.js';
import { Registry, type HttpMetrics } from '../server/prom.js';

export interface RrmOptions {
  authenticator: Authenticator;
  bodyLimit: number;
  /** Timeouts and connection cap of the listener (src/server/http-limits.ts). */
  limits?: HttpLimits;
  certificateFiles: string[];
  https?: { cert: Buffer; key: Buffer };
  wire: WireName;
  /** Request durations, timed on this app too. */
  httpMetrics?: HttpMetrics;
  /** What GET /metrics on the RRM port shows (serve: the process's registry, the same as the gateway's). */
  registry?: Registry;
}

/** The RRM service as a Fastify instance, not yet listening. */
export async function buildRrm(deps: RrmDeps, opts: RrmOptions): Promise<FastifyInstance> {
  const app = await buildServiceApp({
    name: 'airtwin RRM service',
    version: deps.version,
    description: 'Channel and transmit-power optimisers, layered device configuration, topology and the RRM data model.',
    tag: 'rrm',
    logger: deps.logging.for('rrm'),
    authenticator: opts.authenticator,
    bodyLimit: opts.bodyLimit,
    limits: opts.limits,
    https: opts.https,
    wire: wireProfile(opts.wire),
  });
  opts.httpMetrics?.observe(app, 'rrm');
  await rrmHealthRoutes(app, deps, opts.registry ?? new Registry());
  await registerApi(app, opts.authenticator, async (api) => {
    await rrmRoutes(api, deps);
    await systemRoutes(api, { version: deps.version, startedAt: deps.startedAt, now: () => deps.clock.now(), logging: deps.logging, certificateFiles: opts.certificateFiles });
  });
  return app;
}
