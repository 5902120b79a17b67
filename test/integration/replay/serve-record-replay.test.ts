import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

    const replay = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'replayed') });
    try {
      const summary = await replay.running.replay!.done;
      expect(summary.rejectedCount).toBe(0);
      expect(summary.dropped).toBe(0);
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
