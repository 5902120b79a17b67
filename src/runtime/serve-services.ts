/**
 * The service stages of `airtwin serve`: the repositories over the store, the settings both
 * HTTP listeners share, the fleet with its ingest, recorder and uploader, and the RRM's
 * background work. Each stage registers what it opened with the root's `Closers`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../protocol/clock.js';
import type { ServeConfig } from '../config/schema.js';
import type { Store } from '../store/duckdb.js';
import { DevicesRepo } from '../store/devices-repo.js';
import { DefaultConfigsRepo } from '../store/default-configs-repo.js';
import { BlacklistRepo } from '../store/blacklist-repo.js';
import { RadiusRepo } from '../store/radius-repo.js';
import { CommandsRepo } from '../store/commands-repo.js';
import { DeviceDataRepo } from '../store/device-data-repo.js';
import { FilesRepo } from '../store/files-repo.js';
import { loadScripts } from '../store/scripts-repo.js';
import { loadDefaultFirmwares } from '../store/default-firmwares-repo.js';
import { createAuthenticator } from '../server/auth.js';
import type { HttpLimits } from '../server/http-limits.js';
import type { Logging } from '../server/logging.js';
import { HttpMetrics, processRegistry } from '../server/prom.js';
import { DEFAULT_UPLOAD_PORT, Uploader } from '../gateway/uploader.js';
import { isObject } from '../protocol/frame.js';
import type { DeviceLink } from '../protocol/device-link.js';
import { closeRecorder, createRecorder, type Recorder } from '../links/record/recording-link.js';
import { startIngest } from '../pipelines/ingest.js';
import { clockScheduler } from '../pipelines/clock-scheduler.js';
import { RrmStore } from '../rrm/store.js';
import { zonesFromVenues } from '../rrm/config/topology.js';
import { RrmApplier } from '../rrm/apply.js';
import { RrmCollector } from '../rrm/collector.js';
import { RrmScheduler } from '../rrm/scheduler.js';
import type { RrmDeps } from '../rrm/deps.js';
import { startFleetRuntime, type FleetRuntime } from './fleet-runtime.js';
import { startServeRtty, type ServeRtty } from './serve-rtty.js';

/** Shutdown steps, run once in reverse order of registration; a failing step is logged, not fatal. */
export class Closers {
  private readonly steps: (() => Promise<void>)[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly onError: (e: unknown) => void) {}

  push(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  /** Runs every step registered so far; a second call waits on the first. */
  close(): Promise<void> {
    return (this.closing ??= this.run());
  }

  private async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step().catch(this.onError);
  }
}

/** The HTTP limits of both API listeners from the serve settings (seconds). */
export function httpLimitsOf(config: Pick<ServeConfig, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout' | 'maxConnections'>): HttpLimits {
  return {
    headersTimeoutMs: config.headersTimeout * 1000,
    requestTimeoutMs: config.requestTimeout * 1000,
    keepAliveTimeoutMs: config.keepAliveTimeout * 1000,
    connectionTimeoutMs: config.connectionTimeout * 1000,
    maxConnections: config.maxConnections,
  };
}

export type Repos = Awaited<ReturnType<typeof openRepos>>;

/** Every repository over the store, the loaded ones read in. */
export async function openRepos(store: Store, dataDir: string) {
  return {
    devices: await DevicesRepo.load(store),
    defaultConfigs: await DefaultConfigsRepo.load(store),
    blacklist: await BlacklistRepo.load(store),
    radius: new RadiusRepo(store),
    commands: new CommandsRepo(store),
    deviceData: new DeviceDataRepo(store),
    files: new FilesRepo(store, join(dataDir, 'uploads')),
    scripts: await loadScripts(store),
    defaultFirmwares: await loadDefaultFirmwares(store),
  };
}

export type HttpCommon = Awaited<ReturnType<typeof httpCommon>>;

/** What both API listeners share: authentication, TLS, limits and one metrics registry. */
export async function httpCommon(config: Readonly<ServeConfig>, clock: Clock) {
  const authenticator = await createAuthenticator(
    { apiTokens: config.apiTokens, jwtSecret: config.jwtSecret, jwtPublicKey: config.jwtPublicKey, securityUrl: config.securityUrl, dataDir: config.dataDir },
    { now: () => clock.now() },
  );
  const https = config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : undefined;
  const certificateFiles = config.tlsCert ? [config.tlsCert] : [];
  // One registry for the process: both ports serve it, with the request durations of both.
  const registry = processRegistry();
  const httpMetrics = new HttpMetrics(registry);
  return { authenticator, bodyLimit: config.bodyLimit, certificateFiles, https, wire: config.wire, limits: httpLimitsOf(config), httpMetrics, registry };
}

