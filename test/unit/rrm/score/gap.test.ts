import { describe, expect, it } from 'vitest';
import { gapPct, withLowerBound } from '../../../../src/rrm/score/plan.js';

const side = (cci_mw: number) => ({ cci_mw, conflictEdges: 0, worstRadioCci_mw: 0, churn: 0 });

describe('proven gap of a plan', () => {
  it('is (CCI − bound) / bound in %, 0 at the bound within rounding', () => {
    expect(gapPct(3e-6, 1e-6)).toBeCloseTo(200, 9);
    expect(gapPct(1e-6 * (1 + 1e-12), 1e-6)).toBe(0);
    expect(gapPct(1e-6, 1e-6)).toBe(0);
  });

  it('has no finite value when the bound is 0 and the CCI is not', () => {
    expect(gapPct(0, 0)).toBe(0);
    expect(gapPct(1e-9, 0)).toBeUndefined();
  });

  it('withLowerBound adds the bound and the gap of both sides, leaving the other figures', () => {
    const pair = withLowerBound({ before: { ...side(2e-6), coverage: 0.5 }, after: side(1e-6) }, 1e-6);
    expect(pair).toEqual({
      before: { ...side(2e-6), coverage: 0.5, gapPct: expect.closeTo(100, 9) as number },
      after: { ...side(1e-6), gapPct: 0 },
      lowerBound_mw: 1e-6,
    });
    expect(withLowerBound({ before: side(1e-6), after: side(0) }, 0)).toEqual({ before: side(1e-6), after: { ...side(0), gapPct: 0 }, lowerBound_mw: 0 });
  });
});
