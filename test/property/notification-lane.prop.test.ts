import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { Fleet, type FleetEvent } from '../../actors/fleet.js';
import type { StoredConfig } from '../../actors/device/device.types.js';
import type { CommandMethod, JsonObject } from '../../src/protocol/frame.js';
import { submission } from '../helpers/device-fixtures.js';
import { FakeLink, flush } from '../helpers/fake-link.js';

/**
 * The notification lane (actors/device/notification-lane.ts) must be invisible: a fleet that
 * applies plain notifications without a machine step and one that sends every frame through
 * the machine see the same random AP behaviour, commands, blacklisting, stored-config changes and
 * clock jumps, and must emit the same events, send the same frames and end in the same state.
 */

const SERIAL = 'aabbccddeeff';
const T0 = 1_700_000_000_000;

type Step =
  | { kind: 'up' | 'down' | 'malformed' | 'no-serial' | 'bad-serial' | 'reply' | 'reply-error' | 'blacklist' | 'unblacklist' }
  | { kind: 'connect'; uuid: number }
  | { kind: 'notify'; method: string; params: JsonObject }
  | { kind: 'submit'; method: CommandMethod; n: number }
  | { kind: 'store-config'; uuid: number }
  | { kind: 'wait'; ms: number };

const state = (uuid: number, stations: number, requestUuid?: string): JsonObject => ({
  uuid,
  ...(requestUuid ? { request_uuid: requestUuid } : {}),
  state: {
    unit: { load: [0.5, 0.4, 0.3], memory: { total: 1000, free: 250 + stations }, uptime: 3600 + stations, temperature: [48] },
    radios: [{ phy: 'phy0', band: ['2G'], channel: 6 }, { phy: 'phy1', channel: 36 }],
    interfaces: [{ name: 'up0v0', ssids: [{ phy: 'phy0', associations: Array.from({ length: stations }, (_, i) => ({ station: `s${i}` })) }] }],
  },
});

