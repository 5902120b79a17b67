import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { replayProgressBar } from '../../../src/runtime/replay-report.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'r.ndjson');
writeFileSync(file, 'x'.repeat(1000));

/** A terminal as cli-progress sees one (it draws nothing on a stream that is not a TTY), and what it was sent. */
function terminal() {
  const tty = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
  let text = '';
  tty.on('data', (d: Buffer) => { text += d.toString(); });
  return { tty, text: async () => { await new Promise((r) => setImmediate(r)); return text; } };
}
const at = (read: number, frames = 10, devices = 2) => ({ read, frames, devices, lines: 1, t: 0 });
const BAR = /replay \[[^\]]*\] (\d+)% \| (\d+) frames \| (\d+) devices/g;
const drawn = (text: string) => [...text.matchAll(BAR)].map((m) => m.slice(1, 4).map(Number));

describe('the replay progress bar', () => {
  it('draws nothing until the first progress: lines printed as the replay starts come first, whole', async () => {
    const { tty, text } = terminal();
    const bar = replayProgressBar(tty, [file]);
    bar.print('airtwin 0.1.0');
    bar.print('  replay   r.ndjson at speed 60');
    expect(await text()).toBe('airtwin 0.1.0\n  replay   r.ndjson at speed 60\n');
    bar.update(at(250));
    bar.stop({ frames: 40, devices: 2, stopped: false });
    const out = await text();
    expect(out.startsWith('airtwin 0.1.0\n  replay   r.ndjson at speed 60\n')).toBe(true);
    expect(drawn(out)[0]).toEqual([25, 10, 2]);
  });

  it('prints a line above the bar: the bar line is cleared, the line written whole, the bar drawn again below', async () => {
    const { tty, text } = terminal();
    const bar = replayProgressBar(tty, [file]);
    bar.update(at(500));
    const before = (await text()).length;
    bar.print('replay: a warning');
    const after = (await text()).slice(before);
    // Cleared line, the text, then the bar on the next line.
    expect(after.startsWith('\r\x1b[2Kreplay: a warning\n')).toBe(true);
    expect(drawn(after)).toEqual([[50, 10, 2]]);
    bar.stop({ frames: 12, devices: 2, stopped: false });
  });

  it('is drawn on the line the cursor is on, without saving and restoring the cursor (which went back above later lines)', async () => {
    const { tty, text } = terminal();
    const bar = replayProgressBar(tty, [file]);
    bar.update(at(500));
    // A line from elsewhere (the signal handler), after the bar's line.
    tty.write('\nSIGINT: shutting down\n');
    bar.stop({ frames: 12, devices: 2, stopped: true });
    const out = await text();
    expect(out.includes('\x1b7') || out.includes('\x1b8')).toBe(false);
    // The bar's last drawing comes after that line, and the cursor ends on a line of its own.
    expect(out.lastIndexOf('replay [')).toBeGreaterThan(out.indexOf('SIGINT: shutting down'));
    expect(out.endsWith('\n')).toBe(true);
  });

  it('ends at 100 % with the summary counts when the replay played to its end, even if no progress came', async () => {
    for (const early of [true, false]) {
      const { tty, text } = terminal();
      const bar = replayProgressBar(tty, [file]);
      if (early) bar.update(at(100));
      bar.stop({ frames: 609, devices: 3, stopped: false });
      expect(drawn(await text()).at(-1)).toEqual([100, 609, 3]);
    }
  });

  it('stays where it was when the replay was stopped early or failed, and draws no more after stop', async () => {
    for (const summary of [{ frames: 15, devices: 2, stopped: true }, undefined]) {
      const { tty, text } = terminal();
      const bar = replayProgressBar(tty, [file]);
      bar.update(at(300, 15));
      bar.stop(summary);
      bar.update(at(1000, 99));
      bar.print('replay: 15 frames from 2 devices');
      const out = await text();
      expect(drawn(out).map(([pct]) => pct)).not.toContain(100);
      expect(drawn(out).at(-1)).toEqual([30, 15, 2]);
      expect(out.endsWith('replay: 15 frames from 2 devices\n')).toBe(true);
    }
  });

  it('draws nothing at all for a replay stopped before its first progress', async () => {
    const { tty, text } = terminal();
    const bar = replayProgressBar(tty, [file]);
    bar.stop({ frames: 0, devices: 0, stopped: true });
    expect(await text()).toBe('');
  });
});
