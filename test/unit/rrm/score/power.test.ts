import { describe, expect, it } from 'vitest';
import { venueToGps } from '../../../../src/protocol/geo.js';
import { channelToFrequency, type Band } from '../../../../src/protocol/wifi-channels.js';
import { buildModel, type DeviceDocuments } from '../../../../src/rrm/model/build.js';
import { PowerScene, powerScore } from '../../../../src/rrm/score/power.js';
import type { Site } from '../../../../src/rrm/site.js';

interface Ap {
  serial: string; band: Band; channel: number; tx: number; clients?: number[];
  hears?: { bssid: string; signal: number; channel?: number }[]; at?: [number, number];
}
const bssid = (serial: string) => `02:00:00:00:${serial.slice(-4, -2)}:${serial.slice(-2)}`;
const ORIGIN = { latitude: 45, longitude: 7, elevation: 0 };

function docs(aps: Ap[]): DeviceDocuments[] {
  return aps.map((a) => ({
    serial: a.serial,
    states: [{
      recorded: 1000,
      state: {
        radios: [{ band: [a.band], channel: a.channel, channel_width: 20, tx_power: a.tx }],
        interfaces: [{ ssids: [{ bssid: bssid(a.serial), band: a.band, radio: { $ref: '#/radios/0' }, associations: (a.clients ?? []).map((rssi) => ({ rssi })) }] }],
        ...(a.at ? { gps: venueToGps(ORIGIN, a.at[0], a.at[1]) } : {}),
      },
    }],
    scans: [{
      recorded: 1000,
      entries: (a.hears ?? []).map((h) => ({ bssid: h.bssid, channel: h.channel ?? a.channel, frequency: channelToFrequency(a.band, h.channel ?? a.channel)!, signal: h.signal })),
    }],
    capabilities: null,
    activeConfig: null,
  }));
}
const mw = (dbm: number) => 10 ** (dbm / 10);

describe('power score: clients', () => {
  it('coverage counts clients whose downlink (rssi + AP power - 15 dBm) reaches -67 dBm, with the plan applied', () => {
    const model = buildModel(docs([{ serial: 'aa0000000001', band: '5G', channel: 36, tx: 20, clients: [-70, -75] }]));
    expect(powerScore(model, ['aa0000000001'], {}).coverage).toBe(0.5);
    expect(powerScore(model, ['aa0000000001'], { aa0000000001: { '5G': 23 } }).coverage).toBe(1);
    expect(powerScore(model, ['aa0000000001'], { aa0000000001: { '5G': 17 } }).coverage).toBe(0);
    expect(powerScore(model, ['aa0000000001'], {}).clients).toBe(2);
  });

  it('median SINR: downlink over noise plus what the AP hears on its channel', () => {
    const model = buildModel(docs([
      { serial: 'aa0000000001', band: '5G', channel: 36, tx: 20, clients: [-60], hears: [{ bssid: '0e:00:00:00:00:01', signal: -70 }] },
    ]));
    const s = powerScore(model, ['aa0000000001'], {});
    const noise = -174 + 10 * Math.log10(20e6) + 6;
    expect(s.medianSinr).toBeCloseTo(-55 - 10 * Math.log10(mw(noise) + mw(-70)), 6);
    expect(powerScore(model, ['aa0000000002'], {}).medianSinr).toBeNull();
  });
});

