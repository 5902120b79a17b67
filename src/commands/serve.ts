import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncScheduler } from 'rxjs';
import type { FastifyInstance } from 'fastify';
import { wallClock, type Clock } from '../protocol/clock.js';
import { VERSION } from '../version.js';
import type { ServeConfig } from '../config/schema.js';
import { checkDataDir, ConfigError, checkRecordFile, realPathOf, sameFile } from '../config/flags.js';
import { Store, storeFile } from '../store/duckdb.js';
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
import { createLogging, type Logging } from '../server/logging.js';
import { buildGateway } from '../gateway/app.js';
import type { HealthSources } from '../gateway/routes/health.js';
import { buildRrm } from '../rrm/app.js';
import { introduceServices } from '../server/teaching-errors.js';
import { loadScenario } from '../../simulator/scenario.js';
import { RrmStore } from '../rrm/store.js';
import { zonesFromVenues } from '../rrm/config/topology.js';
import { RrmApplier } from '../rrm/apply.js';
import { RrmCollector } from '../rrm/collector.js';
import { RrmScheduler } from '../rrm/scheduler.js';
import { acceptedConnect, processClock, replayDriver, startFleetRuntime } from './fleet-runtime.js';
import { keptTimeOverlap, openDataDir, replayClock, replayFileRecordedOver, replayProgressBar, replaySummaryLines } from './replay.js';
import { inputLabel, openReplayInput, partsAfterGapNote } from './replay-input.js';
import { startReplay } from '../links/replay/replayer.js';
import { lastTime, recordedConnects } from '../links/replay/read-recording.js';
import { isObject } from '../protocol/frame.js';
import { closeRecorder, createRecorder } from '../links/record/recording-link.js';
import type { DeviceLink } from '../protocol/device-link.js';
import type { NatsConnection } from 'nats';
import { connectNats } from '../links/nats/connect.js';
import { NatsLinkManager } from '../links/nats/nats-link-manager.js';
import { startIngest } from '../pipelines/ingest.js';
import { clockScheduler } from '../pipelines/clock-scheduler.js';
import { TelemetryRegistry } from '../gateway/telemetry.js';
import { connectionFigures, UiNotifications } from '../gateway/ui-notifications.js';
import { RTTY_DEFAULTS } from '../gateway/remote-session.js';
import { startSimVenue, type SimVenue } from './sim-venue.js';
import { siteOfVenue } from './sim-site.js';
import { venueView } from '../venue-view/index.js';
import { scorePoints } from '../venue-view/score-series.js';
import { DEFAULT_UPLOAD_PORT, Uploader } from '../gateway/uploader.js';
import { simUpload } from './sim-upload.js';
import type { Fleet } from '../../actors/fleet.js';
import type { CommandService } from '../../actors/command-service.js';
import { DEFAULT_FRAME_BUDGET } from '../protocol/frame-budget.js';
import { HttpMetrics, processRegistry } from '../server/prom.js';


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
  rrmService: { store: RrmStore; applier: RrmApplier; collector: RrmCollector; scheduler: RrmScheduler };
  generatedToken?: string;
  /** Stop accepting, finish in-flight requests, flush, close DuckDB. Safe to call twice. */
  close(): Promise<void>;
}

export interface ServeIo {
  /** Where the start banner goes. */
  print(line: string): void;
  /** Where JSON logs go (default stdout). */
  logDestination?: NodeJS.WritableStream;
  clock?: Clock;
  /** With --replay: a terminal to draw the replay's progress bar on. */
  progress?: NodeJS.WritableStream;
  /** Ends a start-up that is copying a stream to replay (`--replay -`; Ctrl-C): it fails with ReplayInputError. */
  stop?: AbortSignal;
}

/** The data dir's DuckDB file or its log that a recording to `record` would truncate, if either. */
function storeRecordedOver(record: string, dataDir: string): string | undefined {
  const target = realPathOf(record);
  const db = storeFile(dataDir);
  return [db, `${db}.wal`].find((f) => sameFile(record, f) || (target !== undefined && realPathOf(f) === target));
}

