/**
 * What a replay shows on the terminal: the progress bar over the recording's bytes and the
 * summary at its end, for `replay` and `serve --replay`.
 */
import { statSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { RejectedLine, ReplayProgress, ReplaySummary } from '../links/replay/replayer.js';

/** `n` and `noun`, in the plural unless n is 1 ("1 frame", "0 frames"). */
function counted(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** The summary of a replay, one line each: counts, then every reported line with its number and why. */
export function replaySummaryLines(file: string, s: ReplaySummary, wallMs: number): string[] {
  const perSecond = wallMs > 0 ? s.frames / (wallMs / 1000) : s.frames;
  // A paced replay of a quiet recording plays under one frame a second: one decimal, not "0".
  const rate = perSecond < 9.95 ? perSecond.toFixed(1) : String(Math.round(perSecond));
  const lines = [`replay: ${counted(s.frames, 'frame')} from ${counted(s.devices, 'device')}, ${(s.durationMs / 1000).toFixed(1)} s recorded, `
    + `played in ${(wallMs / 1000).toFixed(2)} s (${rate} frames/s)${s.stopped ? ', stopped early' : ''}`];
  if (s.dropped > 0) lines.push(`replay: ${counted(s.dropped, 'frame')} recorded while ${s.dropped === 1 ? 'its AP was disconnected was' : 'their AP was disconnected were'} not delivered`);
  // Each reported line with its file, number and why; past the reported ones, how many more.
  const listed = (items: readonly RejectedLine[], count: number): void => {
    for (const r of items) lines.push(`  ${r.file ?? file}:${r.line}: ${r.reason}`);
    if (count > items.length) lines.push(`  ... and ${count - items.length} more`);
  };
  lines.push(`replay: ${counted(s.rejectedCount, 'rejected line')}${s.rejectedCount > 0 ? ':' : ''}`);
  listed(s.rejected, s.rejectedCount);
  if (s.refusedCount > 0) lines.push(`replay: ${counted(s.refusedCount, 'frame')} refused by their device actor, as a live AP's would be:`);
  listed(s.refused, s.refusedCount);
  if (s.unmatchedCount > 0) lines.push(`replay: ${counted(s.unmatchedCount, 'recorded command')} not run by their device actor, or results of none it ran:`);
  listed(s.unmatched, s.unmatchedCount);
  return lines;
}

/**
 * `stream` as cli-progress draws on it, without its cursor save (ESC 7) at start and restore (ESC 8)
 * at stop: the bar is drawn on the line the cursor is on. A restore took the cursor back to the
 * line the bar started on, above anything printed since (`SIGINT: shutting down`), and the
 * summary was then written over it.
 */
function onCurrentLine(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  const tty = stream as NodeJS.WritableStream & { columns?: number; isTTY?: boolean };
  // What cli-progress uses of a stream (its terminal writes through `write`, readline's too).
  return {
    isTTY: tty.isTTY,
    get columns() { return tty.columns; },
    write: (chunk: string) => (chunk === '\x1b7' || chunk === '\x1b8' ? true : stream.write(chunk)),
  } as unknown as NodeJS.WritableStream;
}

export interface ReplayProgressBar {
  update(p: ReplayProgress): void;
  /** Writes `line` above the bar: other output never lands on the bar's line. */
  print(line: string): void;
  /**
   * Ends the bar: at 100 % with the summary's counts when the replay played to its end, where it
   * was when it was stopped (`summary.stopped`) or failed (no summary).
   */
  stop(summary?: Pick<ReplaySummary, 'frames' | 'devices' | 'stopped'>): void;
}

/**
 * A progress bar over the recording's bytes on `stream` (a terminal), for `replay` and `serve
 * --replay`. It is first drawn at the first progress, so lines printed as the replay starts (the
 * `serve` banner) come before it, not on its line.
 */
export function replayProgressBar(stream: NodeJS.WritableStream, files: readonly string[]): ReplayProgressBar {
  const total = files.reduce((n, f) => n + statSync(f).size, 0);
  const bar = new cliProgress.SingleBar({
    format: 'replay [{bar}] {percentage}% | {frames} frames | {devices} devices', stream: onCurrentLine(stream), hideCursor: true,
    // Drawn on every tick, not only when it changed: a line printed above it clears its line.
    forceRedraw: true,
  }, cliProgress.Presets.shades_classic);
  let state: 'waiting' | 'drawn' | 'stopped' = 'waiting';
  const draw = (read: number, frames: number, devices: number) => {
    if (state === 'waiting') {
      state = 'drawn';
      bar.start(total, Math.min(total, read), { frames, devices });
    } else bar.update(Math.min(total, read), { frames, devices });
  };
  return {
    update: (p) => { if (state !== 'stopped') draw(p.read, p.frames, p.devices); },
    print: (line) => {
      if (state !== 'drawn') {
        stream.write(`${line}\n`);
        return;
      }
      // The line takes the bar's place; the bar is drawn again on the next line.
      stream.write(`\r\x1b[2K${line}\n`);
      bar.render();
    },
    stop: (summary) => {
      const finished = summary !== undefined && !summary.stopped;
      if (finished && state !== 'stopped') draw(total, summary.frames, summary.devices);
      if (state === 'drawn') bar.stop();
      state = 'stopped';
    },
  };
}
