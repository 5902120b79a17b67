/**
 * The composition root of `airtwin serve`, read as a list: open the inputs (files, clock,
 * store), the services over them, the link sources (simulator | NATS | replay), the two API
 * apps, listen, then the replay and the banner. Each stage lives in its own module.
 */
import type { FastifyInstance } from 'fastify';
import { wallClock, type Clock } from '../protocol/clock.js';
import { VERSION } from '../version.js';
import type { ServeConfig } from '../config/schema.js';
import { ConfigError } from '../config/flags.js';
import type { Store } from '../store/duckdb.js';
import { createLogging, type Logging } from '../server/logging.js';
import { buildGateway } from '../gateway/app.js';
import { buildRrm } from '../rrm/app.js';
import { introduceServices } from '../server/teaching-errors.js';
import { TelemetryRegistry } from '../gateway/telemetry.js';
import { connectionFigures, UiNotifications } from '../gateway/ui-notifications.js';
import type { Uploader } from '../gateway/uploader.js';
import type { InternalRttyServer } from '../rtty/server.js';
import { venueView } from '../venue-view/index.js';
import { scorePoints } from '../venue-view/score-series.js';
import { siteOfVenue } from './sim-site.js';
import type { SimVenue } from './sim-venue.js';
import type { startIngest } from '../pipelines/ingest.js';
import type { startReplay } from '../links/replay/replayer.js';
import type { Fleet } from '../../actors/fleet.js';
import type { CommandService } from '../../actors/command-service.js';
import { openServeInputs, type ServeInputs, type ServeIo } from './serve-inputs.js';
import { Closers, httpCommon, openRepos, openRrmService, startFleetCore, type FleetCore, type HttpCommon, type Repos, type RrmService } from './serve-services.js';
import { replayBanner, startNatsSource, startReplaySource, startSimSource, type NatsSource, type SimSource } from './serve-links.js';

export type { ServeIo } from './serve-inputs.js';
export { httpLimitsOf } from './serve-services.js';

export interface RunningServe {
  gateway: FastifyInstance;
  rrm: FastifyInstance;
  gatewayUrl: string;
  rrmUrl: string;
  /** Where APs POST the files of commands (`<url>/v1/upload/<command uuid>`). */
  uploaderUrl: string;
  uploader: Uploader;
  store: Store;
  fleet: Fleet;
  commandService: CommandService;
  clock: Clock;
  sim?: SimVenue;
  ingest: ReturnType<typeof startIngest>;
  replay?: ReturnType<typeof startReplay>;
  /** The RRM's state and background work (tests read run history and wait on them). */
  rrmService: RrmService;
  generatedToken?: string;
  /** The internal rtty server, when serve runs it (no --rtty-server, no --no-rtty). */
  rtty?: InternalRttyServer;
  /** Stop accepting, finish in-flight requests, flush, close DuckDB. Safe to call twice. */
  close(): Promise<void>;
}

/** The port a service listens on, once it does. */
function listeningOn(app: FastifyInstance, tls: boolean): { port: number; tls: boolean } | undefined {
  const address = app.server.address();
  return address !== null && typeof address === 'object' ? { port: address.port, tls } : undefined;
}

interface Stages {
  inputs: ServeInputs; startedAt: number; logging: Logging; closers: Closers; repos: Repos; http: HttpCommon; core: FleetCore;
  nats?: NatsSource;
}

interface Apps { gateway: FastifyInstance; rrm: FastifyInstance; rrmService: RrmService; sim?: SimSource }

/** Telemetry, UI notifications, the simulated venue, then the gateway and the RRM (not listening). */
async function buildApps(config: Readonly<ServeConfig>, s: Stages): Promise<Apps> {
  const { clock, store } = s.inputs;
  const { runtime, ingest } = s.core;
  const { fleet, commandService } = runtime;
  const { devices } = s.repos;
  const { registry, ...common } = s.http;
  const publish = s.nats?.conn;
  const telemetry = new TelemetryRegistry({
    clock, events$: fleet.events$,
    publish: publish ? (subject: string, data: string | Uint8Array) => publish.publish(subject, data) : undefined,
    onRunaway: (serial) => void commandService.telemetry(serial, { serialNumber: serial, interval: 0 }).catch(() => undefined),
  });
  s.closers.push(async () => telemetry.close());
  const uiNotifications = new UiNotifications({
    clock, events$: fleet.events$, serials: () => devices.all().map((d) => d.serialNumber), connectionFigures: () => connectionFigures(runtime.status, devices.all()),
  });
  s.closers.push(async () => uiNotifications.close());
  const sim = config.sim && !s.inputs.input
    ? await startSimSource(config, { clock, logging: s.logging, fleet, devices, wrap: s.core.wrap, cert: common.https?.cert, closers: s.closers, driver: s.inputs.driver })
    : undefined;
  const gateway = await buildGateway({
    clock, store, ...s.repos, status: runtime.status, fleet, commandService, telemetry, uiNotifications, logging: s.logging,
    isBlacklisted: (serial) => s.repos.blacklist.has(serial), version: VERSION, startedAt: s.startedAt,
  }, {
    ...common,
    health: { registry, ingest: () => ingest.metrics(), links: () => s.nats?.health() ?? {} },
    extensions: [venueView({
      clock, wall: wallClock, store, fleet, devices, venue: sim?.sim.venue, zones: () => rrmService.store.topology(),
      scoreSeries: async (zone, from, to) => scorePoints(await rrmService.store.runsBetween(zone, from * 1000, to * 1000 + 999), from, to),
      rrm: () => listeningOn(rrm, common.https !== undefined),
    })],
  });
  s.closers.push(() => gateway.close());
  const rrmBase = { clock, store, logging: s.logging, fleet, commandService, version: VERSION, startedAt: s.startedAt, ...(sim ? { site: siteOfVenue(sim.sim.venue) } : {}) };
  const rrmService = await openRrmService(config, rrmBase, { repos: s.repos, closers: s.closers });
  const rrm = await buildRrm({ ...rrmBase, rrm: { store: rrmService.store, applier: rrmService.applier } }, { ...common, registry });
  s.closers.push(() => rrm.close());
  rrmService.collector.start();
  rrmService.scheduler.start();
  return { gateway, rrm, rrmService, sim };
}

