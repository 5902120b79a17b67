/**
 * The zone's CCI score over time for the venue view's charts, from the RRM's kept runs: for each
 * run in the range its predicted score before and after the plan, and for an applied run the
 * score the RRM measured from the next scans, at the time it measured it.
 */
import type { RunRecord } from '../rrm/store.js';

export interface ScorePoint {
  /** Epoch seconds of the run (or of the measurement, for `measured`). */
  t: number;
  kind: 'before' | 'after' | 'measured';
  /** The zone's CCI, mW. */
  cci_mw: number;
  /** The run the point belongs to. */
  run: string;
  mode: string;
  applied: boolean;
}

type Run = Pick<RunRecord, 'id' | 'mode' | 'createdMs' | 'score' | 'applied' | 'measured' | 'measuredMs'>;

/** Points of the runs within [from, to] (epoch s), oldest first. */
export function scorePoints(runs: readonly Run[], from: number, to: number): ScorePoint[] {
  const inRange = (t: number) => t >= from && t <= to;
  const out: ScorePoint[] = [];
  for (const r of runs) {
    const t = Math.floor(r.createdMs / 1000);
    const base = { run: r.id, mode: r.mode, applied: r.applied };
    if (r.score && inRange(t)) {
      out.push({ ...base, t, kind: 'before', cci_mw: r.score.before.cci_mw });
      out.push({ ...base, t, kind: 'after', cci_mw: r.score.after.cci_mw });
    }
    if (r.measured && r.measuredMs !== null) {
      const m = Math.floor(r.measuredMs / 1000);
      if (inRange(m)) out.push({ ...base, t: m, kind: 'measured', cci_mw: r.measured.cci_mw });
    }
  }
  const order = { before: 0, after: 1, measured: 2 };
  return out.sort((a, b) => a.t - b.t || order[a.kind] - order[b.kind]);
}
