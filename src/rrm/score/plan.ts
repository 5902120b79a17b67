/**
 * The score of a run's plan: `before` is the zone as it runs now, `after` the plan applied, on
 * the same model. Channel figures from cci.ts; power figures are added by power.ts where a
 * power plan is scored.
 */
import type { RrmModel } from '../model/types.js';
import { cciInstance, scoreInstance, type BandPlan } from './cci.js';
import type { PlanScore, ScorePair } from './types.js';

export type ScoredKind = 'channel' | 'txPower';

export function scorePair(kind: ScoredKind, model: RrmModel, serials: readonly string[], plan: BandPlan): ScorePair {
  const inst = cciInstance(model, serials);
  return {
    before: scoreInstance(inst),
    after: scoreInstance(inst, kind === 'channel' ? { channel: plan } : { txPower: plan }),
  };
}

/** The zone as it runs now (the measured effect of an applied plan, from the scans after it). */
export function scoreNow(model: RrmModel, serials: readonly string[]): PlanScore {
  return scoreInstance(cciInstance(model, serials));
}
