import { describe, expect, it } from 'vitest';
import { topologyOf } from '../../../src/venue-view/topology.js';
import { radiosOfState } from '../../../src/venue-view/ap-summary.js';

describe('venue view topology', () => {
  it('joins both directions of a pair at the stronger signal and keeps unknown BSSIDs as unmanaged', () => {
    const servedBy = new Map([['02:00:00:00:00:01', 'a'], ['02:00:00:00:00:02', 'b'], ['06:00:00:00:00:02', 'b']]);
    const t = topologyOf([
      { serial: 'a', bssid: '02:00:00:00:00:02', ssid: 'x', channel: 36, signal: -60 },
      { serial: 'a', bssid: '06:00:00:00:00:02', ssid: 'y', channel: 36, signal: -58 },
      { serial: 'b', bssid: '02:00:00:00:00:01', ssid: 'x', channel: 36, signal: -63 },
      { serial: 'b', bssid: '02:00:00:00:00:02', ssid: 'x', channel: 36, signal: -20 },
      { serial: 'b', bssid: 'aa:bb:cc:dd:ee:ff', ssid: 'cafe', channel: 6, signal: -70 },
      { serial: 'a', bssid: 'aa:bb:cc:dd:ee:ff', ssid: 'cafe', channel: 6, signal: -80 },
    ], servedBy);
    expect(t.edges).toEqual([{ a: 'a', b: 'b', signal: -58 }]);
    expect(t.unmanaged).toEqual([{ bssid: 'aa:bb:cc:dd:ee:ff', ssid: 'cafe', channel: 6, heardBy: [{ serial: 'b', signal: -70 }, { serial: 'a', signal: -80 }] }]);
  });
});

describe('venue view AP summary', () => {
  it('reads band, channel, power and clients per radio from a state, skipping what is not there', () => {
    const { radios, bssids } = radiosOfState({
      radios: [
        { band: ['5G'], channel: 36, channel_width: 80, tx_power: 20, chanUtil: 12 },
        { frequency: [2437], channel: 6, channel_width: '20', tx_power: 17 },
        { channel_width: 20 },
      ],
      interfaces: [{ ssids: [
        { bssid: '02:AA:00:00:00:01', radio: { $ref: '#/radios/0' }, associations: [{}, {}] },
        { bssid: '06:aa:00:00:00:01', radio: { $ref: '#/radios/1' }, associations: [{}] },
      ] }],
    });
    expect(radios).toEqual([
      { band: '5G', channel: 36, width: 80, txPower: 20, chanUtil: 12, clients: 2 },
      { band: '2G', channel: 6, width: 20, txPower: 17, chanUtil: null, clients: 1 },
    ]);
    expect(bssids).toEqual(['02:aa:00:00:00:01', '06:aa:00:00:00:01']);
  });
});
