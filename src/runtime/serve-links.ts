/**
 * The link sources of `airtwin serve`, each a module with a start, a close (registered with the
 * root's `Closers`) and its banner lines: the simulated venue, real APs over NATS, a replay.
 * The simulator and a replay exclude each other; NATS can join either.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { ServeConfig } from '../config/schema.js';
import type { Clock } from '../protocol/clock.js';
import type { DeviceLink } from '../protocol/device-link.js';
import { DEFAULT_FRAME_BUDGET } from '../protocol/frame-budget.js';
import { ConfigError } from '../config/flags.js';
import type { Logging } from '../server/logging.js';
import type { Store } from '../store/duckdb.js';
import type { HealthSources } from '../gateway/routes/health.js';
import type { Uploader } from '../gateway/uploader.js';
import { connectNats } from '../links/nats/connect.js';
import { NatsLinkManager } from '../links/nats/nats-link-manager.js';
import { startReplay } from '../links/replay/replayer.js';
import { lastTime, recordedConnects } from '../links/replay/read-recording.js';
import type { Fleet } from '../../actors/fleet.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import { acceptedConnect, type FleetRuntime } from './fleet-runtime.js';
import { keptTimeOverlap } from './replay.js';
import { replayProgressBar, replaySummaryLines } from './replay-report.js';
import { inputLabel, partsAfterGapNote, type ReplayInput } from './replay-input.js';
import { startSimVenue, type SimVenue } from './sim-venue.js';
import { simUpload } from './sim-upload.js';
import { simRtty } from './sim-rtty.js';
import type { Closers } from './serve-services.js';
import type { ClockDriver, ServeIo } from './serve-inputs.js';

/** A started link source: what the start banner says of it. */
export interface LinkSource {
  banner(): string[];
}

export interface NatsSource extends LinkSource {
  conn: NatsConnection;
  links: NatsLinkManager;
  /** The `links` part of GET /health. */
  health(): ReturnType<HealthSources['links']>;
}

/** Real APs: frames from the edges over NATS, through the same actors as simulated ones. */
export async function startNatsSource(
  config: Readonly<ServeConfig> & { nats: string },
  ctx: { clock: Clock; logging: Logging; fleet: Fleet; wrap(link: DeviceLink): DeviceLink; flush(): Promise<void>; closers: Closers },
): Promise<NatsSource> {
  const log = ctx.logging.for('links');
  let conn: NatsConnection;
  try {
    conn = await connectNats({ url: config.nats, name: 'airtwin-serve', logger: log });
  } catch (e) {
    throw new ConfigError(`--nats: cannot connect to ${config.nats} (${(e as Error).message})`);
  }
  ctx.closers.push(async () => void (await conn.drain().catch(() => undefined)));
  // A frame is acknowledged to JetStream once the rows it became are in DuckDB.
  const links = await NatsLinkManager.start({
    nc: conn, logger: log, clock: ctx.clock, onDevice: (link) => ctx.fleet.attach(ctx.wrap(link)), persisted: () => ctx.flush(),
    durable: config.natsDurable, ...(config.natsFilter ? { filterSubjects: [...config.natsFilter] } : {}),
    budget: { ...DEFAULT_FRAME_BUDGET, framesPerS: config.apMaxFramesPerS, bytesPerS: config.apMaxBytesPerS, strikes: config.apOffenderSeconds },
  });
  // Closed before the fleet stops, so no frame arrives at a stopped actor.
  ctx.closers.push(() => links.close());
  return {
    conn, links,
    health: () => {
      const st = links.status();
      return { nats: { ...st, state: st.link } };
    },
    banner: () => {
      const st = links.status();
      return [`  nats     ${config.nats} (real APs through \`airtwin edge\`), durable ${st.durable}, filter ${st.filter.join(',')}${st.filtering === 'client' ? ' (applied by this worker: see the log)' : ''}`];
    },
  };
}

export interface SimSource extends LinkSource {
  sim: SimVenue;
}

/**
 * The simulated venue of `--scenario`, its APs attached to the fleet. A warm start's clock,
 * held at its start while the service came up, runs from the moment the venue does.
 */
