import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runVenue } from '../../simulator/run.js';
import { loadScenario } from '../../simulator/scenario.js';
import { capabilitiesDocument } from '../../simulator/ap/models.js';
import { parseConnectParams } from '../../src/protocol/capabilities.js';
import { parseStateParams, parseState } from '../../src/protocol/state.js';

const SEED = 99;
// The real captures live beside the clone (../shared from the repo root), never inside it.
const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/real-ap', import.meta.url));
const haveFixtures = existsSync(FIXTURES);
const fixture = (rel: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, rel), 'utf8')) as Record<string, unknown>;

type Rec = { t: number; serial: string; dir?: string; event?: string; frame?: { method?: string; params: Record<string, any> } };
function lab(seed: number, minutes: number): Rec[] {
  const out: Rec[] = [];
  runVenue({ scenario: loadScenario('lab').scenario, seed, durationMs: minutes * 60_000, onLine: (l) => out.push(JSON.parse(l) as Rec) });
  return out;
}

/** Keys of `real` missing in `ours`, recursively into objects (arrays: compared on their first element). */
function missingKeys(real: unknown, ours: unknown, path = ''): string[] {
  if (Array.isArray(real)) return real.length > 0 && Array.isArray(ours) && ours.length > 0 ? missingKeys(real[0], ours[0], `${path}[0]`) : [];
  if (typeof real !== 'object' || real === null) return typeof real === typeof ours ? [] : [`${path}: ${typeof real} vs ${typeof ours}`];
  if (typeof ours !== 'object' || ours === null) return [`${path}: object missing`];
  return Object.keys(real).flatMap((k) => (k in ours ? missingKeys((real as any)[k], (ours as any)[k], `${path}/${k}`) : [`${path}/${k}`]));
}

describe('simulated frames (property, seed 99)', () => {
  if (!haveFixtures) console.warn(`real-AP fixture tests skipped: ${FIXTURES} is absent`);

  it('parse with the protocol schemas and keep their counters monotonic within a boot', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
      const recs = lab(seed, 4);
      const last = new Map<string, any>();
      let states = 0;
      for (const r of recs) {
        if (r.event === 'connect') last.delete(r.serial);
        const f = r.frame;
        if (!f) continue;
        if (f.method === 'connect') expect(parseConnectParams(f.params).ok).toBe(true);
        if (f.method !== 'state') continue;
        states++;
        const p = parseStateParams(f.params);
        expect(p.ok ? [] : p.errors).toEqual([]);
        const s = f.params.state;
        for (const radio of s.radios) {
          const sv = radio.survey[0];
          expect(sv.busy).toBeLessThanOrEqual(sv.time);
          expect(sv.time_rx + sv.time_tx).toBeLessThanOrEqual(sv.busy);
          expect(radio.chanUtil).toBeGreaterThanOrEqual(0);
          expect(radio.chanUtil).toBeLessThanOrEqual(100);
        }
        const prev = last.get(r.serial);
        if (prev) {
          for (const k of ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets'] as const) expect(s.interfaces[0].counters[k]).toBeGreaterThanOrEqual(prev.interfaces[0].counters[k]);
          s.radios.forEach((radio: any, i: number) => {
            for (const k of ['time', 'busy', 'time_rx', 'time_tx'] as const) expect(radio.survey[0][k]).toBeGreaterThanOrEqual(prev.radios[i].survey[0][k]);
          });
          s.interfaces[0].ssids.forEach((ssid: any, i: number) => {
            for (const k of ['rx_bytes', 'tx_bytes'] as const) expect(ssid.counters[k]).toBeGreaterThanOrEqual(prev.interfaces[0].ssids[i].counters[k]);
          });
          expect(s.unit.uptime).toBeGreaterThan(prev.unit.uptime);
        }
        last.set(r.serial, s);
      }
      expect(states).toBeGreaterThan(0);
    }), { seed: SEED, numRuns: 5 });
  });

  it.skipIf(!haveFixtures)('state frames carry every field of the real fw 2.9 capture (needs ../shared/fixtures/real-ap)', () => {
    const real = fixture('states/state-2-9.json') as any;
    expect(parseState(real).ok).toBe(true);
    const recs = lab(11, 3);
    const withAssoc = recs.map((r) => r.frame).find((f) => f?.method === 'state' && f.params.state.interfaces[0].ssids.some((s: any) => s.associations.length > 0))!;
    const ours = withAssoc.params.state;
    expect(missingKeys(real.unit, ours.unit)).toEqual([]);
    expect(missingKeys(real.radios[0], ours.radios[0]).filter((k) => !k.startsWith('/survey'))).toEqual([]);
    const realIf = real.interfaces[0];
    const ourIf = ours.interfaces[0];
    const { ssids: _s, clients: realClients, ...realIfRest } = realIf;
    expect(missingKeys(realIfRest, ourIf)).toEqual([]);
    expect(missingKeys(realClients[0], ourIf.clients[0])).toEqual([]);
    const realSsid = realIf.ssids.find((s: any) => s.associations?.length > 0);
    const ourSsid = ourIf.ssids.find((s: any) => s.associations.length > 0);
    const { associations: realAssoc, ...realSsidRest } = realSsid;
    expect(missingKeys(realSsidRest, ourSsid)).toEqual([]);
    expect(missingKeys(realAssoc[0], ourSsid.associations[0]).filter((k) => !/\/(he|vht|ht|sgi|nss)$/.test(k))).toEqual([]);
    expect(missingKeys(real['link-state'].upstream.eth0, ours['link-state'].upstream.eth0)).toEqual([]);
    expect(missingKeys(real['link-state'].downstream.eth1, Object.values(ours['link-state'].downstream)[0])).toEqual([]);
    expect(missingKeys(real['lldp-peers'], ours['lldp-peers'])).toEqual([]);
  });

  it.skipIf(!haveFixtures)('capabilities documents match the real captures of the same models (needs ../shared/fixtures/real-ap)', () => {
    for (const model of ['edgecore_eap101', 'edgecore_eap102', 'edgecore_ecw5410', 'linksys_ea8300']) {
      const real = fixture(`capabilities/${model}.json`) as any;
      // The captures list hardware channels; a US device reports only US channels, so compare to US-legal subsets.
      const ours = capabilitiesDocument(model, 'US', 'a0b1c2000001') as any;
      expect(Object.keys(ours.wifi).sort()).toEqual(Object.keys(real.wifi).sort());
      for (const [path, phy] of Object.entries<any>(real.wifi)) {
        const mine = ours.wifi[path];
        expect(mine.band).toEqual(phy.band);
        expect(mine.htmode).toEqual(phy.htmode);
        expect(mine.tx_ant).toBe(phy.tx_ant);
        expect(mine.channels).toEqual(phy.channels.filter((c: number) => c <= 165 && !(phy.band[0] === '2G' && c > 11)));
        const { dfs_channels: realDfs, ...rest } = phy;
        expect(missingKeys(rest, mine)).toEqual([]);
        if (realDfs) expect(mine.dfs_channels).toEqual(realDfs);
      }
      expect(ours.compatible).toBe(real.compatible);
      expect(ours.platform).toBe(real.platform);
    }
  });
});
