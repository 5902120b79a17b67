import { describe, expect, it } from 'vitest';
import { countAssociations, eventOf, statusFromState } from '../../../actors/device/notifications.js';

const S = 'aabbccddeeff';
const assoc = (n: number) => Array.from({ length: n }, (_, i) => ({ station: `s${i}` }));

describe('countAssociations', () => {
  it('takes the band from the ssid when it names one', () => {
    const state = { interfaces: [{ ssids: [{ band: '6G', phy: 'p0', associations: assoc(2) }, { band: '5G', associations: assoc(1) }] }] };
    expect(countAssociations(state)).toEqual({ '2G': 0, '5G': 1, '6G': 2 });
  });

  it('falls back to the radio with the ssid phy: band, then frequency, then channel', () => {
    const state = {
      radios: [
        { phy: 'a', band: ['2G'], channel: 6 },
        { phy: 'b:6G', frequency: [5955], channel: 1 },
        { phy: 'c', channel: 36 },
        { phy: 'd', channel: 11 },
      ],
      interfaces: [{ ssids: [
        { phy: 'a', associations: assoc(1) }, { phy: 'b', associations: assoc(2) },
        { phy: 'c', associations: assoc(3) }, { phy: 'd', associations: assoc(4) }, { phy: 'd' },
      ] }],
    };
    expect(countAssociations(state)).toEqual({ '2G': 5, '5G': 3, '6G': 2 });
  });
});

describe('statusFromState', () => {
  it('derives memory, the 5-minute load, temperature and uptime; zeros when absent', () => {
    expect(statusFromState({ unit: { memory: { total: 200, free: 50 }, load: [1.5, 1, 0.5], temperature: [40, 60], uptime: 77 } }, 9))
      .toMatchObject({ UUID: 9, memoryUsed: 75, load: 1, temperature: 40, uptime: 77 });
    expect(statusFromState({}, 1)).toMatchObject({ memoryUsed: 0, load: 0, temperature: 0, uptime: 0, associations_2G: 0 });
  });
});

describe('eventOf', () => {
  it('unpacks a device event [timestamp, {type, payload}]', () => {
    const e = eventOf(S, 'event', { data: { event: [1700000000, { type: 'client.join', payload: { client: 'x' } }] } }, 5000, 1);
    expect(e).toEqual({ type: 'event', serial: S, at: 5000, payload: { eventType: 'client.join', timestamp: 1700000000, payload: { client: 'x' } } });
  });

  it('files a rebootLog as a type-2 log at the device date', () => {
    const e = eventOf(S, 'rebootLog', { uuid: 3, type: 'watchdog', info: ['a'], date: 1699999000 }, 1_700_000_000_000, 1);
    expect(e).toMatchObject({ type: 'log', payload: { log: 'watchdog', severity: 6, logType: 2, recorded: 1699999000, data: { info: ['a'] } } });
  });

  it('files a log under the running config uuid', () => {
    const e = eventOf(S, 'log', { log: 'hello', severity: 5, data: 'not an object' }, 2000, 42);
    expect(e).toMatchObject({ type: 'log', payload: { log: 'hello', severity: 5, uuid: 42, data: {}, logType: 0, recorded: 2 } });
  });

  it('marks telemetry adhoc and passes unsolicited scans on', () => {
    expect(eventOf(S, 'telemetry', { data: { a: 1 }, adhoc: true }, 0, 0)).toMatchObject({ payload: { data: { a: 1 }, adhoc: true } });
    expect(eventOf(S, 'wifiscan', { data: [{ bssid: 'b' }] }, 0, 0)).toMatchObject({ type: 'wifiscan-result', payload: { source: 'notification', entries: [{ bssid: 'b' }] } });
    expect(eventOf(S, 'cfgpending', { active: 3, uuid: 4 }, 0, 0)).toMatchObject({ type: 'config-pending', payload: { source: 'device', deviceUuid: 3, pendingUuid: 4 } });
    expect(eventOf(S, 'ping', { uuid: 1 }, 0, 0)).toMatchObject({ type: 'notification', payload: { method: 'ping' } });
  });
});
