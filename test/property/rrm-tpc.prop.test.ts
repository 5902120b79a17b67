/**
 * Properties of the transmit power optimizers on seeded synthetic venues.
 * Each run prints its fast-check seed; FC_SEED=<n> replays it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maxTxPowerDbm, type Band } from '../../src/protocol/wifi-channels.js';
import { runAlgorithm } from '../../src/rrm/algorithms/registry.js';
import type { Plan } from '../../src/rrm/algorithms/common.js';
import { CoverageGrid } from '../../src/rrm/algorithms/coverage-grid.js';
import { exhaustiveSearch } from '../../src/rrm/algorithms/location-optimal.js';
import { powerScore } from '../../src/rrm/score/power.js';
import type { EffectiveConfig } from '../../src/rrm/schemas/device-config.js';
import {
  applyToVenue, defaultConfigs, genVenue, propParams, randomConstraints, venueModel, type SynthVenue,
} from '../helpers/rrm-models.js';

const MODES = ['random', 'measure_ap_client', 'measure_ap_ap', 'location_optimal', 'coverage_cci'] as const;

const venueArb = fc.record({
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  aps: fc.integer({ min: 1, max: 8 }),
  bands: fc.constantFrom<Band[]>(['2G'], ['5G'], ['2G', '5G'], ['5G', '6G']),
  zoneShare: fc.double({ min: 0.3, max: 1, noNaN: true }),
  mode: fc.constantFrom(...MODES),
});

function run(mode: string, v: SynthVenue, configs: Map<string, EffectiveConfig>, serials: string[], args = ''): Plan {
  return runAlgorithm({
    algorithm: 'OptimizeTxPower', args: `mode=${mode}${args}`, allowDefaultMode: false,
    model: venueModel(v), zone: { name: 'z', serials }, configs, seed: '5',
  }).plan;
}

const zoneOf = (v: SynthVenue, share: number) => v.aps.filter((_, i) => i === 0 || (i * 0.618) % 1 < share).map((a) => a.serial);

/** Powers an AP may use, computed independently of the optimizer code. */
function allowed(cfg: EffectiveConfig, band: string): number[] {
  const user = cfg.userTxPowers?.[band];
  if (user !== undefined) return [user];
  const all = Array.from({ length: 31 }, (_, i) => i);
  const a = cfg.allowedTxPowers?.[band];
  return a ? all.filter((p) => a.includes(p)) : all;
}

function locationNeverWorse(p: { seed: number; aps: number; bands: Band[] }): void {
  const v = genVenue(p.seed, { aps: Math.min(p.aps, 5), bands: p.bands, sameChannel: { '2G': 6, '5G': 36, '6G': 5 } });
  const configs = randomConstraints(v, p.seed, 80);
  const plan = run('location_optimal', v, configs, v.aps.map((a) => a.serial));
  // groups are (band, channel), as the optimizer forms them
  const groups = new Map<string, { serial: string; x: number; y: number; choices: number[]; band: Band }[]>();
  for (const a of v.aps) {
    const cfg = configs.get(a.serial)!;
    for (const r of a.radios) {
      if (!cfg.location || plan[a.serial]?.[r.band] === undefined) continue;
      const key = `${r.band}:${r.channel}`;
      groups.set(key, [...(groups.get(key) ?? []), { serial: a.serial, x: cfg.location[0]!, y: cfg.location[1]!, choices: allowed(cfg, r.band), band: r.band }]);
    }
  }
  for (const aps of groups.values()) {
    const boundary = Math.max(100, ...aps.map((a) => Math.max(a.x, a.y) + 1));
    const grid = new CoverageGrid(aps, boundary);
    const chosen = grid.score(aps.map((a) => plan[a.serial]![a.band]!));
    expect(chosen).toBeLessThanOrEqual(grid.score(aps.map((a) => a.choices.at(-1)!)));
  }
}

