/**
 * The figures every plan is scored by (docs/rrm.md, "The objective"). Channel figures come from
 * `cci.ts`, the power figures (coverage, SINR) from `power.ts`; both fill this one shape so that
 * every run, whatever its kind, is kept and compared the same way.
 */

export interface PlanScore {
  /** Co-channel interference of the zone: Σ mW heard above −82 dBm on overlapping spectrum. */
  cci_mw: number;
  /** Ordered managed pairs (a hears b above −82 dBm) on overlapping spectrum. */
  conflictEdges: number;
  /** The largest CCI any one radio hears, mW. */
  worstRadioCci_mw: number;
  /** Radios whose channel or power the plan changes. */
  churn: number;
  /** Share of associated clients whose downlink RSSI ≥ −67 dBm (power plans). */
  coverage?: number;
  /** Share of venue grid points covered at ≥ −67 dBm, where positions are known (power plans). */
  gridCoverage?: number;
  /** Median SINR at the clients, dB (power plans). */
  medianSinrDb?: number;
  /**
   * (CCI − lower bound) / lower bound, in %, against the proven bound of the pair (`exact`
   * runs); absent without a bound, or when the bound is 0 and this CCI is not.
   */
  gapPct?: number;
}

/** A plan's score before (the current configuration) and after (the plan applied). */
export interface ScorePair {
  before: PlanScore;
  after: PlanScore;
  /** Proven lower bound on the zone's CCI, mW, where the mode proves one (`exact`). */
  lowerBound_mw?: number;
}
