import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplay, type ReplayResult } from '../../../src/runtime/replay.js';
import { runSimulate } from '../../../src/runtime/simulate.js';
import { Store } from '../../../src/store/duckdb.js';

/**
 * Two recordings of one deployment (one per edge, or per serve worker) become one with the
 * command docs/record-replay.md gives: `sort -m` on the `{"t":N` each line starts with. Two
 * simulated venues stand in for two edges: both start at the same time, so their lines interleave.
 */
describe('merging two recordings by t (docs/record-replay.md, "Several recordings")', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-merge-'));
  const a = join(dir, 'edge-a.ndjson');
  const b = join(dir, 'edge-b.ndjson');
  const merged = join(dir, 'all.ndjson');
  const sink = () => new PassThrough().resume();
  const replays: Record<string, ReplayResult> = {};

  const statisticsPerSerial = async (dataDir: string) => {
    const store = await Store.open(dataDir);
    try {
      const rows = await store.query<{ serial: string; n: number }>('SELECT serial, count(*)::INTEGER AS n FROM statistics GROUP BY serial ORDER BY serial');
      return Object.fromEntries(rows.map((r) => [r.serial, r.n]));
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    await runSimulate({ scenario: 'lab', seed: 7, until: '10m', record: a }, sink());
    await runSimulate({ scenario: 'default', seed: 3, until: '10m', record: b }, sink());
    // The documented command, as a user runs it.
    writeFileSync(merged, execFileSync('sort', ['-m', '-s', '-t,', '-k1,1', a, b], { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 30 }));
    for (const [name, file] of [['a', a], ['b', b], ['merged', merged]] as const) {
      replays[name] = await runReplay({ file, dataDir: join(dir, name), speed: 'max' }, { out: sink() });
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds every line of both, in t order, each file\'s lines in their own order', () => {
    const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter((l) => l !== '');
    const all = lines(merged);
    expect(all).toHaveLength(lines(a).length + lines(b).length);
    const ts = all.map((l) => (JSON.parse(l) as { t: number }).t);
    expect(ts).toEqual([...ts].sort((x, y) => x - y));
    // The two venues' lines interleave: the merge is not one file after the other.
    const fromA = new Set(lines(a));
    const switches = all.slice(1).filter((l, i) => fromA.has(l) !== fromA.has(all[i]!)).length;
    expect(switches).toBeGreaterThan(10);
    expect(all.filter((l) => fromA.has(l))).toEqual(lines(a));
    expect(all.filter((l) => !fromA.has(l))).toEqual(lines(b));
  });

  it('replays as both: no rejected line, every device, the rows of both replays', async () => {
    expect(replays.merged!.summary).toMatchObject({ rejectedCount: 0, unmatched: [] });
    expect(replays.merged!.summary.devices).toBe(replays.a!.summary.devices + replays.b!.summary.devices);
    expect(replays.merged!.summary.frames).toBe(replays.a!.summary.frames + replays.b!.summary.frames);
    const both = { ...(await statisticsPerSerial(join(dir, 'a'))), ...(await statisticsPerSerial(join(dir, 'b'))) };
    expect(Object.keys(both)).toHaveLength(replays.merged!.summary.devices);
    expect(await statisticsPerSerial(join(dir, 'merged'))).toEqual(both);
  });
});
