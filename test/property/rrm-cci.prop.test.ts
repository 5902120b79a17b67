/**
 * The CCI objective (src/rrm/score/cci.ts) against an independent computation from the synthetic
 * venue's geometry, and its algebra (plans, power shifts, churn).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { blockOf, type Band } from '../../src/protocol/wifi-channels.js';
import { cciInstance, scoreInstance, spectrumOverlaps } from '../../src/rrm/score/cci.js';
import type { Plan } from '../../src/rrm/algorithms/common.js';
import { applyToVenue, genVenue, propParams, signalDbm, venueModel, type SynthVenue } from '../helpers/rrm-models.js';

const cover = (band: Band, ch: number, w: 20 | 40 | 80 | 160) => blockOf(band, ch, band === '2G' ? 20 : w)?.channels ?? [ch];

/** Straight from the definition: every radio, every transmitter it hears above −82 dBm on overlapping spectrum. */
function referenceCci(v: SynthVenue): { cci: number; edges: number } {
  let cci = 0;
  let edges = 0;
  for (const ap of v.aps) {
    for (const r of ap.radios) {
      const mine = cover(r.band, r.channel, r.width);
      const others = [
        ...v.aps.filter((b) => b.serial !== ap.serial).flatMap((b) => b.radios.filter((x) => x.band === r.band).map((x) => ({ ...x, x: b.x, y: b.y, managed: true }))),
        ...v.unmanaged.filter((u) => u.band === r.band).map((u) => ({ ...u, managed: false })),
      ];
      for (const o of others) {
        const s = signalDbm(o.tx, Math.hypot(o.x - ap.x, o.y - ap.y));
        if (s < v.hearingDbm || s <= -82) continue;
        const theirs = cover(o.band, o.channel, o.width);
        const overlap = r.band === '2G'
          ? mine.some((a) => theirs.some((b) => Math.abs(a - b) < 5))
          : mine.some((a) => theirs.includes(a));
        if (!overlap) continue;
        cci += 10 ** (s / 10);
        if (o.managed) edges++;
      }
    }
  }
  return { cci, edges };
}

const venueArb = fc.record({
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  aps: fc.integer({ min: 1, max: 12 }),
  unmanaged: fc.integer({ min: 0, max: 6 }),
  bands: fc.constantFrom<Band[]>(['2G'], ['5G'], ['2G', '5G']),
  side: fc.integer({ min: 5, max: 80 }),
});

describe('CCI objective', () => {
  it('equals the definition computed from the venue geometry, before and after a channel plan', () => {
    fc.assert(fc.property(venueArb, fc.integer({ min: 0, max: 1000 }), (p, planSeed) => {
      const v = genVenue(p.seed, { aps: p.aps, unmanaged: p.unmanaged, bands: p.bands, side: p.side });
      const inst = cciInstance(venueModel(v), v.aps.map((a) => a.serial));
      const before = scoreInstance(inst);
      const ref = referenceCci(v);
      expect(before.cci_mw).toBeCloseTo(ref.cci, 9);
      expect(before.conflictEdges).toBe(ref.edges);
      expect(before.churn).toBe(0);
      expect(before.worstRadioCci_mw).toBeLessThanOrEqual(before.cci_mw + 1e-12);
      // a plan moving some radios elsewhere: scoring the plan = scoring the venue after it
      const plan: Plan = {};
      const CH: Record<Band, number[]> = { '2G': [1, 3, 6, 8, 11], '5G': [36, 44, 149, 157], '6G': [5] };
      let moved = 0;
      v.aps.forEach((ap, i) => {
        for (const r of ap.radios) {
          if ((i * 7 + planSeed) % 3 !== 0) continue;
          const list = CH[r.band];
          const ch = list[(planSeed + i) % list.length]!;
          const primary = blockOf(r.band, ch, r.width)?.channels[0] ?? ch;
          (plan[ap.serial] ??= {})[r.band] = ch;
          if (primary !== r.channel) moved++;
        }
      });
      const after = scoreInstance(inst, { channel: plan });
      const venueAfter = applyToVenue(v, 'channel', Object.fromEntries(Object.entries(plan).map(([s, b]) => [s, Object.fromEntries(
        Object.entries(b).map(([band, ch]) => [band, blockOf(band as Band, ch, v.aps.find((a) => a.serial === s)!.radios.find((r) => r.band === band)!.width)?.channels[0] ?? ch]),
      )])));
      expect(after.cci_mw).toBeCloseTo(referenceCci(venueAfter).cci, 9);
      expect(after.churn).toBe(moved);
    }), propParams(150));
  });

  it('a power plan shifts what others hear dB for dB', () => {
    fc.assert(fc.property(venueArb, fc.integer({ min: -10, max: 10 }), (p, delta) => {
      // everyone hears everyone, so the shifted venue's scans hold the same transmitters
      const v = genVenue(p.seed, { aps: p.aps, unmanaged: p.unmanaged, bands: p.bands, side: p.side, hearingDbm: -200 });
      const inst = cciInstance(venueModel(v), v.aps.map((a) => a.serial));
      const plan: Plan = Object.fromEntries(v.aps.map((ap) => [ap.serial, Object.fromEntries(ap.radios.map((r) => [r.band, r.tx + delta]))]));
      const after = scoreInstance(inst, { txPower: plan });
      const shifted = { ...v, aps: v.aps.map((ap) => ({ ...ap, radios: ap.radios.map((r) => ({ ...r, tx: r.tx + delta })) })) };
      expect(after.cci_mw).toBeCloseTo(referenceCci(shifted).cci, 9);
      expect(after.conflictEdges).toBe(referenceCci(shifted).edges);
      expect(after.churn).toBe(delta === 0 ? 0 : inst.radios.length);
    }), propParams(100));
  });

  it('overlap: 2.4 GHz channels less than 5 apart; 5 GHz blocks sharing a 20 MHz channel', () => {
    expect(spectrumOverlaps('2G', [1], [5])).toBe(true);
    expect(spectrumOverlaps('2G', [1], [6])).toBe(false);
    expect(spectrumOverlaps('2G', [6], [11])).toBe(false);
    expect(spectrumOverlaps('2G', [8], [11])).toBe(true);
    expect(spectrumOverlaps('5G', [36, 40, 44, 48], [44])).toBe(true);
    expect(spectrumOverlaps('5G', [36, 40], [44, 48])).toBe(false);
  });
});
