/**
 * `airtwin replay FILE [--speed N|max] [--keep-time] [--data-dir DIR]`: play a recording into a
 * data dir (fresh or existing) through a fleet of device actors and the ingest pipeline, as if
 * the recorded APs were connected now (docs/record-replay.md#the-recording-format).
 *
 * The composition: one process clock (a VirtualClock at --speed max, wall time times N
 * otherwise), a Fleet on it, `startIngest` writing the fleet's events to DuckDB, the commands of
 * recorded `down` frames persisted to the commands table, and `startReplay` feeding the fleet.
 * FILE's rotated parts (FILE.1, FILE.2, ... as `--record-max-bytes` writes them) follow it; FILE
 * `-` or a pipe is read from a temporary copy (replay-input.ts).
 * A progress bar on a terminal; a summary at the end (frames, devices, rejected lines with
 * their numbers and why). The data dir ends as the recording left the devices: the fleet is
 * stopped only after the pipeline has written everything and stopped listening.
 */
import { asyncScheduler } from 'rxjs';
import { listValue } from '@duckdb/node-api';
import type { DeviceDetails } from '../../actors/fleet.js';
import type { Command } from '../../actors/device/device.types.js';
import { ScaledClock, VirtualClock } from '../../simulator/clock.js';
import { checkDataDir, ConfigError, realPathOf, sameFile } from '../config/flags.js';
import { wallClock, type Clock } from '../protocol/clock.js';
import { Store } from '../store/duckdb.js';
import { CommandsRepo } from '../store/commands-repo.js';
import { DevicesRepo } from '../store/devices-repo.js';
import { BlacklistRepo } from '../store/blacklist-repo.js';
import { DefaultConfigsRepo } from '../store/default-configs-repo.js';
import { acceptedConnect, startFleetRuntime, type FleetRuntime } from './fleet-runtime.js';
import { startIngest, type Ingest } from '../pipelines/ingest.js';
import { clockScheduler } from '../pipelines/clock-scheduler.js';
import type { PipelineLogger } from '../pipelines/duckdb-sink.js';
import type { IngestMetrics } from '../pipelines/metrics.js';
import type { OpenTableWriter } from '../pipelines/table-writer.js';
import { isPartName } from '../links/record/ndjson-writer.js';
import { firstTime, lastTime, NotARecordingError, recordedConnects } from '../links/replay/read-recording.js';
import { inputLabel, openReplayInput, partsAfterGapNote, type ReplayInput } from './replay-input.js';
import { replayProgressBar, replaySummaryLines, type ReplayProgressBar } from './replay-report.js';
import { recordingDigest, startReplay, type ReplayOptions, type ReplaySummary } from '../links/replay/replayer.js';

export interface ReplayCommandOptions {
  file: string;
  /** A factor of real time, or 'max' (default): discrete-event, as fast as the pipeline takes it. */
  speed?: number | 'max';
  keepTime?: boolean;
  dataDir: string;
}

export interface ReplayIo {
  /** Messages and the summary. */
  out: NodeJS.WritableStream;
  /** Show a progress bar (stdout is a TTY). */
  progress?: boolean;
  /** Standard input, for FILE `-` (default process.stdin). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Wall clock: "now" of the first line when not --keep-time (tests pass a fixed one). */
  clock?: Clock;
  logger?: PipelineLogger;
  /**
   * Ends the replay after the current line (the CLI's Ctrl-C): what was played is still
   * written, and the summary says it stopped early.
   */
  stop?: AbortSignal;
  /** How ingest writes each table (startIngest's `openWriter`; default its own). The replay bench measures the reference writer through it. */
  tableWriters?: (store: Store) => OpenTableWriter;
}

export interface ReplayResult {
  summary: ReplaySummary;
  /** Each replayed device as the recording left it, by serial (sorted): the deterministic end state. */
  devices: Record<string, DeviceDetails>;
  ingest: IngestMetrics;
  /** Wall time of the replay, ms (reported, not part of the end state). */
  wallMs: number;
  /** With --keep-time: the rows the data dir already held where this replay writes (keptTimeOverlap). */
  overlap?: KeptTimeOverlap;
}

/** Rows per table that a data dir held for the recorded devices from the recording's first time on. */
export interface KeptTimeOverlap {
  statistics: number;
  health_checks: number;
  device_logs: number;
}

