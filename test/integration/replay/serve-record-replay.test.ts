import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

describe('serve --record, then serve --replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rr-'));
  const file = join(dir, 'lab.ndjson');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays into a fresh data dir and stores one statistics row per recorded state', async () => {
    const live = await startTestServer({ sim: true, scenario: 'lab', speed: 'max', record: file, dataDir: join(dir, 'live') });
    await until('recorded states', async () => (await live.running.store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n, (n) => n >= 12, 30_000);
    await live.close();

    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const states = lines.filter((l) => l.dir === 'up' && l.frame.method === 'state').length;
    const serials = new Set(lines.map((l) => l.serial));
    expect(states).toBeGreaterThanOrEqual(12);
    expect(serials.size).toBe(3);

    const printed: string[] = [];
    let bar = '';
    // A terminal as cli-progress sees one (it draws nothing on a stream that is not a TTY).
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    terminal.on('data', (d: Buffer) => { bar += d.toString(); });
    const replay = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'replayed') }, { print: (l) => printed.push(l), progress: terminal });
    try {
      const summary = await replay.running.replay!.done;
      expect(summary.rejectedCount).toBe(0);
      expect(summary.dropped).toBe(0);
      // The progress bar went to the terminal and ended full; the summary followed the banner.
      expect(bar).toMatch(/replay \[.*\] 100% \| \d+ frames \| 3 devices/);
      expect(printed).toContainEqual(expect.stringMatching(new RegExp(`^replay: ${summary.frames} frames from 3 devices, .* played in`)));
      expect(printed).toContain('replay: 0 rejected lines');
      await replay.running.ingest.flush();
      const stored = (await replay.running.store.query<{ n: number }>('SELECT count(*) AS n FROM statistics'))[0]!.n;
      expect(stored).toBe(states);
      const devices = await replay.gw('GET', '/devices?serialOnly=true');
      expect(new Set(devices.body.serialNumbers)).toEqual(serials);
    } finally {
      await replay.close();
    }
  }, 60_000);
});
