import { describe, expect, it } from 'vitest';
import { buildModel, modelForSerials } from '../../../../src/rrm/model/build.js';
import { radioBand } from '../../../../src/rrm/model/band.js';
import { zoneView } from '../../../../src/rrm/model/view.js';
import { heOperation6g } from '../../../../simulator/ap/scan.js';

const PHY5 = 'platform/soc/c000000.wifi';
const phys = { [PHY5]: { band: ['5G' as const], channels: [36, 40] } };

describe('band of a state radio', () => {
  it('comes from the capabilities phy first', () => {
    expect(radioBand({ phy: PHY5, band: ['2G'] }, phys)).toBe('5G');
  });
  it('then from the phy ":BAND" suffix, the state band, the frequency', () => {
    expect(radioBand({ phy: `${PHY5}:6G` }, phys)).toBe('6G');
    expect(radioBand({ phy: 'x', band: ['2G'] }, undefined)).toBe('2G');
    expect(radioBand({ phy: 'x', frequency: [5955] }, undefined)).toBe('6G');
    expect(radioBand({ phy: 'x', frequency: [2437] }, {})).toBe('2G');
  });
  it('is undefined when nothing tells', () => {
    expect(radioBand({ channel: 6 }, undefined)).toBeUndefined();
  });
});

const state = (channel: number, recorded: number) => ({
  recorded,
  state: { unit: { localtime: 1, uptime: 1 }, radios: [{ phy: 'p', band: ['5G'], channel, channel_width: '80', tx_power: 20 }], interfaces: [] },
});

describe('model builder', () => {
  it('keeps the last 10 states and scans per device, oldest first, stamped with their time', () => {
    const m = buildModel([{
      serial: 's1',
      states: Array.from({ length: 12 }, (_, i) => state(36, 1000 - i)),
      scans: [{ recorded: 5, entries: [{ bssid: 'aa:aa:aa:aa:aa:aa', frequency: 5180, channel: 36, signal: -60 }] }],
    }]);
    expect(m.latestStates.s1).toHaveLength(10);
    expect(m.latestStates.s1!.map((s) => s.timestamp)).toEqual([...Array(10)].map((_, i) => 991 + i));
    expect(m.latestWifiScans.s1![0]![0]!.unixTimeMs).toBe(5);
  });

  it('drops unusable scan entries and empty scans (no empty scan list: upstream crashes on one)', () => {
    const m = buildModel([{ serial: 's1', states: [], scans: [{ recorded: 1, entries: [{ bssid: 'x' }, null] }] }]);
    expect(m.latestWifiScans.s1).toBeUndefined();
  });

  it('takes the radio list from the active configuration when known', () => {
    const m = buildModel([{ serial: 's1', states: [state(36, 1)], scans: [], activeConfig: { radios: [{ band: '5G', channel: 149 }] } }]);
    expect(m.latestDeviceStatusRadios.s1).toEqual([{ band: '5G', channel: 149 }]);
  });

  it('derives the radio list from the latest state otherwise', () => {
    const m = buildModel([{ serial: 's1', states: [state(36, 1), state(52, 2)], scans: [], capabilities: null }]);
    expect(m.latestDeviceStatusRadios.s1).toEqual([{ band: '5G', channel: 52, 'channel-width': 80, 'tx-power': 20 }]);
  });

  it('honours include (e.g. enableRRM) and restricts to serials', () => {
    const docs = [{ serial: 'a', states: [state(36, 1)], scans: [] }, { serial: 'b', states: [state(36, 1)], scans: [] }];
    expect(Object.keys(buildModel(docs, { include: (s) => s === 'b' }).latestStates)).toEqual(['b']);
    expect(Object.keys(modelForSerials(buildModel(docs), ['a']).latestStates)).toEqual(['a']);
  });
});

describe('zone view (what the optimizers read)', () => {
  it('takes a 6 GHz neighbour\'s width from the HE Operation element in its ies[] (it has no HT/VHT operation)', () => {
    // 6 GHz channel 37 at 80 MHz: the block 33-45; at 20 MHz (no element) only 37.
    const entry = (bssid: string, ies?: unknown) => ({ bssid, frequency: 6135, channel: 37, signal: -60, ...(ies ? { ies } : {}) });
    const m = buildModel([{
      serial: 's1', states: [state(36, 1)],
      scans: [{ recorded: 1, entries: [entry('bb:00:00:00:00:01', [{ type: 11, data: 'AQIDBAU=' }, { type: 255, data: heOperation6g(37, 80) }]), entry('bb:00:00:00:00:02')] }],
    }]);
    expect(m.latestWifiScans.s1![0]![0]!.he_oper).toBe(heOperation6g(37, 80));
    const n = zoneView(m, ['s1']).aps[0]!.neighbours;
    expect(n.find((x) => x.bssid === 'bb:00:00:00:00:01')).toMatchObject({ band: '6G', width: 80, covered: [33, 37, 41, 45] });
    expect(n.find((x) => x.bssid === 'bb:00:00:00:00:02')).toMatchObject({ band: '6G', width: 20, covered: [37] });
  });

  it('never crashes on missing fields and skips what it cannot use', () => {
    const m = buildModel([{
      serial: 's1',
      states: [{ recorded: 1, state: { radios: [{ channel: 0 }, { phy: 'p', band: ['2G'], channel: 6 }, null], interfaces: [{ ssids: [{ ssid: 'no-bssid' }, { bssid: 'AA:00:00:00:00:01', band: '2G' }, null] }, {}] } }],
      scans: [{ recorded: 1, entries: [{ bssid: 'bb:00:00:00:00:01', frequency: 5180, channel: 36, signal: -70 }, { bssid: 'bb:00:00:00:00:01', frequency: 5180, channel: 36, signal: -60 }] }],
    }]);
    const v = zoneView(m, ['s1', 'ghost']);
    expect(v.aps[0]!.radios).toEqual([expect.objectContaining({ band: '2G', channel: 6, width: 20, txPower: undefined, bssids: ['aa:00:00:00:00:01'] })]);
    expect(v.aps[0]!.neighbours).toEqual([expect.objectContaining({ bssid: 'bb:00:00:00:00:01', signal: -60, covered: [36] })]);
    expect(v.aps[1]).toMatchObject({ radios: [], neighbours: [], scanned: false });
    expect(v.managed.get('aa:00:00:00:00:01')).toBe('s1');
  });
});
