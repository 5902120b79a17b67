/**
 * Scores of plans and the run history, an addition to the spec
 * (docs/rrm.md#scores-runs-and-the-measured-effect): every optimisation answer carries
 * `score: {before, after}`; GET /runs lists the runs kept with their scores.
 */
import { Type, type Static } from 'typebox';

export const PlanScore = Type.Object({
  cci_mw: Type.Number({ description: 'Co-channel interference of the zone: Σ mW each radio hears above −82 dBm from managed radios and unmanaged BSSIDs on overlapping spectrum.' }),
  conflictEdges: Type.Integer({ description: 'Ordered managed radio pairs (a hears b above −82 dBm) on overlapping spectrum.' }),
  worstRadioCci_mw: Type.Number({ description: 'The largest CCI one radio hears, mW.' }),
  churn: Type.Integer({ description: 'Radios whose channel or power the plan changes.' }),
  coverage: Type.Optional(Type.Number({ description: 'Share of associated clients with downlink RSSI ≥ −67 dBm.' })),
  gridCoverage: Type.Optional(Type.Number({ description: 'Share of venue grid points covered at ≥ −67 dBm.' })),
  medianSinrDb: Type.Optional(Type.Number({ description: 'Median SINR at the clients, dB.' })),
  gapPct: Type.Optional(Type.Number({ description: 'Proven gap of this plan to the optimum, %: (cci_mw − lowerBound_mw) / lowerBound_mw × 100; 0 for a plan proven optimal. Only beside lowerBound_mw, and absent when the bound is 0 and cci_mw is not.' })),
});

export const ScorePair = Type.Object({
  before: PlanScore,
  after: PlanScore,
  lowerBound_mw: Type.Optional(Type.Number({ description: 'Proven lower bound on the zone\'s cci_mw (no channel plan does better), from modes that prove one (OptimizeChannel `exact`, HiGHS); absent when the zone is too large to solve or RRM-disabled devices are left out of the optimised zone. After a solver time limit it is the bound proven so far, so gaps are larger.' })),
}, { description: 'The plan scored on the model it was computed from: the zone as it runs (before) and with the plan applied (after).' });

export const RunEntry = Type.Object({
  id: Type.String(),
  zone: Type.String(),
  algorithm: Type.String(),
  mode: Type.String(),
  args: Type.String({ description: 'The arguments as given (k=v,... or JSON).' }),
  seed: Type.String({ description: 'The seed the run used; the same seed on the same model gives the same plan.' }),
  source: Type.String({ description: 'api or scheduler.' }),
  dryRun: Type.Boolean(),
  applied: Type.Boolean({ description: 'The plan went into the layers and to the APs.' }),
  plan: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer())),
  score: Type.Union([ScorePair, Type.Null()]),
  measured: Type.Union([PlanScore, Type.Null()], { description: 'The zone scored from the first scans and states after the apply; null until they arrive (and for dry runs).' }),
  created: Type.Integer({ description: 'ms since the epoch.' }),
  measuredAt: Type.Union([Type.Integer(), Type.Null()]),
});
export type RunEntry = Static<typeof RunEntry>;
