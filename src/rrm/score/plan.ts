/**
 * The score of a run's plan: `before` is the zone as it runs now, `after` the plan applied, on
 * the same model. Channel figures from cci.ts; power figures are added by power.ts where a
 * power plan is scored.
 */
import type { RrmModel } from '../model/types.js';
import { cciInstance, scoreInstance, type BandPlan } from './cci.js';
import { PowerScene, type PowerSceneOptions, type PowerScore } from './power.js';
import type { PlanScore, ScorePair } from './types.js';

export type ScoredKind = 'channel' | 'txPower';

/** The power figures of a PowerScore that PlanScore carries (absent where unknown). */
function powerFigures(s: PowerScore): Partial<PlanScore> {
  return {
    ...(s.coverage !== null ? { coverage: s.coverage } : {}),
    ...(s.gridCoverage !== null ? { gridCoverage: s.gridCoverage } : {}),
    ...(s.medianSinr !== null ? { medianSinrDb: s.medianSinr } : {}),
  };
}

/** `power`: the site and locations the power figures place APs with (power plans only). */
export function scorePair(kind: ScoredKind, model: RrmModel, serials: readonly string[], plan: BandPlan, power: PowerSceneOptions = {}): ScorePair {
  const inst = cciInstance(model, serials);
  const pair = {
    before: scoreInstance(inst),
    after: scoreInstance(inst, kind === 'channel' ? { channel: plan } : { txPower: plan }),
  };
  if (kind !== 'txPower') return pair;
  const scene = new PowerScene(model, serials, power);
  return {
    before: { ...pair.before, ...powerFigures(scene.score(scene.powersOf({}))) },
    after: { ...pair.after, ...powerFigures(scene.score(scene.powersOf(plan))) },
  };
}

/** The zone as it runs now (the measured effect of an applied plan, from the scans after it). */
export function scoreNow(model: RrmModel, serials: readonly string[]): PlanScore {
  return scoreInstance(cciInstance(model, serials));
}

/**
 * The proven gap of a CCI to a lower bound on it, in %: 0 at the bound (within rounding, as the
 * score and the solver add the same terms in another order); undefined when the bound is 0 and
 * the CCI is not (no finite relative gap).
 */
export function gapPct(cci: number, bound: number): number | undefined {
  const slack = cci - bound;
  if (slack <= 1e-9 * Math.max(bound, 1e-15)) return 0;
  if (bound <= 0) return undefined;
  return (slack / bound) * 100;
}

/** A score pair with the proven lower bound of its zone and the gap of both plans to it. */
export function withLowerBound(pair: ScorePair, bound: number): ScorePair {
  const side = (s: PlanScore): PlanScore => {
    const g = gapPct(s.cci_mw, bound);
    return g === undefined ? s : { ...s, gapPct: g };
  };
  return { before: side(pair.before), after: side(pair.after), lowerBound_mw: bound };
}
