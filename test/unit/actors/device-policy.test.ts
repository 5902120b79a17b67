import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { STARTS_NO_COMMAND } from '../../../actors/device/device.types.js';
import { Fleet, type FleetEvent } from '../../../actors/fleet.js';
import type { DeviceLink } from '../../../src/protocol/device-link.js';
import { SERIAL, T0, submission } from '../../helpers/device-fixtures.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';

/** A link whose source scripts every command the AP runs. */
class ScriptedLink extends FakeLink implements DeviceLink {
  readonly refusesNewCommands = 'scripted for this test: it runs what its script holds';
}

function setup() {
  const clock = new SimulatedClock();
  clock.set(T0);
  let n = 0;
  const fleet = new Fleet({ clock, newId: () => `id-${++n}`, storedConfigFor: () => ({ uuid: 99, configuration: { radios: [] } }) });
  const events: FleetEvent[] = [];
  fleet.events$.subscribe((e) => events.push(e));
  return { clock, fleet, events };
}

describe('the device policy and the command question', () => {
  it('by default an actor pushes a stored configuration newer than the AP runs', async () => {
    const { fleet, clock } = setup();
    const link = new FakeLink(SERIAL, () => clock.now());
    fleet.attach(link);
    link.up();
    link.connect({ uuid: 5 });
    await flush();
    expect(link.sent.map((f) => f.method)).toContain('configure');
  });

  it('STARTS_NO_COMMAND: no reconcile push and no recovery reboot', async () => {
    const { fleet, clock } = setup();
    const link = new FakeLink(SERIAL, () => clock.now());
    fleet.attach(link, STARTS_NO_COMMAND);
    link.up();
    link.connect({ uuid: 5 });
    await flush();
    link.notify('recovery', { uuid: 5, firmware: 'x', reboot: true, loglines: [] });
    await flush();
    clock.increment(60_000);
    await flush();
    expect(link.sent).toEqual([]);
  });

  it('takes the policy of the link attached later to an actor that already exists', async () => {
    const { fleet, clock } = setup();
    fleet.spawn(SERIAL);
    const link = new FakeLink(SERIAL, () => clock.now());
    fleet.attach(link, STARTS_NO_COMMAND);
    link.up();
    link.connect({ uuid: 5 });
    await flush();
    expect(link.sent).toEqual([]);
  });

  it('refuses a new command to a link that takes none, with its reason, and lets a scripted one through', async () => {
    const { fleet, clock, events } = setup();
    const link = new ScriptedLink(SERIAL, () => clock.now());
    fleet.attach(link, STARTS_NO_COMMAND);
    link.up();
    link.connect({ uuid: 5 });
    await flush();
    expect(fleet.commandable(SERIAL)).toBe(false);
    expect(fleet.commandRefusal(SERIAL)).toBe(link.refusesNewCommands);
    fleet.submit(SERIAL, submission('ping'));
    expect(events.at(-1)).toMatchObject({ type: 'command-rejected', payload: { code: 'DEVICE_OFFLINE', reason: link.refusesNewCommands, byLink: true } });
    expect(link.sent).toEqual([]);
    fleet.submit(SERIAL, { ...submission('ping'), scripted: true });
    await flush();
    expect(link.sent.map((f) => f.method)).toEqual(['ping']);
  });
});