// Command UUIDs are made in the test, so both fleets get the same ones (a request's report
// names its command's UUID; `n` picks one of the commands submitted so far).
const uuidOf = (n: number) => `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const notifyArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ uuid: fc.integer({ min: 1, max: 3 }), stations: fc.nat(4), req: fc.option(fc.nat(6), { nil: undefined }) })
    .map(({ uuid, stations, req }) => ({ kind: 'notify' as const, method: 'state', params: state(uuid, stations, req === undefined ? undefined : uuidOf(req)) })),
  fc.record({ uuid: fc.integer({ min: 1, max: 3 }), sanity: fc.integer({ min: 0, max: 100 }), req: fc.option(fc.nat(6), { nil: undefined }) })
    .map(({ uuid, sanity, req }) => ({ kind: 'notify' as const, method: 'healthcheck', params: { uuid, sanity, data: {}, ...(req === undefined ? {} : { request_uuid: uuidOf(req) }) } })),
  fc.constantFrom<Step>(
    { kind: 'notify', method: 'log', params: { log: 'hello', severity: 6 } },
    { kind: 'notify', method: 'telemetry', params: { data: { x: 1 } } },
    { kind: 'notify', method: 'event', params: { data: { event: [1, { type: 'client.join', payload: {} }] } } },
    { kind: 'notify', method: 'crashlog', params: { uuid: 1, loglines: ['a'] } },
    { kind: 'notify', method: 'recovery', params: { uuid: 1, loglines: ['b'], firmware: 'f', reboot: true } },
    { kind: 'notify', method: 'cfgpending', params: { active: 1, uuid: 2 } },
    { kind: 'notify', method: 'alarm', params: { data: { a: 1 } } },
    { kind: 'notify', method: 'wifiscan', params: { data: [{ bssid: 'x' }] } },
  ),
);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: notifyArb },
  { weight: 2, arbitrary: fc.constantFrom<Step>({ kind: 'up' }, { kind: 'down' }, { kind: 'reply' }, { kind: 'reply-error' }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }).map((uuid): Step => ({ kind: 'connect', uuid })) },
  {
    weight: 3,
    arbitrary: fc.record({ method: fc.constantFrom<CommandMethod>('ping', 'ping', 'request', 'configure', 'reboot', 'leds'), n: fc.nat(6) })
      .map(({ method, n }): Step => ({ kind: 'submit', method, n })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Step>({ kind: 'malformed' }, { kind: 'no-serial' }, { kind: 'bad-serial' }, { kind: 'blacklist' }, { kind: 'unblacklist' }),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((uuid): Step => ({ kind: 'store-config', uuid })) },
  { weight: 1, arbitrary: fc.constantFrom(500, 30_000, 200_000).map((ms): Step => ({ kind: 'wait', ms })) },
);

/**
 * A link whose AP, with `echo` on, reports a healthcheck from inside `send`: a frame that
 * arrives while the actor is still handling its own request, which must queue behind it.
 */
class EchoLink extends FakeLink {
  echo = false;
  override send(frame: Parameters<FakeLink['send']>[0]): Promise<void> {
    const sent = super.send(frame);
    if (this.echo) this.notify('healthcheck', { uuid: 1, sanity: 50, data: { echo: frame.method } });
    return sent;
  }
}

function world(lane: boolean, echo: boolean) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const blacklisted = { on: false };
  let stored: StoredConfig | undefined;
  let n = 0;
  const fleet = new Fleet({
    clock, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, notificationLane: lane,
    isBlacklisted: () => blacklisted.on, storedConfigFor: () => stored,
  });
  const events: FleetEvent[] = [];
  const link = new EchoLink(SERIAL, () => clock.now());
  link.echo = echo;
  fleet.events$.subscribe((e) => {
    events.push(e);
    // With echo on, a ping being created makes a listener submit another command at once (it
    // waits in the actor's mailbox while the ping is sent and the AP's echo arrives) and the AP
    // log something while that listener runs.
    if (link.echo && e.type === 'command-updated' && e.payload.created && e.payload.command.command === 'ping') {
      fleet.submit(SERIAL, submission('leds', { uuid: uuidOf(9) }));
      link.notify('log', { log: 'while delivering', severity: 5 });
    }
  });
  fleet.attach(link);
  /** Notifications the fleet applied without a machine step (the snapshot object stayed). */
  let laned = 0;
  const run = async (s: Step): Promise<void> => {
    const before = fleet.find(SERIAL)?.getSnapshot();
    switch (s.kind) {
      case 'up': link.up(); break;
      case 'down': link.down(); break;
      case 'connect': link.connect({ uuid: s.uuid }); break;
      case 'notify': link.notify(s.method, s.params); break;
      case 'malformed': link.malformed(); break;
      case 'no-serial': link.frame({ jsonrpc: '2.0', method: 'state', params: { uuid: 1, state: {} } }); break;
      case 'bad-serial': link.frame({ jsonrpc: '2.0', method: 'healthcheck', params: { serial: 'zz!', uuid: 1, sanity: 1, data: {} } }); break;
      case 'reply':
      case 'reply-error': {
        const last = link.sent.at(-1);
        if (last) link.reply(last.id, s.kind === 'reply' ? { error: 0, text: 'ok' } : { error: 2, text: 'no' });
        break;
      }
      case 'blacklist': blacklisted.on = true; break;
      case 'unblacklist': blacklisted.on = false; break;
      case 'store-config': stored = { uuid: s.uuid, configuration: { uuid: s.uuid, radios: [] } } as unknown as StoredConfig; break;
      case 'submit': fleet.submit(SERIAL, submission(s.method, { uuid: uuidOf(s.n), params: s.method === 'request' ? { message: 'state' } : {} })); break;
      case 'wait': clock.increment(s.ms); break;
    }
    await flush();
    if (s.kind === 'notify' && before && fleet.find(SERIAL)?.getSnapshot() === before && events.at(-1)?.serial === SERIAL) laned++;
  };
  return { fleet, events, link, run, laned: () => laned };
}

describe('notification lane', () => {
  it('changes nothing a fleet shows: events, frames sent and end state equal the machine-only fleet', async () => {
    let lanedTotal = 0;
    await fc.assert(fc.asyncProperty(fc.boolean(), fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (echo, steps) => {
      const withLane = world(true, echo);
      const machineOnly = world(false, echo);
      for (const s of [{ kind: 'up' } as Step, { kind: 'connect', uuid: 1 } as Step, ...steps]) {
        await withLane.run(s);
        await machineOnly.run(s);
        expect(withLane.events).toEqual(machineOnly.events);
      }
      expect(withLane.link.sent).toEqual(machineOnly.link.sent);
      expect(withLane.link.closed).toEqual(machineOnly.link.closed);
      expect(withLane.fleet.details(SERIAL)).toEqual(machineOnly.fleet.details(SERIAL));
      expect(machineOnly.laned()).toBe(0);
      lanedTotal += withLane.laned();
    }), { numRuns: 150 });
    // The lane did take frames (else the comparison above proves nothing about it). How many
    // depends on the random runs (drops, blacklisting and reboots keep devices offline).
    expect(lanedTotal).toBeGreaterThan(0);
  });

  it('takes a state on an online device without a machine step, and hands its event to events$', async () => {
    const w = world(true, false);
    for (const s of [{ kind: 'up' }, { kind: 'connect', uuid: 1 }] as Step[]) await w.run(s);
    const before = w.fleet.find(SERIAL)!.getSnapshot();
    await w.run({ kind: 'notify', method: 'state', params: state(1, 2) });
    expect(w.fleet.find(SERIAL)!.getSnapshot()).toBe(before);
    expect(w.laned()).toBe(1);
    expect(w.events.at(-1)).toMatchObject({ type: 'state', serial: SERIAL });
    expect(w.fleet.details(SERIAL)?.status).toMatchObject({ associations_2G: 2 });
  });

  it.each([true, false])('leaves a frame whose hook throws to the machine (lane %s): the link does not throw, the actor fails as before', async (lane) => {
    const clock = new SimulatedClock();
    clock.set(T0);
    let armed = false;
    const fleet = new Fleet({
      clock, newId: () => 'id', notificationLane: lane,
      isBlacklisted: () => {
        if (armed) throw new Error('blacklist store down');
        return false;
      },
    });
    const link = new FakeLink(SERIAL, () => clock.now());
    fleet.attach(link);
    link.up();
    link.connect();
    await flush();
    const errors: unknown[] = [];
    fleet.find(SERIAL)!.subscribe({ error: (e) => errors.push(e) });
    armed = true;
    expect(() => link.notify('state', { uuid: 1, state: {} })).not.toThrow();
    await flush();
    expect(fleet.find(SERIAL)!.getSnapshot().status).toBe('error');
    expect(String(errors[0])).toMatch(/blacklist store down/);
  });
});
