/**
 * `airtwin simulate`: run a venue straight from the simulator (no servers) as fast as possible
 * and write every frame to an NDJSON recording (docs/record-replay.md#the-recording-format).
 * Same scenario + seed => a byte-identical file. `speed: 'max'` (the default) runs the
 * discrete-event clock flat out; a number N paces it at N x real time (between slices of
 * simulated time, so the file is the same either way, only later).
 */
import { checkRecordFile } from '../config/flags.js';
import { wallClock } from '../protocol/clock.js';
import { loadScenario } from '../../simulator/scenario.js';
import { parseDuration, startRun } from '../../simulator/run.js';
import { NdjsonParts, RecordingError } from '../links/record/ndjson-writer.js';

const SLICE_MS = 60_000;

export interface SimulateOptions {
  /** Scenario name (in scenarios/) or file path. */
  scenario: string;
  seed?: number;
  /** Simulated duration, e.g. '10m', '24h'. */
  until: string;
  /** Output file. */
  record: string;
  /** Cut the recording into FILE, FILE.1, ... each at most this many bytes. */
  recordMaxBytes?: number;
  speed?: number | 'max';
  /**
   * Set `aborted` to stop at the end of the current slice (the CLI does on SIGINT/SIGTERM): the
   * lines so far are written and the file is closed on a whole line.
   */
  signal?: { readonly aborted: boolean };
}

export interface SimulateResult {
  frames: number;
  devices: number;
  files: string[];
  /** Simulated time the run reached, in ms from its start (less than `until` when stopped). */
  simulatedMs: number;
  stopped: boolean;
}

export async function runSimulate(opts: SimulateOptions, out: NodeJS.WritableStream): Promise<SimulateResult> {
  checkRecordFile(opts.record, opts.recordMaxBytes);
  const durationMs = parseDuration(opts.until);
  const { scenario, file } = loadScenario(opts.scenario);
  const seed = opts.seed ?? scenario.seed;
  out.write(`simulate: ${scenario.name} (${file}), seed ${seed}, ${opts.until} simulated -> ${opts.record}\n`);
  const writer = new NdjsonParts(opts.record, opts.recordMaxBytes);
  let waits: Promise<void>[] = [];
  const run = startRun({
    scenario, seed,
    onLine: (line) => {
      const p = writer.write(line);
      if (p) waits.push(p);
    },
  });
  // Advance one simulated minute at a time and let the file catch up in between, so memory
  // holds at most one slice of lines whatever the venue size or duration.
  const end = run.startMs + durationMs;
  const pace = typeof opts.speed === 'number' && opts.speed > 0 ? opts.speed : undefined;
  // Paced runs advance about one wall second per slice; flat-out runs a simulated minute.
  const slice = pace ? Math.max(1, Math.min(SLICE_MS, Math.round(1000 * pace))) : SLICE_MS;
  const wall0 = wallClock.now();
  let t = run.startMs;
  try {
    while (t < end && !opts.signal?.aborted) {
      t = Math.min(end, t + slice);
      run.clock.runUntil(t);
      if (waits.length > 0) {
        await Promise.all(waits);
        waits = [];
      } else if (opts.signal) {
        // A turn of the event loop per slice, so a signal handler can set `aborted`.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (pace) {
        const wait = wall0 + (t - run.startMs) / pace - wallClock.now();
        if (wait > 0) await new Promise<void>((resolve) => wallClock.setTimeout(() => resolve(), wait));
      }
    }
    await writer.close();
  } catch (e) {
    // The writes still waited on fail the same way (a RecordingError naming the part), and the
    // file is ended: the lines written before stay.
    for (const w of waits) w.catch(() => undefined);
    await writer.close().catch(() => undefined);
    const { lines } = writer.written;
    const where = opts.record.endsWith('.gz') ? 'were compressed, and the file holds those of them that reached it (a replay reads it up to the cut)' : `are in ${writer.files.length > 1 ? 'its parts' : 'the file'}, which ends with a whole line`;
    if (e instanceof RecordingError) out.write(`simulate: stopped by a failed write: ${lines} lines ${where}\n`);
    throw e;
  }
  const result: SimulateResult = {
    frames: run.frames(), devices: run.venue.aps.length, files: [...writer.files], simulatedMs: t - run.startMs, stopped: t < end,
  };
  const files = writer.files.length > 1 ? `${opts.record} and ${writer.files.length - 1} more part(s) (${writer.files.at(-1)})` : opts.record;
  if (result.stopped) out.write(`simulate: stopped after ${Math.round(result.simulatedMs / 1000)} s of ${opts.until} simulated\n`);
  out.write(`simulate: ${result.frames} frames from ${result.devices} devices written to ${files}\n`);
  return result;
}