/** The start banner: where each service is and what feeds the fleet. */
function banner(config: Readonly<ServeConfig>, s: Stages, apps: Apps, urls: { gatewayUrl: string; rrmUrl: string }): string[] {
  const { uploaderUrl, uploadBase } = s.core;
  const token = s.http.authenticator.generatedToken;
  const source = apps.sim ? apps.sim.banner() : s.inputs.input ? replayBanner(config, s.inputs.input) : ['  venue    none (--no-sim)'];
  return [
    `airtwin ${VERSION}`,
    `  gateway  ${urls.gatewayUrl}/api/v1   docs ${urls.gatewayUrl}/docs`,
    `  rrm      ${urls.rrmUrl}/api/v1   docs ${urls.rrmUrl}/docs`,
    `  uploads  ${uploaderUrl}/v1/upload/<command uuid>${uploadBase !== uploaderUrl ? ` (APs are sent to ${uploadBase})` : ''}, files in ${s.repos.files.dir}`,
    `  data     ${s.inputs.store.path}`,
    `  auth     ${s.http.authenticator.modes.join(', ')}`,
    ...source,
    ...s.core.rtty.banner,
    ...(s.core.recorder ? [`  record   ${config.record}`] : []),
    ...(s.nats?.banner() ?? []),
    `  view     ${urls.gatewayUrl}/${token ? `#token=${token}` : ''}`,
    ...(token ? [`  token    ${token}   (send "Authorization: Bearer <token>")`] : []),
  ];
}

/** The composition root of `airtwin serve`: inputs -> store -> services -> links -> apps -> listen. */
export async function startServe(config: Readonly<ServeConfig>, io: ServeIo): Promise<RunningServe> {
  const inputs = await openServeInputs(config, io);
  const { clock, store, driver, input } = inputs;
  const startedAt = clock.now();
  const logging = createLogging(config.logLevel, io.logDestination);
  const closers = new Closers((e) => logging.root.error({ err: e }, 'shutdown step failed'));
  closers.push(() => store.close());
  closers.push(async () => driver.stop());
  closers.push(async () => input?.dispose());
  try {
    const repos = await openRepos(store, config.dataDir);
    const http = await httpCommon(config, clock);
    const core = await startFleetCore(config, { clock, store, repos, logging, https: http.https, closers });
    const nats = config.nats
      ? await startNatsSource({ ...config, nats: config.nats }, { clock, logging, fleet: core.runtime.fleet, wrap: core.wrap, flush: () => core.ingest.flush(), closers })
      : undefined;
    const stages: Stages = { inputs, startedAt, logging, closers, repos, http, core, nats };
    const apps = await buildApps(config, stages);

    const gatewayUrl = await apps.gateway.listen({ port: config.gatewayPort, host: config.host });
    const rrmUrl = await apps.rrm.listen({ port: config.rrmPort, host: config.host });
    // A route asked of the wrong port answers 404 naming the port that serves it.
    introduceServices([{ name: 'device gateway', url: gatewayUrl, app: apps.gateway }, { name: 'RRM', url: rrmUrl, app: apps.rrm }]);
    // The recording file is touched only now: a start that failed left an earlier one as it was.
    const replaced = core.recorder?.open();
    if (replaced) logging.for('links').warn({ ...replaced }, 'recording replaces an earlier one at its path (give each run its own file to keep them)');
    const replay = input
      ? await startReplaySource(config, io, { input, driver, store, runtime: core.runtime, startedAt, logging, wrap: core.wrap, uploader: core.uploader, flush: () => core.ingest.flush(), closers })
      : undefined;

    for (const line of banner(config, stages, apps, { gatewayUrl, rrmUrl })) io.print(line);
    return {
      gateway: apps.gateway, rrm: apps.rrm, gatewayUrl, rrmUrl, uploaderUrl: core.uploaderUrl, uploader: core.uploader, store,
      fleet: core.runtime.fleet, commandService: core.runtime.commandService, clock, sim: apps.sim?.sim, ingest: core.ingest,
      replay: replay?.replay, generatedToken: http.authenticator.generatedToken, rrmService: apps.rrmService, rtty: core.rtty.internal,
      close: () => closers.close(),
    };
  } catch (e) {
    // A warm start's clock still held (the venue never ran) would keep the closers' timers from firing.
    driver.release();
    await closers.close();
    if (e instanceof Error && 'code' in e && (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port in use: ${(e as NodeJS.ErrnoException & { port?: number }).port ?? ''} (choose another with --gateway-port / --rrm-port / --upload-port)`);
    }
    throw e;
  }
}