/** The port a service listens on, once it does. */
function listeningOn(app: FastifyInstance, tls: boolean): { port: number; tls: boolean } | undefined {
  const address = app.server.address();
  return address !== null && typeof address === 'object' ? { port: address.port, tls } : undefined;
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

/** The composition root of `airtwin serve`: config -> store -> services -> listening sockets. */
export async function startServe(config: Readonly<ServeConfig>, io: ServeIo): Promise<RunningServe> {
  if (config.record) checkRecordFile(config.record, config.recordMaxBytes);
  // A venue that is not there is said before the data dir is made.
  if (config.sim && !config.replay) loadScenario(config.scenario);
  // The data dir's own DuckDB file or its log, by any path: the recorder would truncate it.
  const ownFile = config.record ? storeRecordedOver(config.record, config.dataDir) : undefined;
  if (ownFile) throw new ConfigError(`--record: ${config.record} is ${ownFile}, the data dir's database; record to another file`);
  // A stream to replay is copied to a temporary file here, removed when the replay ends (the
  // data dir checked first, so that a copy is not made for nothing).
  if (config.replay) checkDataDir(config.dataDir);
  const input = config.replay ? await openReplayInput('--replay:', config.replay, { say: io.print, stop: io.stop }) : undefined;
  const replayFiles = input?.files;
  let driver: ReturnType<typeof processClock>;
  let store: Store;
  try {
    const recordedOver = config.record && replayFiles ? replayFileRecordedOver(config.record, replayFiles) : undefined;
    if (recordedOver) throw new ConfigError(`--record: ${config.record} would overwrite ${input!.stream ? input!.name : recordedOver}, which --replay reads; record to another file`);
    // One clock for the whole process: REST time stamps, actors, simulator, replay and pipelines.
    const wall = io.clock ?? wallClock;
    driver = input
      ? replayDriver(await replayClock(input, config.speed, config.keepTime, wall), { catchUp: config.keepTime ? undefined : wall })
      : processClock(config.sim ? config.speed : 1, wall);
    store = await openDataDir(config.dataDir);
  } catch (e) {
    input?.dispose();
    throw e;
  }
  const clock = driver.clock;
  const startedAt = clock.now();
  const logging: Logging = createLogging(config.logLevel, io.logDestination);
  const closers: (() => Promise<void>)[] = [() => store.close(), async () => driver.stop(), async () => input?.dispose()];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch((e) => logging.root.error({ err: e }, 'shutdown step failed'));
  };
  try {
    const devices = await DevicesRepo.load(store);
    const defaultConfigs = await DefaultConfigsRepo.load(store);
    const blacklist = await BlacklistRepo.load(store);
    const radius = new RadiusRepo(store);
    const commands = new CommandsRepo(store);
    const deviceData = new DeviceDataRepo(store);
    const files = new FilesRepo(store, join(config.dataDir, 'uploads'));
    const scripts = await loadScripts(store);
    const defaultFirmwares = await loadDefaultFirmwares(store);
    const authenticator = await createAuthenticator(
      { apiTokens: config.apiTokens, jwtSecret: config.jwtSecret, jwtPublicKey: config.jwtPublicKey, securityUrl: config.securityUrl, dataDir: config.dataDir },
      { now: () => clock.now() },
    );
    const https = config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : undefined;
    const certificateFiles = config.tlsCert ? [config.tlsCert] : [];
    const limits = httpLimitsOf(config);
    // One registry for the process: both ports serve it, with the request durations of both.
    const registry = processRegistry();
    const httpMetrics = new HttpMetrics(registry);
    const common = { authenticator, bodyLimit: config.bodyLimit, certificateFiles, https, wire: config.wire, limits, httpMetrics };

    // Where GET rtty sends the APs: the rttys defaults, each overridable; none with --no-rtty.
    const rtty = !config.rtty ? undefined : {
      server: config.rttyServer ?? RTTY_DEFAULTS.server, port: config.rttyPort ?? RTTY_DEFAULTS.port,
      viewport: config.rttyViewport ?? RTTY_DEFAULTS.viewport, timeout: config.rttyTimeout ?? RTTY_DEFAULTS.timeout,
      ...(config.rttyToken ? { token: config.rttyToken } : {}),
    };
    const storedCapabilities = async (serial: string) => {
      const stored = await deviceData.capabilities(serial);
      try {
        const parsed: unknown = stored ? JSON.parse(stored.capabilities) : undefined;
        return isObject(parsed) ? parsed : undefined;
      } catch {
        return undefined; // stored text that is not JSON names no restrictions
      }
    };
    // The uploader's base URL, known once it listens (below, before any AP connects).
    const upload: { base?: string } = {};
    const runtime = startFleetRuntime({
      clock, devices, blacklist, defaultConfigs, commands, autoProvision: config.autoProvision, logger: logging.for('fleet'), rtty, storedCapabilities, scripts,
      uploadUri: (uuid) => (upload.base ? `${upload.base}/v1/upload/${uuid}` : undefined),
    });
    const { fleet, commandService } = runtime;
    // Before any AP connects: what an earlier run accepted and did not end goes back to its AP's
    // queue or ends, so no command stays pending for good after a crash.
    const reopened = await runtime.reopenCommands();
    if (reopened.reopened + reopened.ended > 0) logging.for('fleet').info(reopened, 'commands of an earlier run reopened or ended');
    // Subscribed before any AP connects, and closed after the fleet (whose stop completes
    // events$), so every frame an AP sent before shutdown is in DuckDB after it.
    // Retries wait on wall time: a virtual clock may not advance while the final flush retries.
    const ingest = startIngest({ events$: fleet.events$, store, scheduler: clockScheduler(clock), retryScheduler: asyncScheduler, logger: logging.for('pipelines') });
    const recorder = config.record
      ? createRecorder({
        path: config.record, maxBytes: config.recordMaxBytes, clock, held: true,
        onError: (e) => logging.for('links').error({ err: e }, 'recording stopped'),
        onDropped: (droppedLines) => logging.for('links').warn({ file: config.record, droppedLines }, 'recording is behind the disk; lines dropped'),
      })
      : undefined;
    if (recorder) closers.push(() => closeRecorder(recorder, logging.for('links')));
    const uploader = new Uploader({
      files, waits: commandService.files, clock, logger: logging.for('gateway'), maxBytes: config.uploadMaxBytes, https, limits,
      retention: { maxAgeS: config.filesMaxAge, maxTotalBytes: config.filesMaxBytes },
      // A recording keeps the files APs uploaded beside their frames, so a replay has them too.
      onStored: (u) => recorder?.tap.upload(u.serial, { uuid: u.uuid, type: u.type, bytes: u.bytes }, u.at),
    });
    const uploaderUrl = await listenUploader(uploader, config);
    closers.push(() => uploader.close());
    upload.base = config.uploadUrl?.replace(/\/+$/, '') ?? uploaderUrl;
    // Every link, whatever its kind, passes through the recorder when there is one.
    const wrap = (link: DeviceLink): DeviceLink => (recorder ? recorder.wrap(link) : link);
    closers.push(() => ingest.close());
    // A clean stop keeps queued and scheduled commands pending: the next start reopens them.
    closers.push(() => runtime.close(undefined, { keepQueued: true }));
    // Real APs: frames from the edges over NATS, through the same actors as simulated ones.
    let natsConn: NatsConnection | undefined;
    let natsLinks: NatsLinkManager | undefined;
    if (config.nats) {
      const log = logging.for('links');
      try {
        natsConn = await connectNats({ url: config.nats, name: 'airtwin-serve', logger: log });
      } catch (e) {
        throw new ConfigError(`--nats: cannot connect to ${config.nats} (${(e as Error).message})`);
      }
      const conn = natsConn;
      closers.push(async () => void (await conn.drain().catch(() => undefined)));
      // A frame is acknowledged to JetStream once the rows it became are in DuckDB.
      natsLinks = await NatsLinkManager.start({
        nc: conn, logger: log, clock, onDevice: (link) => fleet.attach(wrap(link)), persisted: () => ingest.flush(),
        durable: config.natsDurable, ...(config.natsFilter ? { filterSubjects: [...config.natsFilter] } : {}),
        budget: { ...DEFAULT_FRAME_BUDGET, framesPerS: config.apMaxFramesPerS, bytesPerS: config.apMaxBytesPerS, strikes: config.apOffenderSeconds },
      });
      const manager = natsLinks;
      // Closed before the fleet stops, so no frame arrives at a stopped actor.
      closers.push(() => manager.close());
    }
    const telemetry = new TelemetryRegistry({
      clock, events$: fleet.events$,
      publish: natsConn ? (subject: string, data: string | Uint8Array) => natsConn!.publish(subject, data) : undefined,
      onRunaway: (serial) => void commandService.telemetry(serial, { serialNumber: serial, interval: 0 }).catch(() => undefined),
    });
    closers.push(async () => telemetry.close());
    const uiNotifications = new UiNotifications({
      clock, events$: fleet.events$, serials: () => devices.all().map((d) => d.serialNumber), connectionFigures: () => connectionFigures(runtime.status, devices.all()),
    });
    closers.push(async () => uiNotifications.close());
    const sim = config.sim && !replayFiles
      ? await startSimVenue({ scenario: config.scenario, seed: config.seed, clock, fleet, devices, wrap, upload: simUpload(logging.for('gateway'), https?.cert) })
      : undefined;
    if (sim) closers.push(() => sim.close());
    const nats = natsLinks;
    const health: HealthSources = {
      registry,
      ingest: () => ingest.metrics(),
      links: (): ReturnType<HealthSources['links']> => {
        if (!nats) return {};
        const st = nats.status();
        return { nats: { ...st, state: st.link } };
      },
    };
    const gateway = await buildGateway({
      clock, store, devices, defaultConfigs, blacklist, radius, commands, deviceData, files, scripts, defaultFirmwares, status: runtime.status, fleet, commandService,
      telemetry, uiNotifications, logging,
      isBlacklisted: (serial) => blacklist.has(serial), version: VERSION, startedAt,
    }, {
      ...common, health,
      extensions: [venueView({ clock, wall: wallClock, store, fleet, devices, venue: sim?.venue, zones: () => rrmStore.topology(),
        scoreSeries: async (zone, from, to) => scorePoints(await rrmStore.runsBetween(zone, from * 1000, to * 1000 + 999), from, to), rrm: () => listeningOn(rrm, https !== undefined) })],
    });
    closers.push(() => gateway.close());
    const rrmBase = { clock, store, logging, fleet, commandService, version: VERSION, startedAt, ...(sim ? { site: siteOfVenue(sim.venue) } : {}) };
    const rrmStore = await RrmStore.load(store, () => clock.now(), () => zonesFromVenues(devices.all()));
    if (config.rrmPlugin !== undefined) {
      const { loadPluginFile } = await import('../rrm/algorithms/plugin.js');
      const { registerOptimizer } = await import('../rrm/algorithms/registry.js');
      for (const o of await loadPluginFile(config.rrmPlugin)) registerOptimizer(o);
    }
    const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);
    const applier = new RrmApplier(rrmBase, rrmStore, { debounceMs: ms(config.rrmConfigDebounce) });
    const collector = new RrmCollector(rrmBase, rrmStore, {
      wifiScanIntervalMs: ms(config.rrmWifiScanInterval),
      capabilitiesIntervalMs: ms(config.rrmCapabilitiesInterval),
      tickMs: ms(config.rrmCollectInterval),
    });
    const scheduler = new RrmScheduler(rrmBase, rrmStore, applier);
    // Closers run in reverse: the RRM API first (in-flight runs finish), then its background
    // work, all before the fleet and the store, so no command or write comes after them.
    closers.push(async () => {
      scheduler.stop();
      collector.stop();
      await collector.settled();
      await applier.close();
    });
    const rrm = await buildRrm({ ...rrmBase, rrm: { store: rrmStore, applier } }, { ...common, registry });
    closers.push(() => rrm.close());
    collector.start();
    scheduler.start();

    const gatewayUrl = await gateway.listen({ port: config.gatewayPort, host: config.host });
    const rrmUrl = await rrm.listen({ port: config.rrmPort, host: config.host });
    // A route asked of the wrong port answers 404 naming the port that serves it.
    introduceServices([{ name: 'device gateway', url: gatewayUrl, app: gateway }, { name: 'RRM', url: rrmUrl, app: rrm }]);
    // The recording file is touched only now: a start that failed left an earlier one as it was.
    const replaced = recorder?.open();
    if (replaced) logging.for('links').warn({ ...replaced }, 'recording replaces an earlier one at its path (give each run its own file to keep them)');

    // The replay starts once both ports are bound: a port in use (exit 2) must find the data dir
    // as it was, not with a whole replay written into it.
    let replay: ReturnType<typeof startReplay> | undefined;
    if (replayFiles) {
      const log = logging.for('links');
      // Admission of an unknown AP writes its record (wall-time I/O) while a replay's clock may
      // race ahead; provisioning the recorded APs first keeps admission instant.
      const connects = await recordedConnects(replayFiles, acceptedConnect);
      await runtime.provisionAll(connects);
      if (config.keepTime) {
        const { overlap, note } = await keptTimeOverlap(store, config.dataDir, [...connects.keys()], startedAt, await lastTime(replayFiles));
        if (note) {
          log.warn({ ...overlap }, 'the data dir already holds rows of the recorded devices from the recording\'s first time on');
          io.print(note);
        }
      }
      const bar = io.progress ? replayProgressBar(io.progress, replayFiles) : undefined;
      const began = performance.now();
      replay = startReplay({
        file: replayFiles, fleet, clock, speed: config.speed, keepTime: config.keepTime, wrapLink: wrap,
        onUpload: (u) => uploader.accept(u.uuid, u.serial, u.data),
        onProgress: bar?.update, progressEvery: config.speed === 'max' ? 1000 : 1,
      });
      const running = replay;
      closers.push(async () => running.stop());
      // Handlers on `done` itself (no finally in between), so the summary is printed before any
      // later awaiter of `done` (tests, scripts) runs.
      void running.done.then(async (summary) => {
        input?.dispose();
        bar?.stop(summary);
        log.info({ frames: summary.frames, devices: summary.devices, rejected: summary.rejectedCount, refused: summary.refusedCount, unmatched: summary.unmatchedCount, dropped: summary.dropped }, 'replay finished; serving the last state');
        // Each with its file: with rotated parts, line 3 of FILE and of FILE.2 looked the same in the log.
        for (const r of summary.rejected.slice(0, 20)) log.warn({ file: r.file ?? input!.name, line: r.line, reason: r.reason }, 'replay skipped a line');
        // The same summary as `airtwin replay`, where the banner went.
        for (const line of replaySummaryLines(input!.name, summary, performance.now() - began)) io.print(line);
        // After the last line, time goes on at wall speed, so command timeouts still fire (not
        // at N times while the last rows are written).
        driver.followWallTime();
        await ingest.flush();
      }, (e: unknown) => {
        input?.dispose();
        bar?.stop();
        log.error({ err: e }, 'replay failed');
        driver.followWallTime();
      });
    }

    io.print(`airtwin ${VERSION}`);
    io.print(`  gateway  ${gatewayUrl}/api/v1   docs ${gatewayUrl}/docs`);
    io.print(`  rrm      ${rrmUrl}/api/v1   docs ${rrmUrl}/docs`);
    io.print(`  uploads  ${uploaderUrl}/v1/upload/<command uuid>${upload.base !== uploaderUrl ? ` (APs are sent to ${upload.base})` : ''}, files in ${files.dir}`);
    io.print(`  data     ${store.path}`);
    io.print(`  auth     ${authenticator.modes.join(', ')}`);
    if (sim) io.print(`  venue    ${sim.venue.name}: ${sim.venue.aps.length} APs, ${sim.venue.clients.length} clients, seed ${sim.seed}, speed ${config.speed}`);
    else if (input) {
      io.print(`  replay   ${inputLabel(input)} at speed ${config.speed}${config.keepTime ? ', recorded times' : ''}`);
      const gapNote = partsAfterGapNote(input);
      if (gapNote) io.print(gapNote);
    } else io.print('  venue    none (--no-sim)');
    if (recorder) io.print(`  record   ${config.record}`);
    if (natsLinks) {
      const st = natsLinks.status();
      io.print(`  nats     ${config.nats} (real APs through \`airtwin edge\`), durable ${st.durable}, filter ${st.filter.join(',')}${st.filtering === 'client' ? ' (applied by this worker: see the log)' : ''}`);
    }
    io.print(`  view     ${gatewayUrl}/${authenticator.generatedToken ? `#token=${authenticator.generatedToken}` : ''}`);
    if (authenticator.generatedToken) io.print(`  token    ${authenticator.generatedToken}   (send "Authorization: Bearer <token>")`);

    let closing: Promise<void> | undefined;
    return {
      gateway, rrm, gatewayUrl, rrmUrl, uploaderUrl, uploader, store, fleet, commandService, clock, sim, ingest, replay, generatedToken: authenticator.generatedToken,
      rrmService: { store: rrmStore, applier, collector, scheduler },
      close: () => (closing ??= closeAll()),
    };
  } catch (e) {
    await closeAll();
    if (e instanceof Error && 'code' in e && (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port in use: ${(e as NodeJS.ErrnoException & { port?: number }).port ?? ''} (choose another with --gateway-port / --rrm-port / --upload-port)`);
    }
    throw e;
  }
}
