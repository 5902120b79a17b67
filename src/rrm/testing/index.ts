/**
 * The RRM optimizer testing kit (docs/rrm.md "Your own optimizer"): fast-check arbitraries of
 * zones and their models (seeded synthetic venues with constraints), and the invariants every
 * optimizer must keep: only zone members, allowed channels and widths, DFS only on opt-in, user
 * values win, powers within the allowed set and the radio's limit, the same plan for the same
 * seed. `checkOptimizer` runs them all as one property.
 *
 *   import { checkOptimizer } from 'airtwin/rrm-testing';
 *   it('keeps the invariants', () => checkOptimizer(myOptimizer));
 *
 * Needs fast-check, an optional peer dependency of the package (package.json): installed by
 * the project that uses the kit.
 */
import fc from 'fast-check';
import seedrandom from 'seedrandom';
import type { Band } from '../../protocol/wifi-channels.js';
import { channelCandidates, powerLimit, txChoices, type AlgorithmInput, type Plan } from '../algorithms/common.js';
import type { RrmOptimizer } from '../algorithms/plugin.js';
import { zoneView } from '../model/view.js';
import type { RrmModel } from '../model/types.js';
import type { EffectiveConfig } from '../schemas/device-config.js';
import { defaultConfigs, genVenue, randomConstraints, venueModel, type SynthVenue } from './venues.js';

export { genVenue, venueModel, defaultConfigs, randomConstraints, applyToVenue, type SynthVenue } from './venues.js';
export type { RrmOptimizer } from '../algorithms/plugin.js';

/** A zone to optimise: the model, the zone, the effective configs, and the venue it came from. */
export interface ZoneCase {
  venue: SynthVenue;
  model: RrmModel;
  zone: { name: string; serials: string[] };
  configs: Map<string, EffectiveConfig>;
  /** The seed a run uses. */
  seed: string;
}

export interface ZoneArbitraryOptions {
  /** Most APs (default 10). */
  maxAps?: number;
  /** Most unmanaged neighbours (default 6). */
  maxUnmanaged?: number;
  /** Band sets to draw from (default 2.4, 5, both, all three, 6 GHz). */
  bandSets?: Band[][];
  /** Random user/allowed channels and powers per AP (default true). */
  constraints?: boolean;
}

/** Arbitrary zones of seeded synthetic venues (some APs of the venue are outside the zone). */
export function zoneArbitrary(opts: ZoneArbitraryOptions = {}): fc.Arbitrary<ZoneCase> {
  const bandSets = opts.bandSets ?? [['2G'], ['5G'], ['2G', '5G'], ['2G', '5G', '6G'], ['6G']];
  return fc.record({
    seed: fc.integer({ min: 0, max: 1_000_000 }),
    aps: fc.integer({ min: 1, max: opts.maxAps ?? 10 }),
    unmanaged: fc.integer({ min: 0, max: opts.maxUnmanaged ?? 6 }),
    bands: fc.constantFrom(...bandSets),
    share: fc.double({ min: 0.3, max: 1, noNaN: true }),
    runSeed: fc.integer({ min: 0, max: 1_000_000 }),
  }).map((p) => {
    const venue = genVenue(p.seed, { aps: p.aps, unmanaged: p.unmanaged, bands: p.bands });
    const configs = opts.constraints === false ? defaultConfigs(venue) : randomConstraints(venue, p.seed);
    const serials = venue.aps.filter((_, i) => i === 0 || (i * 0.618) % 1 < p.share).map((a) => a.serial);
    return { venue, model: venueModel(venue), zone: { name: 'zone', serials }, configs, seed: String(p.runSeed) };
  });
}

/** The input of one run of `o` on a case (args at their defaults unless given). */
export function inputOf(o: Pick<RrmOptimizer, 'args'>, c: ZoneCase, args: Record<string, boolean | number> = {}): AlgorithmInput<Record<string, boolean | number>> {
  const defaults = Object.fromEntries(Object.entries(o.args ?? {}).map(([k, spec]) => [k, spec.default]));
  const rng = seedrandom(c.seed);
  return { model: c.model, zone: c.zone, configs: c.configs, rng: () => rng(), args: { ...defaults, ...args } };
}

/**
 * What is wrong with a plan, one sentence per violation (empty: none). Channel plans: every
 * value a valid primary for the radio's width, capabilities, DFS opt-in and allowed channels,
 * or the user channel. Power plans: within the allowed powers and the radio's limit, or the
 * user power (capped at the limit).
 */
export function planViolations(kind: 'channel' | 'txPower', c: Pick<ZoneCase, 'model' | 'zone' | 'configs'>, plan: Plan): string[] {
  const out: string[] = [];
  const { aps } = zoneView(c.model, c.zone.serials);
  const bySerial = new Map(aps.map((a) => [a.serial, a]));
  for (const [serial, bands] of Object.entries(plan)) {
    const ap = bySerial.get(serial);
    if (!ap) { out.push(`${serial} is not a member of the zone`); continue; }
    const cfg = c.configs.get(serial);
    for (const [band, value] of Object.entries(bands) as [Band, number][]) {
      const radio = ap.radios.find((r) => r.band === band);
      if (!radio) { out.push(`${serial} ${band}: the AP has no such radio`); continue; }
      if (!Number.isInteger(value)) { out.push(`${serial} ${band}: ${value} is not an integer`); continue; }
      if (kind === 'channel') {
        const user = cfg?.userChannels?.[band];
        if (user !== undefined && user !== null) { if (value !== user) out.push(`${serial} ${band}: ${value} is not the user channel ${user}`); continue; }
        const ok = channelCandidates(ap, band, radio.width, cfg);
        if (!ok.includes(value)) out.push(`${serial} ${band}: channel ${value} at ${radio.width} MHz is not allowed (capabilities, DFS opt-in, width, allowedChannels): ${ok.join(',')}`);
      } else {
        const ok = txChoices(cfg, band, powerLimit(ap, band));
        if (!ok.includes(value)) out.push(`${serial} ${band}: ${value} dBm is not allowed (allowed powers, limit ${powerLimit(ap, band)} dBm)`);
      }
    }
  }
  return out;
}

export interface CheckOptions extends ZoneArbitraryOptions {
  numRuns?: number;
  /** fast-check seed (default: random, printed on failure). */
  seed?: number;
  /** Arguments of every run. */
  args?: Record<string, boolean | number>;
}

/**
 * Property: on arbitrary zones, every plan of `o` keeps the invariants (planViolations) and the
 * same seed gives the same plan. Throws fast-check's report (with the counterexample) otherwise.
 */
export function checkOptimizer(o: RrmOptimizer, opts: CheckOptions = {}): void {
  const kind = o.algorithm === 'OptimizeChannel' ? 'channel' : 'txPower';
  fc.assert(fc.property(zoneArbitrary(opts), (c) => {
    const a = o.run(inputOf(o, c, opts.args));
    const problems = planViolations(kind, c, a);
    if (problems.length > 0) throw new Error(`${o.name}: ${problems.join('; ')}`);
    const b = o.run(inputOf(o, c, opts.args));
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${o.name}: the same seed gave two plans`);
  }), { numRuns: opts.numRuns ?? 50, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) });
}
