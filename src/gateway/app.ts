import type { FastifyInstance } from 'fastify';
import { buildServiceApp, registerApi } from '../server/build-app.js';
import type { HttpLimits } from '../server/http-limits.js';
import type { Authenticator } from '../server/auth.js';
import { systemRoutes } from '../server/system-routes.js';
import type { GatewayDeps } from './deps.js';
import { deviceRoutes } from './routes/devices.js';
import { deviceListRoutes } from './routes/device-list.js';
import { commandHistoryRoutes } from './routes/command-history.js';
import { deviceDataRoutes } from './routes/device-data.js';
import { deviceCommandsRoutes } from './routes/device-commands.js';
import { defaultConfigsRoutes } from './routes/default-configs.js';
import { blacklistRoutes } from './routes/blacklist.js';
import { capabilitiesRoutes } from './routes/capabilities.js';
import { radiusRoutes } from './routes/radius.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { lookupsRoutes } from './routes/lookups.js';
import { filesRoutes } from './routes/files.js';
import { registerTelemetryRoutes } from './routes/telemetry-ws.js';
import { healthRoutes, type HealthSources } from './routes/health.js';
import type { HttpMetrics } from '../server/prom.js';
import { scriptsRoutes } from './routes/scripts.js';
import { uiWebsocketRoutes } from './routes/ui-ws.js';
import { defaultFirmwaresRoutes } from './routes/default-firmwares.js';
import { radiusSessionsRoutes } from './routes/radius-sessions.js';
import type { WireName } from '../server/wire/profile.js';
import { wireProfile } from '../server/wire/install.js';
import { GATEWAY_SHAPES } from './wire/shapes.js';

export interface GatewayOptions {
  authenticator: Authenticator;
  bodyLimit: number;
  /** Timeouts and connection cap of the listener (src/server/http-limits.ts). */
  limits?: HttpLimits;
  certificateFiles: string[];
  https?: { cert: Buffer; key: Buffer };
  health: HealthSources;
  /** Features served beside the API (the venue view): registered after the gateway's own routes. */
  extensions?: readonly GatewayExtension[];
  wire: WireName;
  /** Request durations for /metrics (serve: shared with the RRM service). */
  httpMetrics?: HttpMetrics;
}

/**
 * Something served on the gateway port beside its API: `root` routes need no token (pages,
 * files); `api` routes go under /api/v1 with the gateway's auth and its websocket support.
 */
export interface GatewayExtension {
  root?(app: FastifyInstance): Promise<void>;
  api?(api: FastifyInstance): Promise<void>;
}

/** The device gateway as a Fastify instance, not yet listening (tests inject or listen on port 0). */
export async function buildGateway(deps: GatewayDeps, opts: GatewayOptions): Promise<FastifyInstance> {
  const app = await buildServiceApp({
    name: 'airtwin device gateway',
    version: deps.version,
    description: 'Device records, commands to APs, logs, health checks, statistics, telemetry, blacklist, default configurations, RADIUS proxy config and dashboard.',
    tag: 'gateway',
    logger: deps.logging.for('gateway'),
    authenticator: opts.authenticator,
    bodyLimit: opts.bodyLimit,
    limits: opts.limits,
    https: opts.https,
    wire: wireProfile(opts.wire, GATEWAY_SHAPES),
  });
  opts.httpMetrics?.observe(app, 'gateway');
  await healthRoutes(app, deps, opts.health);
  for (const ext of opts.extensions ?? []) await ext.root?.(app);
  await registerApi(app, opts.authenticator, async (api) => {
    // First: it registers @fastify/websocket, whose upgrade handling the later routes rely on.
    await registerTelemetryRoutes(api, { telemetry: deps.telemetry, authenticator: opts.authenticator, clock: deps.clock });
    await uiWebsocketRoutes(api, { notifications: deps.uiNotifications, authenticator: opts.authenticator, clock: deps.clock });
    for (const routes of [deviceListRoutes, deviceRoutes, commandHistoryRoutes, deviceDataRoutes, deviceCommandsRoutes, defaultConfigsRoutes,
      blacklistRoutes, capabilitiesRoutes, radiusRoutes, dashboardRoutes, lookupsRoutes, filesRoutes, scriptsRoutes, defaultFirmwaresRoutes,
      radiusSessionsRoutes]) {
      await routes(api, deps);
    }
    await systemRoutes(api, { version: deps.version, startedAt: deps.startedAt, now: () => deps.clock.now(), logging: deps.logging, certificateFiles: opts.certificateFiles });
    for (const ext of opts.extensions ?? []) await ext.api?.(api);
  });
  return app;
}