/**
 * What a --keep-time replay into `store` lands next to: the rows of `serials` recorded at or
 * after `fromMs` (the recording's first time). Appended rows have no natural key to tell a
 * replayed state from a live one, so a second --keep-time replay of a file into the same data
 * dir writes its rows twice; the counts, and the note that says so before the replay starts
 * (none when there are no such rows).
 */
export async function keptTimeOverlap(store: Store, dataDir: string, serials: readonly string[], fromMs: number, toMs?: number): Promise<{ overlap: KeptTimeOverlap; note?: string }> {
  const out: KeptTimeOverlap = { statistics: 0, health_checks: 0, device_logs: 0 };
  if (serials.length === 0) return { overlap: out };
  // One list parameter, as the RRM model's queries pass serials (one parameter each took ~1 s for 30,000 APs).
  const list = listValue([...serials]);
  // Rows after the recording's end (a later live run, a replay at today's time) are not the
  // rows this replay would store again: only its own span counts, when its end is known.
  const until = toMs === undefined ? Number.MAX_SAFE_INTEGER : Math.ceil(toMs / 1000);
  for (const table of Object.keys(out) as (keyof KeptTimeOverlap)[]) {
    const [r] = await store.query<{ n: number }>(`SELECT count(*)::DOUBLE AS n FROM ${table} WHERE recorded >= $1 AND recorded <= $2 AND list_contains($3, serial)`, [Math.floor(fromMs / 1000), until, list]);
    out[table] = r?.n ?? 0;
  }
  return { overlap: out, note: overlapNote(dataDir, out, fromMs, toMs) };
}

/** The warning printed before a --keep-time replay whose rows would land next to rows already there; undefined when there are none. */
function overlapNote(dataDir: string, o: KeptTimeOverlap, fromMs: number, toMs: number | undefined): string | undefined {
  if (o.statistics + o.health_checks + o.device_logs === 0) return undefined;
  const span = toMs === undefined ? `at or after the recording's start (${new Date(fromMs).toISOString()})` : `within the recording's span (${new Date(fromMs).toISOString()} to ${new Date(toMs).toISOString()})`;
  return `replay: note: ${dataDir} already holds ${o.statistics} statistics, ${o.health_checks} health check and ${o.device_logs} log rows `
    + `of these devices ${span}; with --keep-time this replay adds its rows `
    + `next to them, so rows of an earlier replay of this file end up there twice (use a fresh --data-dir to keep one copy)`;
}

/**
 * The file of `replayFiles` that a recording to `record` would truncate or delete, if any: the
 * record file itself (by any path: relative, through a link, a hard link) or a part of it
 * (FILE.N, FILE.N.gz), which the recorder removes when it starts and writes when it rotates.
 * `serve --replay F --record F` emptied F before the replay read a line.
 */
export function replayFileRecordedOver(record: string, replayFiles: readonly string[]): string | undefined {
  // Part names are compared on real paths; a record file not made yet has a real folder (checkWritableFile).
  const target = realPathOf(record);
  return replayFiles.find((f) => {
    if (sameFile(record, f)) return true;
    const part = realPathOf(f);
    return target !== undefined && part !== undefined && isPartName(target, part);
  });
}

// An Error has no enumerable fields: JSON.stringify would show `{}` where its message belongs.
const shownFields = (o: object): string => JSON.stringify(o, (_k, v: unknown) => (v instanceof Error ? v.message : v));
const quietLogger = (say: (line: string) => void): PipelineLogger => ({
  info: () => undefined,
  warn: (o, msg) => say(`replay: ${msg} ${shownFields(o)}`),
  error: (o, msg) => say(`replay: ${msg} ${shownFields(o)}`),
});

/**
 * Ids for commands the actors create themselves (a reconcile configure): stable per run of a
 * recording (`digest`, recordingDigest), UUID-shaped, and apart from another recording's.
 */
function systemIds(digest: string): () => string {
  let n = 0;
  return () => `${digest}00-0000-4000-9000-${(++n).toString(16).padStart(12, '0')}`;
}

/** The command history of a replay: a record whose UUID is already stored (a second replay of the same file) is replaced. */
class ReplacingCommands extends CommandsRepo {
  override async insert(command: Command): Promise<void> {
    if (await this.get(command.UUID)) await this.update(command);
    else await super.insert(command);
  }
}

