import { describe, expect, it } from 'vitest';
import { computeDashboard } from '../../../src/gateway/routes/dashboard.js';
import { offlineStatus, type DeviceStatus } from '../../../src/protocol/device-status.js';

const NOW = 1_800_000_000;
const HOUR = 3600;
const DAY = 24 * HOUR;
const device = (serialNumber: string, extra: { firmware?: string; lastRecordedContact?: number } = {}) =>
  ({ serialNumber, compatible: 'edgecore_eap101', firmware: extra.firmware ?? 'fw-stored', lastRecordedContact: extra.lastRecordedContact ?? 0 });
const live = (serial: string, s: Partial<DeviceStatus>): DeviceStatus => ({ ...offlineStatus(serial), connected: true, ...s });
const tags = (list: { tag: string; value: number }[]) => Object.fromEntries(list.map((e) => [e.tag, e.value]));

describe('computeDashboard', () => {
  const statuses = new Map<string, DeviceStatus>([
    ['903cb3000001', live('903cb3000001', { firmware: 'fw-live', lastContact: NOW - 10, uptime: 2 * DAY, memoryUsed: 30, load: 0.04, associations_2G: 3, associations_5G: 7, verifiedCertificate: 'VERIFIED' })],
    ['903cb3000002', live('903cb3000002', { lastContact: NOW - 2 * HOUR, uptime: 40 * DAY, memoryUsed: 80, load: 0.9, associations_6G: 2, verifiedCertificate: 'SIMULATED' })],
    // Connected, no state yet: its zeros are no figures.
    ['903cb3000006', live('903cb3000006', { lastContact: NOW - 5 })],
    // Known to the fleet but offline: counts for lastContact only.
    ['903cb3000003', { ...offlineStatus('903cb3000003'), lastContact: NOW - 8 * DAY, uptime: 10, memoryUsed: 99 }],
  ]);
  const d = computeDashboard({
    now: NOW,
    devices: [
      device('903cb3000001'), device('903cb3000002'), device('903cb3000003'), device('903cb3000004', { lastRecordedContact: NOW - 45 * DAY }),
      device('903cb3000005'), device('903cb3000006'),
    ],
    statusOf: (serial) => statuses.get(serial),
    commandCounts: [{ command: 'reboot', n: 4 }],
    lastSanity: new Map([['903cb3000001', 100], ['903cb3000002', 61], ['903cb3000003', 12]]),
  });

  it('counts connection status from the live status', () => {
    expect(tags(d.status)).toEqual({ connected: 3, 'not connected': 3 });
  });
  it('buckets the time since last contact without underflow (upstream underflows)', () => {
    expect(tags(d.lastContact)).toEqual({ now: 2, '>hour': 1, '>day': 0, '>week': 1, '>month': 1, never: 1 });
  });
  it('buckets uptime, memory and load of connected devices only, unknown before their first state', () => {
    expect(tags(d.upTimes)).toEqual({ now: 0, '>hour': 0, '>day': 1, '>week': 0, '>month': 1, unknown: 1 });
    expect(tags(d.memoryUsed)).toEqual({ '< 5%': 0, '< 25%': 0, '< 50%': 1, '< 75%': 0, '>75%': 1, unknown: 1 });
    expect(tags(d.load)).toEqual({ '< 5%': 1, '< 25%': 0, '< 50%': 0, '< 75%': 0, '>75%': 1, unknown: 1 });
  });
  it('sums associations per band over connected devices', () => {
    expect(d.associations).toEqual([{ tag: '2G', value: 3 }, { tag: '5G', value: 7 }, { tag: '6G', value: 2 }]);
  });
  it('maps certificate checks to upstream tags', () => {
    expect(tags(d.certificates)).toMatchObject({ verified: 1, simulated: 1, 'no certificate': 1 });
  });
  it('prefers the live firmware of connected devices', () => {
    expect(tags(d.firmware)).toEqual({ 'fw-live': 1, 'fw-stored': 5 });
  });
  it('buckets health from the last stored sanity; no health check is unknown, not 100%', () => {
    expect(tags(d.healths)).toEqual({ '100%': 1, '>90%': 0, '>60%': 1, '<60%': 1, unknown: 3 });
  });
  it('passes command counts through and names vendors from the OUI', () => {
    expect(d.commands).toEqual([{ tag: 'reboot', value: 4 }]);
    expect(d.vendors).toEqual([{ tag: 'Edgecore Networks Corporation', value: 6 }]);
    expect(d.numberOfDevices).toBe(6);
  });
});
