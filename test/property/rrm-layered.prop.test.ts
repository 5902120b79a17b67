/**
 * Model-based test of the layered configuration: random sequences of
 * setTopology / set* / modify* against a small reference model; after every command the
 * effective configuration of every serial and the stored layers agree with the model.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  effectiveConfig, modifyApLayer, setApLayer, setNetworkLayer, setZoneLayer, sanitizeLayers,
} from '../../src/rrm/config/layered.js';
import { validateTopology } from '../../src/rrm/config/topology.js';
import { AirtwinError } from '../../src/errors.js';
import type { DeviceConfig } from '../../src/rrm/schemas/device-config.js';
import { emptyLayeredConfig, type LayeredConfig } from '../../src/rrm/schemas/layered-config.js';
import type { Topology } from '../../src/rrm/schemas/topology.js';
import { propParams } from '../helpers/rrm-models.js';

const SERIALS = ['aaaaaaaaaaa1', 'aaaaaaaaaaa2', 'aaaaaaaaaaa3', 'aaaaaaaaaaa4'];
const ZONES = ['z1', 'z2', 'z3'];

interface Ref { topology: Topology; network: DeviceConfig; zones: Record<string, DeviceConfig>; aps: Record<string, DeviceConfig> }
interface Real { layers: LayeredConfig; topology: Topology }

/** Small layers (0–2 fields) so merges and replaces differ often. */
const configArb: fc.Arbitrary<DeviceConfig> = fc.tuple(
  fc.subarray(['enableRRM', 'enableConfig', 'boundary', 'userChannels', 'allowedTxPowers'] as const, { maxLength: 2 }),
  fc.record({
    enableRRM: fc.boolean(),
    enableConfig: fc.boolean(),
    boundary: fc.integer({ min: 1, max: 500 }),
    userChannels: fc.record({ '2G': fc.integer({ min: 1, max: 11 }) }),
    allowedTxPowers: fc.record({ '5G': fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 4 }) }),
  }),
).map(([keys, all]) => Object.fromEntries(keys.map((k) => [k, all[k]])) as DeviceConfig);

const empty = (c: DeviceConfig | null) => c === null || Object.keys(c).length === 0;
const zoneOf = (t: Topology, s: string) => Object.keys(t).find((z) => t[z]!.includes(s));

function refEffective(m: Ref, s: string): Record<string, unknown> | null {
  const z = zoneOf(m.topology, s);
  if (z === undefined) return null;
  return { enableRRM: true, enableConfig: true, enableWifiScan: true, ...m.network, ...m.zones[z], ...m.aps[s] };
}

/** Runs `fn`; a 4xx AirtwinError must happen exactly when `fails`. */
function expectOutcome(fails: boolean, fn: () => void): void {
  let err: unknown;
  try { fn(); } catch (e) { err = e; }
  if (fails) expect(err instanceof AirtwinError && err.status >= 400 && err.status < 500).toBe(true);
  else expect(err).toBeUndefined();
}

class SetTopology implements fc.Command<Ref, Real> {
  constructor(readonly assign: (number | null)[]) {}
  check = () => true;
  run(m: Ref, r: Real): void {
    const raw: Record<string, string[]> = { z1: [], z2: [] };
    this.assign.forEach((zi, i) => { if (zi !== null) (raw[ZONES[zi]!] ??= []).push(SERIALS[i]!); });
    const t = validateTopology(raw);
    m.topology = t;
    for (const z of Object.keys(m.zones)) if (!(z in t)) delete m.zones[z];
    for (const s of Object.keys(m.aps)) if (zoneOf(t, s) === undefined) delete m.aps[s];
    r.topology = t;
    r.layers = sanitizeLayers(r.layers, t);
  }
  toString = () => `setTopology(${JSON.stringify(this.assign)})`;
}

class SetNetwork implements fc.Command<Ref, Real> {
  constructor(readonly cfg: DeviceConfig | null) {}
  check = () => true;
  run(m: Ref, r: Real): void {
    m.network = this.cfg ?? {};
    r.layers = setNetworkLayer(r.layers, r.topology, this.cfg);
  }
  toString = () => `setNetwork(${JSON.stringify(this.cfg)})`;
}

class SetZone implements fc.Command<Ref, Real> {
  constructor(readonly zone: string, readonly cfg: DeviceConfig | null) {}
  check = () => true;
  run(m: Ref, r: Real): void {
    const known = this.zone in m.topology;
    expectOutcome(!known, () => { r.layers = setZoneLayer(r.layers, r.topology, this.zone, this.cfg); });
    if (!known) return;
    if (empty(this.cfg)) delete m.zones[this.zone];
    else m.zones[this.zone] = this.cfg!;
  }
  toString = () => `setZone(${this.zone}, ${JSON.stringify(this.cfg)})`;
}

class SetAp implements fc.Command<Ref, Real> {
  constructor(readonly serial: string, readonly cfg: DeviceConfig | null, readonly merge: boolean) {}
  check = () => true;
  run(m: Ref, r: Real): void {
    const known = zoneOf(m.topology, this.serial) !== undefined;
    const fails = !known || (this.merge && empty(this.cfg));
    expectOutcome(fails, () => {
      r.layers = this.merge
        ? modifyApLayer(r.layers, r.topology, this.serial, this.cfg)
        : setApLayer(r.layers, r.topology, this.serial, this.cfg);
    });
    if (fails) return;
    const next = this.merge ? { ...m.aps[this.serial], ...this.cfg } : this.cfg;
    if (empty(next)) delete m.aps[this.serial];
    else m.aps[this.serial] = next!;
  }
  toString = () => `${this.merge ? 'modifyAp' : 'setAp'}(${this.serial}, ${JSON.stringify(this.cfg)})`;
}

const commands = [
  fc.array(fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }), { minLength: 4, maxLength: 4 }).map((a) => new SetTopology(a)),
  fc.option(configArb, { nil: null }).map((c) => new SetNetwork(c)),
  fc.tuple(fc.constantFrom(...ZONES), fc.option(configArb, { nil: null })).map(([z, c]) => new SetZone(z, c)),
  fc.tuple(fc.constantFrom(...SERIALS), fc.option(configArb, { nil: null }), fc.boolean()).map(([s, c, m]) => new SetAp(s, c, m)),
];

describe('layered config: model-based', () => {
  it('agrees with a reference model after every command', () => {
    fc.assert(fc.property(fc.commands(commands, { maxCommands: 40, size: 'medium' }), (cmds) => {
      const t = validateTopology({ z1: SERIALS.slice(0, 2), z2: SERIALS.slice(2, 3) });
      const model: Ref = { topology: t, network: {}, zones: {}, aps: {} };
      const real: Real = { layers: emptyLayeredConfig(), topology: t };
      fc.modelRun(() => ({ model, real }), [...cmds].map((c) => {
        const run = c.run.bind(c);
        c.run = (m: Ref, r: Real) => {
          run(m, r);
          for (const s of SERIALS) {
            const eff = effectiveConfig(r.layers, r.topology, s);
            const ref = refEffective(m, s);
            if (ref === null) expect(eff).toBeNull();
            else expect(Object.fromEntries(Object.entries(eff!).filter(([, v]) => v !== null))).toEqual(ref);
          }
          expect(r.layers).toEqual({ networkConfig: m.network, zoneConfig: m.zones, apConfig: m.aps });
        };
        return c;
      }));
    }), propParams(100));
  });
});