/** The data dir's store (serve, replay); one that cannot be opened or created is a usage error. */
export async function openDataDir(dataDir: string): Promise<Store> {
  try {
    return await Store.open(dataDir);
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { cause?: unknown };
    throw new ConfigError(`--data-dir: ${dataDir} is not usable (${err.code ?? String(err.cause ?? err.message).split('\n')[0]})`);
  }
}

/**
 * The process clock of a replay (also for `serve --replay`): a VirtualClock at 'max', else wall
 * time times `speed`. With keepTime it starts at the first recorded time. Otherwise the recording
 * is placed so that its last line plays when the replay should end: now at 'max' (the replay
 * takes seconds), its span / speed from now when paced. So the history a replay writes ends at
 * the wall's time, not past it, and `serve`'s clock after the replay is at or behind the wall's
 * (at 'max' it then catches up, replayDriver; a paced one stays behind by its start-up time,
 * and below speed 1 by span × (1 / speed - 1), as before); a replay faster than real time whose
 * first line played now wrote rows up to its span minus its own duration into the future (an
 * hour at 'max': every row dated up to an hour ahead). The fleet, the pipelines and
 * `startReplay` must all get this one clock.
 */
export async function replayClock(input: ReplayInput, speed: number | 'max', keepTime: boolean | undefined, wall: Clock = wallClock): Promise<VirtualClock | ScaledClock> {
  let first: number | undefined;
  try {
    first = await firstTime(input.files);
  } catch (e) {
    // Named as the user named it, not as its temporary copy.
    if (e instanceof NotARecordingError && input.stream) throw new NotARecordingError(input.name, e.first, e.lines);
    throw e;
  }
  const t0 = first ?? wall.now();
  // How far ahead of the wall the last line would play if the first played now: only a replay
  // faster than real time gets ahead, so only then is the end read (a gzip part is inflated for it).
  const faster = speed === 'max' || speed > 1;
  const last = keepTime || !faster || first === undefined ? undefined : await lastTime(input.files);
  const span = last === undefined ? 0 : Math.max(0, last - t0);
  const ahead = speed === 'max' ? span : span - span / speed;
  const start = keepTime ? t0 : wall.now() - ahead;
  if (speed === 'max') return new VirtualClock(start);
  // Held at the start until the first line plays (startReplay moves the hold line by line), so
  // the time the data dir and the fleet take to open does not run N times faster ahead of it.
  return new ScaledClock(wall, speed, start, { heldAtStart: true });
}

export async function runReplay(opts: ReplayCommandOptions, io: ReplayIo): Promise<ReplayResult> {
  checkDataDir(opts.dataDir);
  const input = await openReplayInput('replay:', opts.file, { stdin: io.stdin, say: (line) => io.out.write(`${line}\n`), stop: io.stop });
  try {
    return await replayInto(input, opts, io);
  } finally {
    input.dispose();
  }
}

async function replayInto(input: ReplayInput, opts: ReplayCommandOptions, io: ReplayIo): Promise<ReplayResult> {
  const speed = opts.speed ?? 'max';
  const { files } = input;
  const clock = await replayClock(input, speed, opts.keepTime, io.clock);
  // The recording's first time with --keep-time (taken now: a scaled clock runs on while the data dir opens).
  const startMs = clock.now();
  const view: { bar?: ReplayProgressBar } = {};
  // Warnings while the bar is drawn go above it.
  const logger = io.logger ?? quietLogger((line) => (view.bar ? view.bar.print(line) : io.out.write(`${line}\n`)));
  io.out.write(`replay: ${inputLabel(input)} at speed ${speed}${opts.keepTime ? ', recorded times kept' : ''} -> ${opts.dataDir}\n`);
  const gapNote = partsAfterGapNote(input);
  if (gapNote) io.out.write(`${gapNote}\n`);

  const store = await openDataDir(opts.dataDir);
  // One read of the recording's head names both the replayed commands and the actors' own.
  const digest = recordingDigest(files);
  let ingest: Ingest | undefined;
  let runtime: FleetRuntime | undefined;
  let stopped = false;
  try {
    runtime = await replayFleet(store, clock, logger, digest);
    const { fleet } = runtime;
    const connects = await recordedConnects(files, acceptedConnect);
    await runtime.provisionAll(connects);
    const kept = opts.keepTime ? await keptTimeOverlap(store, opts.dataDir, [...connects.keys()], startMs, await lastTime(files)) : undefined;
    if (kept?.note) io.out.write(`${kept.note}\n`);
    ingest = replayIngest(fleet, store, clock, logger, speed === 'max', io.tableWriters?.(store));
    view.bar = io.progress ? replayProgressBar(io.out, files) : undefined;
    const began = performance.now();
    const { summary, serials } = await playRecording(
      { file: files, digest, fleet, clock, speed, keepTime: opts.keepTime }, ingest, view.bar, io.stop,
    );
    const devices: Record<string, DeviceDetails> = {};
    for (const serial of serials) {
      const d = fleet.details(serial);
      if (d) devices[serial] = d;
    }
    await ingest.close();
    await runtime.flush();
    const wallMs = performance.now() - began;
    stopped = true;
    await runtime.close('The replay ended.');
    for (const line of replaySummaryLines(input.name, summary, wallMs)) io.out.write(`${line}\n`);
    const { rowsRejected } = ingest.metrics();
    if (rowsRejected > 0) io.out.write(`replay: ${rowsRejected} rows DuckDB refused were not stored (each is logged above)\n`);
    return { summary, devices, ingest: ingest.metrics(), wallMs, overlap: kept?.overlap };
  } finally {
    // On a failure too: actors on a scaled clock hold real timers that would keep the process up.
    if (!stopped) await runtime?.close('The replay failed.');
    await ingest?.close();
    await store.close();
  }
}

