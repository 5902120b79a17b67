/**
 * The first stage of `airtwin serve`: everything checked or opened before any service exists —
 * the recording and replay files, the one process clock, and the data dir's DuckDB store.
 */
import { wallClock, type Clock } from '../protocol/clock.js';
import type { ServeConfig } from '../config/schema.js';
import { checkDataDir, ConfigError, checkRecordFile, realPathOf, sameFile } from '../config/flags.js';
import { storeFile, type Store } from '../store/duckdb.js';
import { loadScenario } from '../../simulator/scenario.js';
import { processClock, replayDriver, type ClockDriver } from './fleet-runtime.js';
import { openDataDir, replayClock, replayFileRecordedOver } from './replay.js';
import { openReplayInput, type ReplayInput } from './replay-input.js';

export type { ClockDriver } from './fleet-runtime.js';

export interface ServeIo {
  /** Where the start banner goes. */
  print(line: string): void;
  /** Where JSON logs go (default stdout). */
  logDestination?: NodeJS.WritableStream;
  /** The wall (default wallClock): the process clock at speed 1, and what a faster one, or a paced replay's, runs N times faster than. */
  clock?: Clock;
  /** With --replay: a terminal to draw the replay's progress bar on. */
  progress?: NodeJS.WritableStream;
  /** Ends a start-up that is copying a stream to replay (`--replay -`; Ctrl-C): it fails with ReplayInputError. */
  stop?: AbortSignal;
}

export interface ServeInputs {
  /** With --replay: the recording's files (a stream copied to a temporary file). */
  input?: ReplayInput;
  driver: ClockDriver;
  clock: Clock;
  store: Store;
}

/** The data dir's DuckDB file or its log that a recording to `record` would truncate, if either. */
function storeRecordedOver(record: string, dataDir: string): string | undefined {
  const target = realPathOf(record);
  const db = storeFile(dataDir);
  return [db, `${db}.wal`].find((f) => sameFile(record, f) || (target !== undefined && realPathOf(f) === target));
}

/** Checks the files the settings name and opens the clock and the store; on failure nothing stays open. */
export async function openServeInputs(config: Readonly<ServeConfig>, io: ServeIo): Promise<ServeInputs> {
  if (config.record) checkRecordFile(config.record, config.recordMaxBytes);
  // A venue that is not there is said before the data dir is made.
  const scenario = config.sim && !config.replay ? loadScenario(config.scenario).scenario : undefined;
  // The data dir's own DuckDB file or its log, by any path: the recorder would truncate it.
  const ownFile = config.record ? storeRecordedOver(config.record, config.dataDir) : undefined;
  if (ownFile) throw new ConfigError(`--record: ${config.record} is ${ownFile}, the data dir's database; record to another file`);
  // A stream to replay is copied to a temporary file here, removed when the replay ends (the
  // data dir checked first, so that a copy is not made for nothing).
  if (config.replay) checkDataDir(config.dataDir);
  const input = config.replay ? await openReplayInput('--replay:', config.replay, { say: io.print, stop: io.stop }) : undefined;
  try {
    const recordedOver = config.record && input ? replayFileRecordedOver(config.record, input.files) : undefined;
    if (recordedOver) throw new ConfigError(`--record: ${config.record} would overwrite ${input!.stream ? input!.name : recordedOver}, which --replay reads; record to another file`);
    // One clock for the whole process: REST time stamps, actors, simulator, replay and pipelines.
    const wall = io.clock ?? wallClock;
    // Reading the replay's time base refuses a file that is no recording before the data dir is made.
    const replayed = input ? await replayClock(input, config.speed, config.keepTime, wall) : undefined;
    const store = await openDataDir(config.dataDir);
    try {
      // The scenario's warm-up is its default when the venue is the only source of frames.
      const warmUpS = config.warmUp ?? (config.nats ? 0 : scenario?.warmUp ?? 0);
      const warmUpMs = scenario ? await warmUpAfterStored(store, warmUpS * 1000, wall.now()) : 0;
      const driver = replayed
        ? replayDriver(replayed, { catchUp: config.keepTime ? undefined : wall })
        : processClock(config.sim ? config.speed : 1, wall, warmUpMs);
      return { input, driver, clock: driver.clock, store };
    } catch (e) {
      await store.close();
      throw e;
    }
  } catch (e) {
    input?.dispose();
    throw e;
  }
}

/**
 * The warm-up a simulated venue gets, ms: `requestedMs`, shortened so that the history it makes
 * starts after the last the data dir holds of simulated APs (their rows, their last contact).
 * A data dir served again within the warm-up would otherwise get a second history over the same
 * minutes, two states of an AP for one time.
 */
export async function warmUpAfterStored(store: Store, requestedMs: number, nowMs: number): Promise<number> {
  if (requestedMs <= 0) return 0;
  const simulated = 'serial IN (SELECT serial FROM devices WHERE simulated)';
  const [row] = await store.query<{ t: number | null }>(`SELECT max(t)::DOUBLE AS t FROM (
    SELECT max(last_recorded_contact) AS t FROM devices WHERE simulated
    UNION ALL SELECT max(recorded) FROM statistics WHERE ${simulated}
    UNION ALL SELECT max(recorded) FROM health_checks WHERE ${simulated}
    UNION ALL SELECT max(recorded) FROM device_logs WHERE ${simulated})`);
  const last = row?.t;
  if (last === null || last === undefined) return requestedMs;
  // Stored times are whole seconds: the history starts in the second after the last one.
  return Math.max(0, Math.min(requestedMs, nowMs - (last + 1) * 1000));
}
