import { describe, expect, it } from 'vitest';
import { scorePoints } from '../../../src/venue-view/score-series.js';

const score = (cci: number) => ({ cci_mw: cci, conflictEdges: 0, worstRadioCci_mw: 0, churn: 0 });
const run = (id: string, createdS: number, before: number, after: number, measured?: [number, number]) => ({
  id, mode: 'weighted', createdMs: createdS * 1000 + 250, score: { before: score(before), after: score(after) },
  applied: measured !== undefined, measured: measured ? score(measured[1]) : null, measuredMs: measured ? measured[0] * 1000 : null,
});

describe('venue view score series', () => {
  it('gives each run its predicted before and after, and an applied run its measured score at the time it was measured', () => {
    const points = scorePoints([run('b', 200, 5, 2, [260, 2.5]), run('a', 100, 8, 5)], 0, 1000);
    expect(points.map((p) => [p.t, p.kind, p.cci_mw, p.run])).toEqual([
      [100, 'before', 8, 'a'], [100, 'after', 5, 'a'],
      [200, 'before', 5, 'b'], [200, 'after', 2, 'b'], [260, 'measured', 2.5, 'b'],
    ]);
    expect(points.find((p) => p.kind === 'measured')!.applied).toBe(true);
  });

  it('keeps only the points inside the range; a run without a score has no prediction', () => {
    const unscored = { ...run('c', 150, 1, 1), score: null };
    const points = scorePoints([run('a', 100, 8, 5), unscored, run('b', 200, 5, 2, [260, 2.5])], 150, 250);
    expect(points.map((p) => [p.t, p.kind])).toEqual([[200, 'before'], [200, 'after']]);
  });
});
