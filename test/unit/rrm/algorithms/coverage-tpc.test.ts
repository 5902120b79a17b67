import { describe, expect, it } from 'vitest';
import { runAlgorithm } from '../../../../src/rrm/algorithms/registry.js';
import { PowerScene } from '../../../../src/rrm/score/power.js';
import { simZone, type SimZone } from '../../../helpers/sim-zone.js';

const plan = (z: SimZone, seed: string, site = true) => runAlgorithm({
  algorithm: 'OptimizeTxPower', args: 'mode=coverage_cci', allowDefaultMode: false, model: z.model,
  zone: { name: 'venue', serials: z.serials }, configs: z.configs, seed, ...(site ? { site: z.site } : {}),
}).plan;

describe('coverage_cci on simulated venues', () => {
  for (const [venue, seed] of [['lab', 1], ['default', 2]] as const) {
    it(`${venue} seed ${seed}: covers at least what the current powers cover (clients, grid) with less CCI`, () => {
      const z = simZone(venue, seed);
      const scene = new PowerScene(z.model, z.serials, { site: z.site });
      const now = scene.score(scene.powersOf({}));
      const p = plan(z, '7');
      const after = scene.score(scene.powersOf(p));
      expect(after.coverage!).toBeGreaterThanOrEqual(now.coverage!);
      expect(after.gridCoverage!).toBeGreaterThanOrEqual(now.gridCoverage!);
      expect(after.cci).toBeLessThan(now.cci);
      for (const s of scene.slots) expect(p[s.serial]![s.band]!).toBeLessThanOrEqual(s.limit);
      expect(plan(z, '7')).toEqual(p);
    });
  }

  it('without a site, radios with no client keep their power', () => {
    const z = simZone('default', 2);
    const scene = new PowerScene(z.model, z.serials);
    const p = plan(z, '1', false);
    for (const s of scene.slots) {
      if (s.radios.every((k) => scene.clients[k]!.length === 0)) expect(p[s.serial]![s.band]).toBe(s.current);
    }
  });
});

describe('location_optimal fed by the APs\' reported positions', () => {
  const run = (z: SimZone, site: boolean) => runAlgorithm({
    algorithm: 'OptimizeTxPower', args: 'mode=location_optimal', allowDefaultMode: false, model: z.model,
    zone: { name: 'venue', serials: z.serials }, configs: z.configs, seed: '1', ...(site ? { site: z.site } : {}),
  }).plan;

  it('plans from the state gps without any RRM location (upstream planned nothing)', () => {
    const z = simZone('lab', 1);
    const plan = run(z, false);
    expect(Object.keys(plan).sort()).toEqual([...z.serials].sort());
  });

  it('with the venue known, never makes the power figures worse than the current powers', () => {
    for (const [venue, seed] of [['default', 2], ['hotel', 2]] as const) {
      const z = simZone(venue, seed);
      const scene = new PowerScene(z.model, z.serials, { site: z.site });
      const now = scene.score(scene.powersOf({}));
      const plan = run(z, true);
      expect(Object.keys(plan).length).toBeGreaterThan(0);
      const after = scene.score(scene.powersOf(plan));
      expect(after.coverage!).toBeGreaterThanOrEqual(now.coverage!);
      expect(after.gridCoverage!).toBeGreaterThanOrEqual(now.gridCoverage!);
      expect(after.cci).toBeLessThanOrEqual(now.cci);
    }
  });
});
