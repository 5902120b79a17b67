import { describe, expect, it } from 'vitest';
import { apApPower } from '../../../../src/rrm/algorithms/measure-ap-ap.js';
import { clientTargetPower, noisePowerDbm } from '../../../../src/rrm/algorithms/measure-ap-client.js';
import { descentSearch, exhaustiveSearch } from '../../../../src/rrm/algorithms/location-optimal.js';
import { CoverageGrid } from '../../../../src/rrm/algorithms/coverage-grid.js';
import { snapPower, txChoices, TX_POWER_RANGE } from '../../../../src/rrm/algorithms/common.js';
import { defaultEffectiveConfig } from '../../../../src/rrm/config/layered.js';

describe('tx power choices', () => {
  it('user power wins, allowed powers narrow 0..30, an impossible set is empty', () => {
    const c = defaultEffectiveConfig();
    expect(txChoices(c, '5G')).toEqual(TX_POWER_RANGE);
    expect(txChoices({ ...c, userTxPowers: { '5G': 12 }, allowedTxPowers: { '5G': [1] } }, '5G')).toEqual([12]);
    expect(txChoices({ ...c, allowedTxPowers: { '5G': [25, 3, 40] } }, '5G')).toEqual([3, 25]);
    expect(txChoices({ ...c, allowedTxPowers: { '5G': [40] } }, '5G')).toEqual([]);
  });
  it('snaps to the nearest choice, ties upward', () => {
    expect(snapPower(14, [10, 20])).toBe(10);
    expect(snapPower(15, [10, 20])).toBe(20);
    expect(snapPower(99, [10, 20])).toBe(20);
  });
});

describe('measure_ap_ap power', () => {
  it('moves by threshold − rssi, clamps, and snaps to an allowed power (upstream can miss the allowed list)', () => {
    expect(apApPower(20, [-80, -60], -70, 0, TX_POWER_RANGE)).toBe(30);
    expect(apApPower(20, [-65, -60], -70, 0, TX_POWER_RANGE)).toBe(15);
    expect(apApPower(20, [-65, -60], -70, 1, TX_POWER_RANGE)).toBe(10);
    expect(apApPower(20, [-65, -60], -70, 9, TX_POWER_RANGE)).toBe(10);
    expect(apApPower(20, [-66], -70, 0, [0, 10, 20])).toBe(20);
    expect(apApPower(20, [], -70, 0, [5, 12])).toBe(12);
  });
});

describe('measure_ap_client power', () => {
  it('uses the thermal noise of the channel width', () => {
    expect(noisePowerDbm(20)).toBeCloseTo(-100.97, 1);
    expect(noisePowerDbm(80)).toBeCloseTo(-94.95, 1);
  });
  it('is the power for the target MCS, lowering the MCS when even max is not enough', () => {
    // 25 + 20 − (−60) − 100.97 + 4 = 8.03 -> 9
    expect(clientTargetPower(20, -60, 20, 8, 0, 30)).toBe(9);
    // MCS 8..5 need 39, 37, 34, 31 dBm; MCS 4: 15 + 20 + 90 − 100.97 + 4 = 28.03 -> 29
    expect(clientTargetPower(20, -90, 20, 8, 0, 30)).toBe(29);
    expect(clientTargetPower(0, -200, 20, 9, 3, 30)).toBe(3);
    expect(clientTargetPower(20, -20, 20, 8, 6, 30)).toBe(6);
  });
});

describe('location_optimal search', () => {
  it('exhaustive search visits assignments first-AP-slowest and keeps the first strict best', () => {
    const grid = new CoverageGrid([{ x: 10, y: 10, choices: [29, 30] }, { x: 80, y: 80, choices: [29, 30] }], 100);
    const best = exhaustiveSearch(grid)!;
    const scores = [[29, 29], [29, 30], [30, 29], [30, 30]].map((p) => grid.score(p));
    const first = scores.indexOf(Math.min(...scores));
    expect(best).toEqual([[29, 29], [29, 30], [30, 29], [30, 30]][Number.isFinite(scores[first]!) ? first : 3]);
  });
  it('coordinate descent never scores worse than all-max', () => {
    const grid = new CoverageGrid([10, 30, 50, 70].map((x) => ({ x, y: 50, choices: [0, 10, 20, 30] })), 100);
    expect(grid.score(descentSearch(grid))).toBeLessThanOrEqual(grid.score([30, 30, 30, 30]));
  });
});
