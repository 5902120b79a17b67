import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runVenue, parseDuration } from '../../../simulator/run.js';
import { loadScenario } from '../../../simulator/scenario.js';
import { runSimulate } from '../../../src/runtime/simulate.js';

function hashRun(seed: number | undefined, minutes: number): { hash: string; lines: string[] } {
  const h = createHash('sha256');
  const lines: string[] = [];
  runVenue({ scenario: loadScenario('lab').scenario, ...(seed === undefined ? {} : { seed }), durationMs: minutes * 60_000, onLine: (l) => { h.update(l); h.update('\n'); lines.push(l); } });
  return { hash: h.digest('hex'), lines };
}

const dir = mkdtempSync(join(tmpdir(), 'airtwin-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('simulator determinism', () => {
  it('same scenario and seed give identical frames (hash)', () => {
    expect(hashRun(5, 15).hash).toBe(hashRun(5, 15).hash);
  });

  it('another seed gives different frames', () => {
    expect(hashRun(5, 15).hash).not.toBe(hashRun(6, 15).hash);
  });

  it('writes the recording format, ordered by t', () => {
    const { lines } = hashRun(undefined, 10);
    let t = 0;
    for (const l of lines) {
      const o = JSON.parse(l) as { t: number; serial: string; dir?: string; event?: string; frame?: unknown };
      expect(o.t).toBeGreaterThanOrEqual(t);
      t = o.t;
      expect(o.serial).toMatch(/^[0-9a-f]{12}$/);
      if (o.event !== undefined) expect(['connect', 'disconnect']).toContain(o.event);
      else expect(o.dir === 'up' && typeof o.frame === 'object').toBe(true);
    }
    expect(lines[0]).toMatch(/^\{"t":\d+,"serial":"[0-9a-f]{12}","event":"connect"\}$/);
  });

  it('runSimulate twice writes byte-identical files and reports its counts', async () => {
    const a = join(dir, 'a.ndjson');
    const b = join(dir, 'b.ndjson');
    const log = new PassThrough();
    const ra = await runSimulate({ scenario: 'lab', until: '5m', record: a, speed: 'max' }, log);
    const rb = await runSimulate({ scenario: 'lab', until: '5m', record: b }, log);
    const fa = readFileSync(a);
    expect(fa.equals(readFileSync(b))).toBe(true);
    expect({ ...ra, files: undefined }).toEqual({ ...rb, files: undefined });
    expect([ra.files, rb.files]).toEqual([[a], [b]]);
    expect(ra.devices).toBe(3);
    const lines = fa.toString('utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('"dir":"up"'))).toHaveLength(ra.frames);
    const c = join(dir, 'c.ndjson');
    await runSimulate({ scenario: 'lab', seed: 99, until: '5m', record: c }, log);
    expect(readFileSync(c).equals(fa)).toBe(false);
  });

  it('a paced run (--speed N) writes the same file as a flat-out one', async () => {
    const a = join(dir, 'max.ndjson');
    const b = join(dir, 'paced.ndjson');
    const log = new PassThrough();
    await runSimulate({ scenario: 'lab', until: '1m', record: a, speed: 'max' }, log);
    await runSimulate({ scenario: 'lab', until: '1m', record: b, speed: 600 }, log); // 60 s at 600x: ~0.1 s of wall time
    expect(readFileSync(b).equals(readFileSync(a))).toBe(true);
  });

  it('parses durations', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('1.5d')).toBe(129_600_000);
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
  });
});