/**
 * The same fleet as `serve --replay`: device records admit the APs (the recorded ones are
 * provisioned first, so admission needs no I/O while the clock races), a recorded configure
 * becomes the device's configuration, and the command history is written. A data dir replayed
 * into is then served with its devices.
 */
async function replayFleet(store: Store, clock: Clock, logger: PipelineLogger, digest: string): Promise<FleetRuntime> {
  return startFleetRuntime({
    clock, devices: await DevicesRepo.load(store), blacklist: await BlacklistRepo.load(store),
    defaultConfigs: await DefaultConfigsRepo.load(store), commands: new ReplacingCommands(store),
    autoProvision: true, logger, newId: systemIds(digest),
  });
}

/**
 * At max speed the time limit of a batch would run on virtual time, where a recorded minute
 * passes in microseconds: batches would hold one event each. Size alone makes the batches,
 * and bigger ones: each batch costs one statement per table (measured: 10,000 rows
 * per batch spends about a seventh less CPU than 2,000 on the hall recording).
 */
function replayIngest(fleet: FleetRuntime['fleet'], store: Store, clock: Clock, logger: PipelineLogger, max: boolean, openWriter?: OpenTableWriter): Ingest {
  return startIngest({
    // Retry waits on wall time: a virtual clock stands still once the lines are played, and
    // a wait on it would never end (the process exited 13 with the batch unwritten).
    events$: fleet.events$, store, scheduler: clockScheduler(clock), retryScheduler: asyncScheduler, logger,
    maxDelayMs: max ? 3_600_000 : undefined, maxRows: max ? 10_000 : undefined, openWriter,
  });
}

type PlayOptions = Pick<ReplayOptions, 'file' | 'digest' | 'fleet' | 'clock' | 'speed' | 'keepTime'>;

/** Plays the recording into the fleet, paced by the ingest's backlog at max speed; `stop` ends it early. */
async function playRecording(
  opts: PlayOptions, ingest: Ingest, bar: ReplayProgressBar | undefined, stop: AbortSignal | undefined,
): Promise<{ summary: ReplaySummary; serials: string[] }> {
  const replay = startReplay({
    ...opts,
    onProgress: (p) => bar?.update(p),
    // Paced replays move a line every few (scaled) seconds: show each one.
    progressEvery: opts.speed === 'max' ? 1000 : 1,
    // At max speed, bound memory: past five batches' worth of queued rows, wait until two are
    // left (not until it is empty: the writer would idle while the next batch is built).
    backpressure: () => (ingest.metrics().rowsQueued > 50_000 ? ingest.backlogAtMost(20_000) : undefined),
  });
  const onStop = () => replay.stop();
  stop?.addEventListener('abort', onStop);
  if (stop?.aborted) onStop();
  const summary = await replay.done
    // A failed replay leaves the bar where it was, and the cursor back on.
    .catch((e: unknown) => { bar?.stop(); throw e; })
    .finally(() => stop?.removeEventListener('abort', onStop));
  bar?.stop(summary);
  return { summary, serials: [...replay.links.keys()].sort() };
}
