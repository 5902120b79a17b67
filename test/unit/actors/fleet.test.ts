import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { FleetEvent } from '../../../actors/fleet.js';
import { Fleet, stateName, type FleetOptions } from '../../../actors/fleet.js';
import { submission } from '../../helpers/device-fixtures.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import type { DeviceStatusSource } from '../../../src/gateway/device-status-source.js';

const A = 'aabbccddeeff';
const B = '001122334455';
const T0 = 1_700_000_000_000;

function setup(opts: Partial<FleetOptions> = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  let n = 0;
  const fleet = new Fleet({ clock, newId: () => `id-${++n}`, ...opts });
  const events: FleetEvent[] = [];
  fleet.events$.subscribe((e) => events.push(e));
  return { clock, fleet, events };
}

describe('Fleet', () => {
  it('spawns one actor per serial and finds it under any spelling', () => {
    const { fleet } = setup();
    const a = fleet.spawn(A);
    expect(fleet.spawn('AA:BB:CC:DD:EE:FF')).toBe(a);
    expect(fleet.find('aa-bb-cc-dd-ee-ff')).toBe(a);
    expect(fleet.find(B)).toBeUndefined();
    expect(fleet.size).toBe(1);
  });

  it('merges every actor event into events$ with serial and clock time', async () => {
    const { fleet, events, clock } = setup();
    const la = new FakeLink(A, () => clock.now());
    const lb = new FakeLink(B, () => clock.now());
    fleet.attach(la);
    fleet.attach(lb);
    la.up();
    la.connect();
    await flush();
    clock.increment(1000);
    lb.up();
    lb.connect();
    await flush();
    lb.notify('healthcheck', { uuid: 1, sanity: 80, data: {} });
    const connected = events.filter((e) => e.type === 'connected');
    expect(connected.map((e) => [e.serial, e.at])).toEqual([[A, T0], [B, T0 + 1000]]);
    expect(events.at(-1)).toMatchObject({ type: 'healthcheck', serial: B, payload: { sanity: 80 } });
  });

  it('reports status, details and the list of devices', async () => {
    const { fleet, clock } = setup();
    const la = new FakeLink(A, () => clock.now());
    fleet.attach(la);
    fleet.spawn(B);
    la.up();
    la.connect({ uuid: 5 });
    await flush();
    la.notify('state', { uuid: 5, state: { unit: { uptime: 9 } } });
    expect(fleet.status(A)).toMatchObject({ serialNumber: A, connected: true, UUID: 5, uptime: 9 });
    expect(fleet.details(A)).toMatchObject({ state: 'online.idle', lastState: { unit: { uptime: 9 } }, pending: 0 });
    expect(fleet.details(B)?.state).toBe('offline');
    expect(fleet.list().map((s) => [s.serialNumber, s.connected])).toEqual([[A, true], [B, false]]);
  });

  it('asks the auto-provisioning policy about unknown devices only', async () => {
    const asked: string[] = [];
    const { fleet, clock, events } = setup({
      isKnownDevice: (s) => s === A,
      autoProvision: { onUnknownDevice: async (s) => { asked.push(s); return 'refuse'; } },
    });
    const la = new FakeLink(A, () => clock.now());
    const lb = new FakeLink(B, () => clock.now());
    fleet.attach(la);
    fleet.attach(lb);
    la.up();
    la.connect();
    lb.up();
    lb.connect();
    await flush();
    expect(asked).toEqual([B]);
    expect(fleet.status(A)?.connected).toBe(true);
    expect(fleet.status(B)?.connected).toBe(false);
    expect(lb.closed).toHaveLength(1);
    expect(events.find((e) => e.type === 'dropped')).toMatchObject({ serial: B, payload: { reason: 'not-provisioned' } });
  });

  it('refuses a blacklisted serial as soon as its link connects', () => {
    const { fleet, clock } = setup({ isBlacklisted: (s) => s === A });
    const la = new FakeLink(A, () => clock.now());
    fleet.attach(la);
    la.up();
    expect(la.closed).toHaveLength(1);
    expect(fleet.details(A)?.state).toBe('offline');
  });

  it('swaps the link of a known serial and listens only to the new one', async () => {
    const { fleet, clock } = setup();
    const first = new FakeLink(A, () => clock.now());
    fleet.attach(first);
    first.up();
    first.connect();
    await flush();
    const second = new FakeLink(A, () => clock.now());
    fleet.attach(second);
    expect(first.listening).toBe(0);
    expect(second.listening).toBe(1);
    expect(fleet.status(A)?.connected).toBe(false);
    second.up();
    second.connect();
    expect(fleet.status(A)?.connected).toBe(true);
  });

  it('stops an actor: its queued commands expire and it is forgotten', () => {
    const { fleet, events } = setup();
    fleet.spawn(A);
    const sub = submission('configure');
    fleet.submit(A, { ...sub, command: { ...sub.command, serialNumber: A } });
    fleet.stop(A);
    expect(fleet.find(A)).toBeUndefined();
    const last = events.filter((e) => e.type === 'command-updated').at(-1);
    expect(last?.type === 'command-updated' && last.payload.command.status).toBe('expired');
  });

  it('closes the link of a stopped actor only when asked', () => {
    const { fleet, clock } = setup();
    const la = new FakeLink(A, () => clock.now());
    const lb = new FakeLink(B, () => clock.now());
    fleet.attach(la);
    fleet.attach(lb);
    fleet.stop(A);
    fleet.stop(B, 'device deleted', { closeLink: true });
    expect(la.closed).toEqual([]);
    expect(lb.closed).toEqual(['device deleted']);
    expect(la.listening + lb.listening).toBe(0);
  });

  it('completes events$ when the whole fleet stops', () => {
    const { fleet } = setup();
    let completed = false;
    fleet.events$.subscribe({ complete: () => { completed = true; } });
    fleet.spawn(A);
    fleet.stopAll();
    expect(completed).toBe(true);
    expect(fleet.size).toBe(0);
  });

  it('serves as the gateway DeviceStatusSource, with connection statistics', async () => {
    const { fleet, clock } = setup();
    const source: Omit<DeviceStatusSource, 'lastState'> = fleet;
    const la = new FakeLink(A, () => clock.now());
    const lb = new FakeLink(B, () => clock.now());
    fleet.attach(la);
    fleet.attach(lb);
    la.up();
    la.connect();
    await flush();
    lb.up();
    clock.increment(10_000);
    expect(source.connectionStatistics()).toEqual({ averageConnectionTime: 10, connectedDevices: 1, connectingDevices: 1 });
    expect(source.status(A)?.connected).toBe(true);
  });

  it('names nested machine states', () => {
    expect(stateName('offline')).toBe('offline');
    expect(stateName({ online: 'busy' })).toBe('online.busy');
  });
});
