import { describe, expect, it } from 'vitest';
import { neighbourWidth } from '../../../../src/rrm/model/ie.js';

// Vectors from reference §4.2 H1 / device-protocol §3.4.
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