describe('tx power optimizers: properties', () => {
  it('output only for zone members; powers within the allowed set; user powers win', () => {
    fc.assert(fc.property(venueArb, (p) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands, side: 60 });
      const configs = randomConstraints(v, p.seed, 60);
      const zone = zoneOf(v, p.zoneShare);
      const plan = run(p.mode, v, configs, zone);
      for (const [serial, bands] of Object.entries(plan)) {
        expect(zone).toContain(serial);
        for (const [band, dbm] of Object.entries(bands)) {
          expect(allowed(configs.get(serial)!, band)).toContain(dbm);
          const user = configs.get(serial)!.userTxPowers?.[band];
          if (user !== undefined) expect(dbm).toBe(user);
        }
      }
    }), propParams(30));
  });

  it('the same seed gives the same plan', () => {
    fc.assert(fc.property(venueArb, fc.boolean(), (p, perAp) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands, side: 60 });
      const configs = randomConstraints(v, p.seed, 60);
      const zone = zoneOf(v, p.zoneShare);
      const args = p.mode === 'random' ? `,setDifferentTxPowerPerAp=${perAp}` : '';
      expect(run(p.mode, v, configs, zone, args)).toEqual(run(p.mode, v, configs, zone, args));
    }), propParams(20));
  });

  it('measure_ap_ap moves each power toward the coverage threshold', () => {
    fc.assert(fc.property(venueArb, fc.integer({ min: -85, max: -55 }), (p, threshold) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands });
      const serials = v.aps.map((a) => a.serial);
      const plan = run('measure_ap_ap', v, defaultConfigs(v), serials, `,coverageThreshold=${threshold}`);
      const model = venueModel(v);
      for (const ap of v.aps) {
        for (const r of ap.radios) {
          const heard = serials.filter((s) => s !== ap.serial)
            .flatMap((s) => (model.latestWifiScans[s]?.at(-1) ?? []).filter((e) => e.bssid === r.bssid).map((e) => e.signal));
          const next = plan[ap.serial]![r.band]!;
          if (heard.length === 0) { expect(next).toBe(30); continue; }
          const weakest = Math.min(...heard);
          if (weakest < threshold) expect(next).toBeGreaterThanOrEqual(r.tx);
          if (weakest > threshold) expect(next).toBeLessThanOrEqual(r.tx);
          expect(next).toBe(Math.min(30, Math.max(0, r.tx + threshold - weakest)));
        }
      }
    }), propParams(30));
  });

  it('measure_ap_ap: optimising the re-scanned, optimised venue changes nothing', () => {
    fc.assert(fc.property(venueArb, (p) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands, hearingDbm: -200 });
      const configs = defaultConfigs(v);
      const serials = v.aps.map((a) => a.serial);
      const first = run('measure_ap_ap', v, configs, serials);
      expect(run('measure_ap_ap', applyToVenue(v, 'txPower', first), configs, serials)).toEqual(first);
    }), propParams(30));
  });

  it('location_optimal never scores worse than all APs at maximum power', () => {
    fc.assert(fc.property(venueArb, (p) => locationNeverWorse(p)), propParams(10));
  });

  // Found by fast-check (a test that mixed two channel groups of one band); kept as an example.
  it('location_optimal example: seed 206247, 5 APs on 5 and 6 GHz', () => {
    locationNeverWorse({ seed: 206247, aps: 5, bands: ['5G', '6G'] });
  });
});

