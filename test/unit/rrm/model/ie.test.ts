import { describe, expect, it } from 'vitest';
import { heOperation6g } from '../../../../simulator/ap/scan.js';
import { ALL_CHANNELS, CHANNEL_WIDTHS, blockOf } from '../../../../src/protocol/wifi-channels.js';
import { heOperationOf, heOperationWidth, neighbourWidth } from '../../../../src/rrm/model/ie.js';

// Vectors from upstream RRM's tests (docs/upstream.md#wifi-scan-results).
const HT20 = 'JAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==';
const HT40 = 'JAUAAAAAAAAAAAAAAAAAAAAAAAAAAA==';

describe('neighbour width from HT/VHT operation', () => {
  it('is 20 on 2.4 GHz and without HT', () => {
    expect(neighbourWidth(true, HT40, 'ASoAAAA=')).toBe(20);
    expect(neighbourWidth(false, undefined, undefined)).toBe(20);
  });
  it('HT only: 40 when the STA width bit is set', () => {
    expect(neighbourWidth(false, HT20, undefined)).toBe(20);
    expect(neighbourWidth(false, HT40, undefined)).toBe(40);
  });
  it('VHT width 0 follows HT; width 1 is 80, or 160 when the segments differ by 8', () => {
    expect(neighbourWidth(false, HT40, 'ACQAAAA=')).toBe(40);
    expect(neighbourWidth(false, HT40, 'ASoAAAA=')).toBe(80);
    expect(neighbourWidth(false, HT40, 'ASoyUAE=')).toBe(160);
    expect(neighbourWidth(false, HT20, 'ASoAAAA=')).toBe(20);
  });
  it('survives garbage', () => {
    expect(neighbourWidth(false, '', 'x')).toBe(20);
    expect(neighbourWidth(false, 42, null)).toBe(20);
  });
});

describe('6 GHz neighbour width from the HE Operation element', () => {
  // Every 6 GHz primary at every width it has a block for, as the simulator writes the element.
  const cases = ALL_CHANNELS['6G'].flatMap((ch) => CHANNEL_WIDTHS.filter((w) => blockOf('6G', ch, w)).map((w) => [ch, w] as const));

  it('reads back the width the simulator wrote, for every 6 GHz primary and width', () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const [ch, w] of cases) {
      const he = heOperation6g(ch, w);
      expect(heOperationWidth(he), `channel ${ch} width ${w}`).toBe(w);
      // A 6 GHz BSS has no HT/VHT operation: the width comes from HE alone.
      expect(neighbourWidth(false, undefined, undefined, he)).toBe(w);
    }
  });

  it('finds the 6 GHz information after the optional VHT and co-hosted BSSID fields', () => {
    // Parameters with bits 14 (VHT info, 3 bytes), 15 (co-hosted indicator, 1 byte) and 17 (6 GHz info).
    const p = (1 << 14) | (1 << 15) | (1 << 17);
    const body = [36, p & 0xff, (p >> 8) & 0xff, p >> 16, 5, 0xfc, 0xff, 0, 0, 0, 3, /* 6 GHz: */ 37, 3, 39, 47, 6];
    expect(heOperationWidth(Buffer.from(body).toString('base64'))).toBe(160);
    // Code 3 with segments not 8 apart is 80+80, counted as 80 (as for VHT).
    body[14] = 71;
    expect(heOperationWidth(Buffer.from(body).toString('base64'))).toBe(80);
  });

  it('gives nothing for another extension element, a body without 6 GHz information, or garbage', () => {
    const he = Buffer.from(heOperation6g(37, 80), 'base64');
    expect(heOperationWidth(Buffer.from([35, ...he.subarray(1)]).toString('base64'))).toBeUndefined();
    const no6g = Buffer.from(he);
    no6g[3] = 0; // clears bit 17
    expect(heOperationWidth(no6g.toString('base64'))).toBeUndefined();
    expect(heOperationWidth(he.subarray(0, 9).toString('base64'))).toBeUndefined();
    expect(heOperationWidth('')).toBeUndefined();
    expect(heOperationWidth(42)).toBeUndefined();
    expect(neighbourWidth(false, undefined, undefined, 'garbage')).toBe(20);
  });

  it('picks the HE Operation out of a scan entry\'s ies[] (type 255, extension id 36)', () => {
    const heCapabilities = Buffer.from([35, 1, 2, 3, 4, 5]).toString('base64');
    const he = heOperation6g(5, 80);
    expect(heOperationOf([{ type: 11, data: 'AQIDBAU=' }, { type: 255, data: heCapabilities }, { type: 255, data: he }])).toBe(he);
    expect(heOperationOf([{ type: 255, data: heCapabilities }])).toBeUndefined();
    expect(heOperationOf(undefined)).toBeUndefined();
    expect(heOperationOf([null, 7, { type: 255 }])).toBeUndefined();
  });
});