export async function startSimSource(
  config: Readonly<ServeConfig>,
  ctx: {
    clock: Clock; logging: Logging; fleet: Fleet; devices: DevicesRepo; wrap(link: DeviceLink): DeviceLink; cert?: Buffer; closers: Closers;
    driver: ClockDriver;
  },
): Promise<SimSource> {
  const rtty = simRtty({ clock: ctx.clock, logger: ctx.logging.for('simulator'), tls: ctx.cert !== undefined });
  const sim = await startSimVenue({
    scenario: config.scenario, seed: config.seed, clock: ctx.clock, fleet: ctx.fleet, devices: ctx.devices, wrap: ctx.wrap,
    upload: simUpload(ctx.logging.for('gateway'), ctx.cert), rtty: rtty.rtty,
  });
  ctx.closers.push(() => sim.close());
  ctx.closers.push(async () => rtty.close());
  const warm = ctx.driver.warmUp;
  ctx.driver.release();
  const caughtUp = warm?.caughtUpAt();
  if (warm && caughtUp !== undefined) {
    const log = ctx.logging.for('links');
    log.info({ warmUpS: warm.ms / 1000, speed: warm.speed, caughtUpAt: new Date(caughtUp).toISOString() }, 'warming up: the venue runs faster until it reaches the wall clock');
    const timer = ctx.clock.setTimeout(() => log.info({ speed: config.speed }, 'warm-up done: the venue follows the wall clock'), caughtUp - ctx.clock.now());
    ctx.closers.push(async () => ctx.clock.clearTimeout(timer));
  }
  return {
    sim,
    banner: () => [
      `  venue    ${sim.venue.name}: ${sim.venue.aps.length} APs, ${sim.venue.clients.length} clients, seed ${sim.seed}, speed ${config.speed}`,
      ...(warm ? [`  warm-up  ${warmUpSeconds(warm.ms)} s of simulated history, made at ${warm.speed}x until it reaches the wall clock${config.speed === 1 ? '' : ` at speed ${config.speed}`}`] : []),
    ],
  };
}

/** Whole seconds, or one decimal below 10 s (a warm-up shortened by a data dir's last rows). */
function warmUpSeconds(ms: number): string {
  return ms >= 10_000 ? String(Math.round(ms / 1000)) : (ms / 1000).toFixed(1);
}

/** What the banner says of a replay: known before it starts, since it starts after the ports bind. */
export function replayBanner(config: Readonly<ServeConfig>, input: ReplayInput): string[] {
  const gapNote = partsAfterGapNote(input);
  return [`  replay   ${inputLabel(input)} at speed ${config.speed}${config.keepTime ? ', recorded times' : ''}`, ...(gapNote ? [gapNote] : [])];
}

export interface ReplaySource extends LinkSource {
  replay: ReturnType<typeof startReplay>;
}

/**
 * A recording played into the fleet. Started once both ports are bound: a port in use (exit 2)
 * must find the data dir as it was, not with a whole replay written into it.
 */
export async function startReplaySource(
  config: Readonly<ServeConfig>,
  io: ServeIo,
  ctx: {
    input: ReplayInput; driver: ClockDriver; store: Store; runtime: FleetRuntime; startedAt: number; logging: Logging;
    wrap(link: DeviceLink): DeviceLink; uploader: Uploader; flush(): Promise<void>; closers: Closers;
  },
): Promise<ReplaySource> {
  const { input, driver } = ctx;
  const files = input.files;
  const log = ctx.logging.for('links');
  // Admission of an unknown AP writes its record (wall-time I/O) while a replay's clock may
  // race ahead; provisioning the recorded APs first keeps admission instant.
  const connects = await recordedConnects(files, acceptedConnect);
  await ctx.runtime.provisionAll(connects);
  if (config.keepTime) {
    const { overlap, note } = await keptTimeOverlap(ctx.store, config.dataDir, [...connects.keys()], ctx.startedAt, await lastTime(files));
    if (note) {
      log.warn({ ...overlap }, 'the data dir already holds rows of the recorded devices from the recording\'s first time on');
      io.print(note);
    }
  }
  const bar = io.progress ? replayProgressBar(io.progress, files) : undefined;
  const began = performance.now();
  const replay = startReplay({
    file: files, fleet: ctx.runtime.fleet, clock: driver.clock, speed: config.speed, keepTime: config.keepTime, wrapLink: ctx.wrap,
    onUpload: (u) => ctx.uploader.accept(u.uuid, u.serial, u.data),
    onProgress: bar?.update, progressEvery: config.speed === 'max' ? 1000 : 1,
  });
  ctx.closers.push(async () => replay.stop());
  // Handlers on `done` itself (no finally in between), so the summary is printed before any
  // later awaiter of `done` (tests, scripts) runs.
  void replay.done.then(async (summary) => {
    input.dispose();
    bar?.stop(summary);
    log.info({ frames: summary.frames, devices: summary.devices, rejected: summary.rejectedCount, refused: summary.refusedCount, unmatched: summary.unmatchedCount, dropped: summary.dropped }, 'replay finished; serving the last state');
    // Each with its file: with rotated parts, line 3 of FILE and of FILE.2 looked the same in the log.
    for (const r of summary.rejected.slice(0, 20)) log.warn({ file: r.file ?? input.name, line: r.line, reason: r.reason }, 'replay skipped a line');
    // The same summary as `airtwin replay`, where the banner went.
    for (const line of replaySummaryLines(input.name, summary, performance.now() - began)) io.print(line);
    // After the last line, time goes on at wall speed, so command timeouts still fire (not
    // at N times while the last rows are written).
    driver.followWallTime();
    await ctx.flush();
  }, (e: unknown) => {
    input.dispose();
    bar?.stop();
    log.error({ err: e }, 'replay failed');
    driver.followWallTime();
  });
  return { replay, banner: () => replayBanner(config, input) };
}
