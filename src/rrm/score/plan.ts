/**
 * The score of a run's plan: `before` is the zone as it runs now, `after` the plan applied, on
 * the same model. Channel figures from cci.ts; power figures are added by power.ts where a
 * power plan is scored.
 */
import type { RrmModel } from '../model/types.js';
import type { Site } from '../site.js';
import { cciInstance, scoreInstance, type BandPlan } from './cci.js';
import { powerScore } from './power.js';
import type { PlanScore, ScorePair } from './types.js';

export type ScoredKind = 'channel' | 'txPower';

export function scorePair(kind: ScoredKind, model: RrmModel, serials: readonly string[], plan: BandPlan, site?: Site): ScorePair {
  const inst = cciInstance(model, serials);
  const before = scoreInstance(inst);
  const after = scoreInstance(inst, kind === 'channel' ? { channel: plan } : { txPower: plan });
  if (kind === 'txPower') {
    const opts = site ? { site } : {};
    return { before: { ...before, ...powerFigures(powerScore(model, serials, {}, opts)) }, after: { ...after, ...powerFigures(powerScore(model, serials, plan, opts)) } };
  }
  return { before, after };
}

function powerFigures(p: ReturnType<typeof powerScore>): Partial<PlanScore> {
  const out: Partial<PlanScore> = {};
  if (p.coverage !== null) out.coverage = p.coverage;
  if (p.gridCoverage !== null) out.gridCoverage = p.gridCoverage;
  if (p.medianSinr !== null) out.medianSinrDb = p.medianSinr;
  return out;
}

/** The zone as it runs now (the measured effect of an applied plan, from the scans after it). */
export function scoreNow(model: RrmModel, serials: readonly string[]): PlanScore {
  return scoreInstance(cciInstance(model, serials));
}
