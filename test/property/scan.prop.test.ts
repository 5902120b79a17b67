import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCAN_SENSITIVITY_DBM, scanEntries } from '../../simulator/ap/scan.js';
import { rxPowerDbm } from '../../simulator/world/radio-world.js';
import { radioFrequency } from '../../simulator/venue.js';
import { parseWifiScanEntry } from '../../src/protocol/wifiscan.js';
import { blockPrimaries, type ChannelWidth } from '../../src/protocol/wifi-channels.js';
import { openPlan, venueOf, type SimAp } from '../helpers/sim-venue.js';

const SEED = 777;

/** RRM's width inference from a scan entry (docs/upstream.md#wifi-scan-results), written from the rule. */
function rrmWidth(e: { channel: number; ht_oper?: string; vht_oper?: string }): number {
  if (e.channel <= 14) return 20;
  if (!e.ht_oper) return 20;
  const ht = Buffer.from(e.ht_oper, 'base64');
  const staWidth = (ht[1]! & 0x04) !== 0;
  if (!e.vht_oper) return staWidth ? 40 : 20;
  const vht = Buffer.from(e.vht_oper, 'base64');
  if (vht[0] === 0) return staWidth ? 40 : 20;
  if (vht[0] === 1 && staWidth) {
    if (vht[2] === 0) return 80;
    return Math.abs(vht[1]! - vht[2]!) === 8 ? 160 : 80;
  }
  return 20;
}

const serial = (i: number): string => `0000aa0000${(i + 16).toString(16).padStart(2, '0')}`;
const apsArb = fc.array(fc.record({
  x: fc.integer({ min: 0, max: 100 }), y: fc.integer({ min: 0, max: 100 }),
  tx5: fc.integer({ min: 0, max: 23 }), tx2: fc.integer({ min: 0, max: 20 }),
  width5: fc.constantFrom<ChannelWidth>(20, 40, 80, 160),
  pick: fc.nat(20), ch2: fc.integer({ min: 1, max: 11 }),
}), { minLength: 2, maxLength: 6 }).map((list) => list.map((a, i): SimAp => {
  const primaries = blockPrimaries('5G', a.width5, [36, 40, 44, 48, 52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144, 149, 153, 157, 161, 165]);
  return { serial: serial(i), x: a.x, y: a.y, tx5: a.tx5, tx2: a.tx2, width5: a.width5, ch5: primaries[a.pick % primaries.length]!, ch2: a.ch2 };
}));

describe('wifi scan (property, seed 777)', () => {
  it('shows only transmitters above sensitivity, and every one clearly above it', () => {
    fc.assert(fc.property(apsArb, fc.integer({ min: 0, max: 6 }), (aps, sigma) => {
      const { venue } = venueOf(openPlan(aps, { sigma }));
      const me = venue.aps[0]!;
      const entries = scanEntries(venue, me);
      for (const e of entries) expect(e.signal).toBeGreaterThanOrEqual(SCAN_SENSITIVITY_DBM);
      for (const other of venue.aps.slice(1)) {
        for (const r of other.radios) {
          const truth = rxPowerDbm(venue.world, other.pos, r.txPower, me.pos, radioFrequency(r));
          const seen = entries.filter((e) => r.bssids.includes(e.bssid));
          if (truth >= SCAN_SENSITIVITY_DBM + 6) expect(seen).toHaveLength(r.bssids.length);
          if (truth < SCAN_SENSITIVITY_DBM - 6) expect(seen).toHaveLength(0);
          for (const e of seen) expect(Math.abs(e.signal - truth)).toBeLessThanOrEqual(6);
        }
      }
      expect(entries.some((e) => me.radios.some((r) => r.bssids.includes(e.bssid)))).toBe(false);
    }), { seed: SEED, numRuns: 40 });
  });

  it('the signal X hears from Y moves dB for dB with Y tx power', () => {
    fc.assert(fc.property(apsArb, fc.integer({ min: -8, max: 8 }), (aps, delta) => {
      const changed = aps.map((a, i) => (i === 1 ? { ...a, tx5: Math.max(0, Math.min(23, a.tx5! + delta)) } : a));
      const k = changed[1]!.tx5! - aps[1]!.tx5!;
      const before = venueOf(openPlan(aps, { sigma: 5 })).venue;
      const after = venueOf(openPlan(changed, { sigma: 5 })).venue;
      const a = scanEntries(before, before.aps[0]!);
      const b = scanEntries(after, after.aps[0]!);
      const y5 = before.aps[1]!.radios[0]!.bssids;
      for (const e of a.filter((x) => y5.includes(x.bssid))) {
        const twin = b.find((x) => x.bssid === e.bssid);
        if (twin) expect(twin.signal - e.signal).toBe(k);
        else expect(e.signal + k).toBeLessThan(SCAN_SENSITIVITY_DBM);
      }
    }), { seed: SEED, numRuns: 40 });
  });

  it('entries parse with the protocol schema and encode the width RRM decodes', () => {
    fc.assert(fc.property(apsArb, (aps) => {
      const { venue } = venueOf(openPlan(aps.map((a) => ({ ...a, x: 50 + (a.x % 10), y: 50 + (a.y % 10) }))));
      const entries = scanEntries(venue, venue.aps[0]!);
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) {
        const parsed = parseWifiScanEntry(e);
        expect(parsed.ok ? [] : parsed.errors).toEqual([]);
        const src = venue.aps.flatMap((ap) => ap.radios).find((r) => r.bssids.includes(e.bssid))!;
        expect(e.channel).toBe(src.channel);
        expect(e.frequency).toBe(radioFrequency(src));
        expect(rrmWidth(e)).toBe(src.band === '2G' ? 20 : src.width);
        expect(Number.isInteger(e.signal)).toBe(true);
      }
    }), { seed: SEED, numRuns: 30 });
  });

  it('decodes the RRM test vectors the same way RRM does', () => {
    expect(rrmWidth({ channel: 36, ht_oper: 'JAUAAAAAAAAAAAAAAAAAAAAAAAAAAA==' })).toBe(40);
    expect(rrmWidth({ channel: 36, ht_oper: 'JAUAAAAAAAAAAAAAAAAAAAAAAAAAAA==', vht_oper: 'ASoAAAA=' })).toBe(80);
    expect(rrmWidth({ channel: 36, ht_oper: 'JAUAAAAAAAAAAAAAAAAAAAAAAAAAAA==', vht_oper: 'ASoyUAE=' })).toBe(160);
  });
});
