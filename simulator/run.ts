/**
 * Run a venue with no servers: every AP on its SimLink over one VirtualClock, as fast as the
 * CPU allows, producing the recording lines of docs/record-replay.md#the-recording-format:
 *   {"t":<ms>,"serial":"<12 hex>","dir":"up","frame":{...}}
 *   {"t":<ms>,"serial":"<12 hex>","event":"connect"|"disconnect"}
 * Lines come out in time order (the clock runs events in (time, sequence) order), and the
 * same scenario + seed gives the same lines, byte for byte.
 */
import { VirtualClock } from './clock.js';
import { startClients } from './clients/dynamics.js';
import { SimLink } from './link.js';
import { scenarioStart, type Scenario } from './scenario.js';
import { buildVenue, type Venue } from './venue.js';

export interface RunOptions {
  scenario: Scenario;
  /** Overrides the scenario seed. */
  seed?: number | string;
  /** Receives each recording line (no trailing newline), in order. */
  onLine: (line: string) => void;
}

export interface Run {
  venue: Venue;
  clock: VirtualClock;
  links: SimLink[];
  startMs: number;
  /** Up frames produced so far. */
  frames(): number;
}

/** Build the venue, subscribe to every AP's link and place the stations; time has not moved yet. */
export function startRun(opts: RunOptions): Run {
  const clock = new VirtualClock(scenarioStart(opts.scenario));
  const venue = buildVenue(opts.scenario, clock, opts.seed ?? opts.scenario.seed);
  let frames = 0;
  const links = venue.aps.map((ap) => {
    const mid = `,"serial":"${ap.serial}","dir":"up","frame":`;
    const link = new SimLink(venue, ap.serial, {
      tap: (json, at) => {
        frames++;
        opts.onLine(`{"t":${at}${mid}${json}}`);
      },
    });
    link.subscribe((e) => {
      if (e.type === 'connected') opts.onLine(`{"t":${e.at},"serial":"${ap.serial}","event":"connect"}`);
      else if (e.type === 'disconnected') opts.onLine(`{"t":${e.at},"serial":"${ap.serial}","event":"disconnect"}`);
    });
    return link;
  });
  startClients(venue);
  return { venue, clock, links, startMs: venue.start, frames: () => frames };
}

/** Run a venue for `durationMs` of simulated time in one go. */
export function runVenue(opts: RunOptions & { durationMs: number }): { frames: number; devices: number; startMs: number; endMs: number; run: Run } {
  const run = startRun(opts);
  const endMs = run.startMs + opts.durationMs;
  run.clock.runUntil(endMs);
  return { frames: run.frames(), devices: run.venue.aps.length, startMs: run.startMs, endMs, run };
}

/** Parse durations like `90s`, `10m`, `24h`, `2d` or plain milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new RangeError(`'${text}' is not a duration (use e.g. 90s, 10m, 24h, 2d)`);
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms']!;
  return Math.round(n * unit);
}