/** The capabilities an AP last reported, as an object; stored text that is not JSON names no restrictions. */
function storedCapabilitiesOf(deviceData: Repos['deviceData']) {
  return async (serial: string) => {
    const stored = await deviceData.capabilities(serial);
    try {
      const parsed: unknown = stored ? JSON.parse(stored.capabilities) : undefined;
      return isObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  };
}

/** The uploader's port: the one configured, else 16003, else (busy, or the gateway on a free port) a free one. */
async function listenUploader(uploader: Uploader, config: Readonly<ServeConfig>): Promise<string> {
  if (config.uploadPort !== undefined) return uploader.listen(config.uploadPort, config.host);
  if (config.gatewayPort === 0) return uploader.listen(0, config.host);
  try {
    return await uploader.listen(DEFAULT_UPLOAD_PORT, config.host);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return uploader.listen(0, config.host);
  }
}

export interface FleetCore {
  runtime: FleetRuntime;
  ingest: ReturnType<typeof startIngest>;
  recorder?: Recorder;
  uploader: Uploader;
  /** Where the uploader listens. */
  uploaderUrl: string;
  /** Where APs are told to upload (`--upload-url`, else the uploader). */
  uploadBase: string;
  /** Where remote sessions go (the internal rtty server, when serve runs it). */
  rtty: ServeRtty;
  /** Every link, whatever its kind, passes through the recorder when there is one. */
  wrap(link: DeviceLink): DeviceLink;
}

/** The fleet and what hangs off it before any AP connects: ingest, the recorder, the uploader. */
export async function startFleetCore(
  config: Readonly<ServeConfig>,
  ctx: { clock: Clock; store: Store; repos: Repos; logging: Logging; https: HttpCommon['https']; closers: Closers },
): Promise<FleetCore> {
  const { clock, store, repos, logging, closers } = ctx;
  // The uploader's base URL, known once it listens (below, before any AP connects).
  const upload: { base?: string } = {};
  // Bound before the fleet starts: sessions name the ports the internal rtty server took.
  const rtty = await startServeRtty(config, { clock, logging, closers, ...(ctx.https ? { https: ctx.https } : {}) });
  const runtime = startFleetRuntime({
    clock, devices: repos.devices, blacklist: repos.blacklist, defaultConfigs: repos.defaultConfigs, commands: repos.commands,
    autoProvision: config.autoProvision, logger: logging.for('fleet'), rtty: rtty.settings,
    storedCapabilities: storedCapabilitiesOf(repos.deviceData), scripts: repos.scripts,
    uploadUri: (uuid) => (upload.base ? `${upload.base}/v1/upload/${uuid}` : undefined),
  });
  // Before any AP connects: what an earlier run accepted and did not end goes back to its AP's
  // queue or ends, so no command stays pending for good after a crash.
  const reopened = await runtime.reopenCommands();
  if (reopened.reopened + reopened.ended > 0) logging.for('fleet').info(reopened, 'commands of an earlier run reopened or ended');
  // Subscribed before any AP connects, and closed after the fleet (whose stop completes
  // events$), so every frame an AP sent before shutdown is in DuckDB after it.
  // Retries wait on wall time: a virtual clock may not advance while the final flush retries.
  const ingest = startIngest({ events$: runtime.fleet.events$, store, scheduler: clockScheduler(clock), retryScheduler: asyncScheduler, logger: logging.for('pipelines') });
  const recorder = config.record
    ? createRecorder({
      path: config.record, maxBytes: config.recordMaxBytes, clock, openLater: true,
      onError: (e) => logging.for('links').error({ err: e }, 'recording stopped'),
      onDropped: (droppedLines) => logging.for('links').warn({ file: config.record, droppedLines }, 'recording is behind the disk; lines dropped'),
    })
    : undefined;
  if (recorder) closers.push(() => closeRecorder(recorder, logging.for('links')));
  const uploader = new Uploader({
    files: repos.files, waits: runtime.commandService.files, clock, logger: logging.for('gateway'), maxBytes: config.uploadMaxBytes, https: ctx.https, limits: httpLimitsOf(config),
    retention: { maxAgeS: config.filesMaxAge, maxTotalBytes: config.filesMaxBytes },
    // A recording keeps the files APs uploaded beside their frames, so a replay has them too.
    onStored: (u) => recorder?.tap.upload(u.serial, { uuid: u.uuid, type: u.type, bytes: u.bytes }, u.at),
  });
  const uploaderUrl = await listenUploader(uploader, config);
  closers.push(() => uploader.close());
  upload.base = config.uploadUrl?.replace(/\/+$/, '') ?? uploaderUrl;
  closers.push(() => ingest.close());
  // A clean stop keeps queued and scheduled commands pending: the next start reopens them.
  closers.push(() => runtime.close(undefined, { keepQueued: true }));
  const wrap = (link: DeviceLink): DeviceLink => (recorder ? recorder.wrap(link) : link);
  return { runtime, ingest, recorder, uploader, uploaderUrl, uploadBase: upload.base, rtty, wrap };
}

export interface RrmService { store: RrmStore; applier: RrmApplier; collector: RrmCollector; scheduler: RrmScheduler }

/** The RRM's state, plugins and background work (not started: the root starts it once its API is built). */
export async function openRrmService(
  config: Readonly<ServeConfig>,
  base: Omit<RrmDeps, 'rrm'>,
  ctx: { repos: Repos; closers: Closers },
): Promise<RrmService> {
  const { clock, store } = base;
  const rrmStore = await RrmStore.load(store, () => clock.now(), () => zonesFromVenues(ctx.repos.devices.all()));
  if (config.rrmPlugin !== undefined) {
    const { loadPluginFile } = await import('../rrm/algorithms/plugin.js');
    const { registerOptimizer } = await import('../rrm/algorithms/registry.js');
    for (const o of await loadPluginFile(config.rrmPlugin)) registerOptimizer(o);
  }
  const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);
  const applier = new RrmApplier(base, rrmStore, { debounceMs: ms(config.rrmConfigDebounce) });
  const collector = new RrmCollector(base, rrmStore, {
    wifiScanIntervalMs: ms(config.rrmWifiScanInterval),
    capabilitiesIntervalMs: ms(config.rrmCapabilitiesInterval),
    tickMs: ms(config.rrmCollectInterval),
  });
  const scheduler = new RrmScheduler(base, rrmStore, applier);
  // Closers run in reverse: the RRM API first (in-flight runs finish), then its background
  // work, all before the fleet and the store, so no command or write comes after them.
  ctx.closers.push(async () => {
    scheduler.stop();
    collector.stop();
    await collector.settled();
    await applier.close();
  });
  return { store: rrmStore, applier, collector, scheduler };
}