describe('tx power optimizers: power limits', () => {
  it('no plan puts a radio above its regulatory and capability maximum, in any mode', () => {
    const arb = fc.record({
      seed: fc.integer({ min: 0, max: 1_000_000 }),
      aps: fc.integer({ min: 1, max: 8 }),
      bands: fc.constantFrom<Band[]>(['2G'], ['5G'], ['2G', '5G'], ['5G', '6G']),
      country: fc.constantFrom('US', 'GB', 'JP', 'CA', undefined),
      constrained: fc.boolean(),
      mode: fc.constantFrom(...MODES),
      perAp: fc.boolean(),
    });
    fc.assert(fc.property(arb, (p) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands, side: 60, ...(p.country ? { country: p.country } : {}) });
      const configs = p.constrained ? randomConstraints(v, p.seed, 60) : defaultConfigs(v);
      const serials = v.aps.map((a) => a.serial);
      const args = p.mode === 'random' ? `,setDifferentTxPowerPerAp=${p.perAp}` : '';
      const plan = run(p.mode, v, configs, serials, args);
      for (const ap of v.aps) {
        for (const r of ap.radios) {
          const dbm = plan[ap.serial]?.[r.band];
          if (dbm === undefined) continue;
          const limit = Math.min(30, (p.country ? maxTxPowerDbm(p.country, r.band, r.channel) : undefined) ?? 30);
          expect(dbm).toBeLessThanOrEqual(limit);
          expect(dbm).toBeGreaterThanOrEqual(0);
        }
      }
    }), propParams(60));
  });

  it('measure_ap_ap: an AP nobody hears goes to its limit, not to 30 (US, channel 36: 23 dBm)', () => {
    const v = genVenue(3, { aps: 1, bands: ['5G'], startChannels: { '5G': [36] }, country: 'US', unmanaged: 0 });
    const plan = run('measure_ap_ap', v, defaultConfigs(v), [v.aps[0]!.serial]);
    expect(plan[v.aps[0]!.serial]!['5G']).toBe(23);
  });
});

describe('coverage_cci: properties', () => {
  it('covers at least the clients the current powers cover, with no more CCI', () => {
    fc.assert(fc.property(venueArb, fc.boolean(), (p, constrained) => {
      const v = genVenue(p.seed, { aps: p.aps, bands: p.bands, side: 40, clientsPerRadio: 4 });
      const configs = constrained ? randomConstraints(v, p.seed, 40) : defaultConfigs(v);
      const serials = v.aps.map((a) => a.serial);
      const plan = run('coverage_cci', v, configs, serials);
      const model = venueModel(v);
      // the current powers as they would be snapped to the allowed ones
      const before = powerScore(model, serials, {});
      const after = powerScore(model, serials, plan);
      if (!constrained) {
        expect(after.coverage ?? 0).toBeGreaterThanOrEqual(before.coverage ?? 0);
        expect(after.cci).toBeLessThanOrEqual(before.cci);
      }
      // and re-scanned after the plan is applied, the CCI it predicted is what the APs hear
      const applied = powerScore(venueModel(applyToVenue(v, 'txPower', plan)), serials, {});
      expect(applied.cci).toBeLessThanOrEqual(after.cci * 1.3 + 1e-12);
    }), propParams(30));
  });
});

describe('location_optimal search: properties', () => {
  it('equals a brute-force search wherever the exhaustive search is feasible', () => {
    const apArb = fc.record({
      x: fc.integer({ min: 0, max: 99 }), y: fc.integer({ min: 0, max: 99 }),
      choices: fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 4 }).map((c) => c.sort((a, b) => a - b)),
    });
    fc.assert(fc.property(fc.array(apArb, { minLength: 1, maxLength: 3 }), (aps) => {
      const grid = new CoverageGrid(aps, 100);
      // independent enumeration: every assignment, first AP slowest, first strict minimum
      let best: number[] | null = null;
      let bestScore = Infinity;
      const walk = (i: number, acc: number[]) => {
        if (i === aps.length) {
          const s = grid.score(acc);
          if (s < bestScore) { bestScore = s; best = acc.slice(); }
          return;
        }
        for (const c of aps[i]!.choices) walk(i + 1, [...acc, c]);
      };
      walk(0, []);
      const expected = best ?? aps.map((a) => a.choices.at(-1)!);
      expect(exhaustiveSearch(grid)).toEqual(expected);
    }), propParams(25));
  });
});
