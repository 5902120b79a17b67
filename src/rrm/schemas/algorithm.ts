/**
 * Algorithm list entries, optimisation results and run results (spec: rrm-service-api.md
 * "Algorithm", "Allocation", "RunResult"; docs/upstream.md#rrm-api, #rrm-algorithms).
 */
import { Type, type Static } from 'typebox';
import { ScorePair } from './score.js';

export const Algorithm = Type.Object({
  name: Type.String(),
  description: Type.String(),
  shortName: Type.String(),
  parameterFormat: Type.String(),
  parameterSamples: Type.Array(Type.String()),
  helper: Type.String(),
  modes: Type.Optional(Type.Array(Type.Object({
    name: Type.String({ description: 'The `mode` argument.' }),
    description: Type.String(),
    plugin: Type.Boolean({ description: 'Added by an optimizer plug-in (--rrm-plugin).' }),
  }), { description: 'Beyond the spec: every mode of the algorithm, built-in first, then plug-ins.' })),
}, { $id: 'Algorithm', title: 'Algorithm' });
export type Algorithm = Static<typeof Algorithm>;

/** serial -> band -> integer (channel number or dBm). */
export const BandValueMap = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()));
export type BandValueMap = Static<typeof BandValueMap>;

/** Beyond the spec: devices the plan was not sent to, with why (an AP that takes no new command); absent when none. */
const NotPushed = Type.Optional(Type.Record(Type.String(), Type.String(), {
  description: 'Devices whose new values went into their layers but were not sent to the AP, with why (an AP whose link takes no new command, such as one played back from a recording).',
}));

/**
 * Beyond the spec (docs/rrm.md#scores-runs-and-the-measured-effect): the plan's score before and
 * after, on the model it was computed from.
 */
const Score = Type.Optional(ScorePair);

export const Allocation = Type.Object({ data: BandValueMap, notPushed: NotPushed, score: Score }, { $id: 'Allocation', title: 'Allocation' });
export type Allocation = Static<typeof Allocation>;

export const RunResult = Type.Object({
  error: Type.Optional(Type.String()),
  channelMap: Type.Optional(BandValueMap),
  txPowerMap: Type.Optional(BandValueMap),
  notPushed: NotPushed,
  score: Score,
}, { $id: 'RunResult', title: 'RunResult' });
export type RunResult = Static<typeof RunResult>;

/** Query of GET optimizeChannel / optimizeTxPower. */
export const OptimizeQuery = Type.Object({
  mode: Type.String(),
  zone: Type.String(),
  dry_run: Type.Optional(Type.Boolean()),
});
export type OptimizeQuery = Static<typeof OptimizeQuery>;

/** Query of PUT runRRM. */
export const RunRrmQuery = Type.Object({
  algorithm: Type.String(),
  args: Type.Optional(Type.String()),
  venue: Type.String(),
  mock: Type.Optional(Type.Boolean()),
});
export type RunRrmQuery = Static<typeof RunRrmQuery>;
