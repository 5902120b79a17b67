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