describe('power score: CCI with powers applied', () => {
  const pair = (chB: number, band: Band = '5G') => buildModel(docs([
    { serial: 'aa0000000001', band, channel: band === '2G' ? 1 : 36, tx: 20, hears: [{ bssid: bssid('aa0000000002'), signal: -64, channel: chB }, { bssid: '0e:00:00:00:00:09', signal: -75, channel: chB }, { bssid: '0e:00:00:00:00:0a', signal: -85, channel: chB }] },
    { serial: 'aa0000000002', band, channel: chB, tx: 20, hears: [{ bssid: bssid('aa0000000001'), signal: -60, channel: band === '2G' ? 1 : 36 }] },
  ]));
  const serials = ['aa0000000001', 'aa0000000002'];

  it('sums both directions above -82 dBm, moved dB for dB by the transmitter\'s change; unmanaged fixed', () => {
    const m = pair(36);
    const base = powerScore(m, serials, {});
    expect(base.cci).toBeCloseTo(mw(-64) + mw(-60) + mw(-75), 12);
    expect(base.conflicts).toBe(2);
    const lower = powerScore(m, serials, { aa0000000002: { '5G': 10 } });
    expect(lower.cci).toBeCloseTo(mw(-74) + mw(-60) + mw(-75), 12);
    expect(powerScore(m, serials, { aa0000000002: { '5G': 3 } }).cci).toBeCloseTo(mw(-81) + mw(-60) + mw(-75), 12);
    // -82 dBm itself is not counted
    const gone = powerScore(m, serials, { aa0000000002: { '5G': 2 } });
    expect(gone.cci).toBeCloseTo(mw(-60) + mw(-75), 12);
    expect(gone.conflicts).toBe(1);
    expect(gone.worstCci).toBeCloseTo(mw(-60), 12);
  });

  it('counts nothing between radios whose spectrum does not overlap', () => {
    expect(powerScore(pair(44), serials, {}).cci).toBe(0);
  });

  it('2.4 GHz: channels less than 5 apart overlap (1 and 4), 5 apart do not (1 and 6)', () => {
    expect(powerScore(pair(4, '2G'), serials, {}).cci).toBeCloseTo(mw(-64) + mw(-60) + mw(-75), 12);
    expect(powerScore(pair(6, '2G'), serials, {}).cci).toBe(0);
  });
});

describe('power score: grid coverage', () => {
  // A 20 x 10 m floor, loss 40 + 35 log10(d), and a wall x = 10 of 50 dB.
  const site = (wallDb: number): Site => ({
    origin: ORIGIN, floors: [{ width: 20, depth: 10 }], floorHeightM: 3,
    lossDb: (a, b) => 40 + 35 * Math.log10(Math.max(1, Math.hypot(a.x - b.x, a.y - b.y))) + ((a.x - 10) * (b.x - 10) < 0 ? wallDb : 0),
  });
  const model = buildModel(docs([{ serial: 'aa0000000001', band: '5G', channel: 36, tx: 20, at: [5, 5] }]));

  it('is the share of cells a radio reaches at -67 dBm, placed from its reported gps', () => {
    // 20 dBm - 87 dB = -67 dBm: every cell within 22 m, i.e. the whole floor without the wall
    expect(powerScore(model, ['aa0000000001'], {}, { site: site(0) }).gridCoverage).toBe(1);
    // behind a 50 dB wall nothing is covered: half the floor
    const walled = powerScore(model, ['aa0000000001'], {}, { site: site(50), maxCells: 200 }).gridCoverage!;
    expect(walled).toBeCloseTo(0.5, 1);
    expect(powerScore(model, ['aa0000000001'], { aa0000000001: { '5G': 0 } }, { site: site(50), maxCells: 200 }).gridCoverage!).toBeLessThan(walled);
  });

  it('is null without a site or without positions', () => {
    expect(powerScore(model, ['aa0000000001'], {}).gridCoverage).toBeNull();
    const unplaced = buildModel(docs([{ serial: 'aa0000000001', band: '5G', channel: 36, tx: 20 }]));
    expect(powerScore(unplaced, ['aa0000000001'], {}, { site: site(0) }).gridCoverage).toBeNull();
  });

  it('an RRM location wins over the gps', () => {
    const s = new PowerScene(model, ['aa0000000001'], { site: site(50), maxCells: 200, location: () => [15, 5] });
    // now at x = 15: the right half is covered, the left half behind the wall
    expect(s.score(s.powersOf({})).gridCoverage).toBeCloseTo(0.5, 1);
  });
});
