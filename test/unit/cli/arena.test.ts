/**
 * `airtwin arena` on the lab venue: every mode (a plug-in included) plans the zone, the exact
 * reference proves its bound, gaps are measured against it, and the chart is written.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { arenaTable, runArena } from '../../../src/cli/arena.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-arena-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arena', () => {
  it('lab, seed 1: modes and the plug-in scored against the proven optimum; table, JSON shape and chart', async () => {
    const chart = join(dir, 'arena.svg');
    const r = await runArena({
      scenarios: ['lab'], seeds: [1], modes: ['least_used', 'weighted', 'quietest'], plugin: 'examples/rrm-plugin.ts',
      warmupMs: 60_000, exactTimeLimit: 10, exactMaxAps: 60, chart,
    });
    expect(r.rows).toHaveLength(1);
    const row = r.rows[0]!;
    expect(row).toMatchObject({ scenario: 'lab', zone: 'venue', seed: 1, aps: 3, optimal: true });
    expect(Object.keys(row.modes)).toEqual(['least_used', 'weighted', 'quietest']);
    for (const cell of Object.values(row.modes)) {
      expect(cell.cci_mw).toBeGreaterThanOrEqual(row.bound! * (1 - 1e-6));
      expect(cell.gap).toBeGreaterThanOrEqual(0);
    }
    expect(row.modes.weighted!.cci_mw).toBeLessThanOrEqual(row.modes.least_used!.cci_mw);
    expect(r.summary.map((s) => s.mode)).toEqual(['least_used', 'weighted', 'quietest']);
    expect(arenaTable(r)).toContain('lab/venue');
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    const svg = readFileSync(chart, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('quietest');
  }, 120_000);

  it('the same seed gives the same plans and scores', async () => {
    const once = () => runArena({ scenarios: ['lab'], seeds: [2], modes: ['annealing'], warmupMs: 60_000, exactTimeLimit: 10, exactMaxAps: 0 });
    const [a, b] = [await once(), await once()];
    expect(b.rows[0]!.modes.annealing!.cci_mw).toBe(a.rows[0]!.modes.annealing!.cci_mw);
    expect(a.rows[0]!.bound).toBeNull();
  }, 120_000);
});
