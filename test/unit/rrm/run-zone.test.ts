import { describe, expect, it } from 'vitest';
import { runAlgorithm } from '../../../src/rrm/algorithms/registry.js';
import { zoneDeviceConfigs } from '../../../src/rrm/config/layered.js';
import { modelForSerials } from '../../../src/rrm/model/build.js';
import { runZone, toAllocation, toRunResult } from '../../../src/rrm/run-zone.js';
import { scorePair } from '../../../src/rrm/score/plan.js';
import { emptyLayeredConfig } from '../../../src/rrm/schemas/layered-config.js';
import { AirtwinError } from '../../../src/errors.js';
import { genVenue, venueDocuments, venueModel } from '../../helpers/rrm-models.js';

const v = genVenue(3, { aps: 6, sameChannel: { '2G': 6, '5G': 36 }, unmanaged: 0, side: 40 });
const serials = v.aps.map((a) => a.serial);
const topology = { z: serials.slice(0, 4), other: serials.slice(4) };
const current = new Map(venueDocuments(v).map((d) => [d.serial, { uuid: 1, radios: d.activeConfig!.radios! }]));
const base = {
  algorithm: 'OptimizeChannel', args: 'mode=unmanaged_aware', allowDefaultMode: false, zone: 'z', topology,
  layers: emptyLayeredConfig(), model: venueModel(v), seed: '9', dryRun: false, current,
};

function errorOf(fn: () => unknown): AirtwinError {
  try { fn(); } catch (e) { if (e instanceof AirtwinError) return e; throw e; }
  throw new Error('expected an error');
}

describe('runZone', () => {
  it('optimises only the zone, stores auto values and pushes only changed radios', () => {
    const r = runZone(base);
    expect(Object.keys(r.outcome.plan).sort()).toEqual([...topology.z].sort());
    for (const s of topology.z) expect(r.layers.apConfig[s]?.autoChannels).toEqual(r.outcome.plan[s]);
    for (const [s, cfg] of r.commands) {
      const before = current.get(s)!.radios as { channel: number }[];
      const after = cfg.radios as { channel: number }[];
      expect(after.some((x, i) => x.channel !== before[i]!.channel)).toBe(true);
    }
    expect(toRunResult(r.outcome, r.score)).toEqual({ channelMap: r.outcome.plan, score: r.score });
    expect(toAllocation(r.outcome, r.score)).toEqual({ data: r.outcome.plan, score: r.score });
    // the plan's churn is the radios it moves; the CCI never counts what a dry run would not hear
    expect(r.score.before.churn).toBe(0);
    expect(r.score.after.cci_mw).toBeGreaterThanOrEqual(0);
  });

  it('gives the plan and score of the optimizer and the scorer run apart (one shared zone view)', () => {
    for (const [algorithm, args] of [['OptimizeChannel', 'mode=unmanaged_aware'], ['OptimizeChannel', 'mode=least_used'], ['OptimizeTxPower', 'mode=measure_ap_ap']] as const) {
      const r = runZone({ ...base, algorithm, args, dryRun: true });
      const configs = zoneDeviceConfigs(base.layers, topology, 'z');
      const model = modelForSerials(base.model, topology.z);
      const o = runAlgorithm({ algorithm, args, allowDefaultMode: false, model, zone: { name: 'z', serials: topology.z }, configs, seed: base.seed });
      expect(r.outcome).toEqual(o);
      expect(r.score).toEqual(scorePair(o.kind, model, topology.z, o.plan, { location: (s) => configs.get(s)?.location }));
    }
  });

  it('dry run changes nothing', () => {
    const r = runZone({ ...base, dryRun: true });
    expect([r.layers, r.commands.size]).toEqual([base.layers, 0]);
  });

  it('rejects a blank zone (400) and an unknown zone (404) before the algorithm', () => {
    expect(errorOf(() => runZone({ ...base, zone: '', algorithm: 'nope' })).status).toBe(400);
    const e = errorOf(() => runZone({ ...base, zone: 'x', zoneParam: 'venue', algorithm: 'nope' }));
    expect([e.status, e.details]).toEqual([404, 'venue']);
  });
});
