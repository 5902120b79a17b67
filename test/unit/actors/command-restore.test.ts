import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { CommandService } from '../../../actors/command-service.js';
import { blankCommand } from '../../../actors/device/command-lifecycle.js';
import { DEFAULT_TIMEOUTS, isFinalStatus, type Command } from '../../../actors/device/device.types.js';
import { Fleet } from '../../../actors/fleet.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';

const SERIAL = '112233445566';
const OTHER = '112233445577';
const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

/**
 * One run of the service over a store that outlives it: a restart is a new fleet and service
 * (a new process) on the same store, with the clock where the old one stopped or later.
 */
function run(store: MemoryCommandStore, at: number, known = [SERIAL, OTHER]) {
  const clock = new SimulatedClock();
  clock.set(at);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(at % 1e6).padStart(6, '0')}${String(++n).padStart(6, '0')}`;
  const fleet = new Fleet({ clock, newId });
  const svc = new CommandService({ fleet, store, clock, newId, deviceExists: (s) => known.includes(s) });
  const open = () => [...store.rows.values()].filter((c) => c.status === 'pending' || c.status === 'executed');
  const restore = () => svc.restore(open());
  return { clock, fleet, svc, open, restore };
}

async function online(r: ReturnType<typeof run>, serial = SERIAL): Promise<FakeLink> {
  const link = new FakeLink(serial, () => r.clock.now());
  r.fleet.attach(link);
  link.up();
  link.connect({ uuid: 7 });
  await flush();
  return link;
}

/** A record as a process that was killed left it in the store. */
function stored(fields: Partial<Command> & Pick<Command, 'UUID' | 'command' | 'status'>): Command {
  const c = blankCommand({ serialNumber: SERIAL, submitted: T0 / 1000, submittedBy: 'alice', ...fields });
  return { ...c, details: fields.details ?? JSON.stringify({ serial: SERIAL, when: c.when }) };
}

describe('CommandService.restore: a clean stop and a start', () => {
  it('keeps queued and scheduled commands pending across a clean stop, and runs them after the start', async () => {
    const store = new MemoryCommandStore();
    const first = run(store, T0);
    const configure = await first.svc.configure(SERIAL, { configuration: { radios: [] }, uuid: 55 });
    const leds = await first.svc.leds(SERIAL, { pattern: 'on', when: T0 / 1000 + 3600 });
    expect([configure.status, leds.status]).toEqual(['pending', 'pending']);
    // A command on the wire when the service stops ends: its reply would reach nobody.
    const link = await online(first, OTHER);
    const scan = first.svc.wifiscan(OTHER, {});
    await flush();
    expect(link.last().method).toBe('wifiscan');
    first.fleet.stopAll('The service is shutting down.', { keepQueued: true });
    await scan;
    await first.svc.flush();
    expect(store.get(configure.UUID)).toMatchObject({ status: 'pending', executed: 0 });
    expect(store.get(leds.UUID)).toMatchObject({ status: 'pending', when: T0 / 1000 + 3600 });
    expect((await scan).status).toBe('failed');

    const second = run(store, T0 + 60_000);
    expect(await second.restore()).toEqual({ reopened: 2, ended: 0 });
    const ap = await online(second);
    expect(ap.last()).toMatchObject({ method: 'configure', params: { uuid: 55 } });
    ap.reply(ap.last().id);
    await flush();
    await second.svc.flush();
    expect(store.get(configure.UUID)?.status).toBe('completed');
    // The scheduled one waits for its `when`, then runs.
    expect(store.get(leds.UUID)?.status).toBe('pending');
    second.clock.increment(HOUR);
    await flush();
    expect(ap.last()).toMatchObject({ method: 'leds', params: { pattern: 'on' } });
  });

  it('expires every queued command on a stop without keepQueued (a deleted device, a replay that ended)', async () => {
    const store = new MemoryCommandStore();
    const first = run(store, T0);
    const configure = await first.svc.configure(SERIAL, { configuration: { radios: [] } });
    first.fleet.stopAll('The replay ended.');
    await first.svc.flush();
    expect(store.get(configure.UUID)).toMatchObject({ status: 'expired', errorText: 'The replay ended.' });
  });
});

describe('CommandService.restore: after a crash (records as a killed process left them)', () => {
  it('ends what cannot go on, each saying why, and reopens the rest', async () => {
    const store = new MemoryCommandStore();
    const records = [
      stored({ UUID: 'wire', command: 'wifiscan', status: 'executed', executed: T0 / 1000 }),
      stored({ UUID: 'ping', command: 'ping', status: 'pending' }),
      stored({ UUID: 'old', command: 'configure', status: 'pending', submitted: (T0 - 5 * HOUR) / 1000, details: JSON.stringify({ serial: SERIAL, uuid: 9, when: 0, config: { uuid: 9 } }) }),
      stored({ UUID: 'late', command: 'reboot', status: 'pending', when: (T0 - 5 * HOUR) / 1000, submitted: (T0 - 6 * HOUR) / 1000 }),
      stored({ UUID: 'gone', command: 'configure', status: 'pending', serialNumber: 'aaaaaaaaaaaa', details: JSON.stringify({ serial: 'aaaaaaaaaaaa', uuid: 9, when: 0, config: {} }) }),
      stored({ UUID: 'junk', command: 'configure', status: 'pending', details: 'not json' }),
      stored({ UUID: 'fresh', command: 'configure', status: 'pending', submitted: (T0 - HOUR) / 1000, details: JSON.stringify({ serial: SERIAL, uuid: 9, when: 0, config: { uuid: 9 } }) }),
      stored({ UUID: 'soon', command: 'reboot', status: 'pending', when: (T0 + 2 * HOUR) / 1000 }),
    ];
    for (const c of records) await store.insert(c);
    const r = run(store, T0);
    expect(await r.restore()).toEqual({ reopened: 4, ended: 4 });
    await flush();
    await r.svc.flush();
    const seen = Object.fromEntries(records.map((c) => [c.UUID, [store.get(c.UUID)!.status, store.get(c.UUID)!.errorText]]));
    expect(seen).toEqual({
      wire: ['failed', 'The service restarted before the device replied.'],
      ping: ['expired', 'The service restarted before the command was sent.'],
      old: ['expired', 'The device did not run the command within 240 min of its time, while the service was stopped.'],
      late: ['expired', 'The device did not run the command within 240 min of its time, while the service was stopped.'],
      gone: ['expired', 'The device no longer exists.'],
      junk: ['expired', 'The service restarted, and the stored command could not be read back to send it.'],
      fresh: ['pending', ''],
      soon: ['pending', ''],
    });
  });

  it('leaves no command pending without a timer: with the AP never back, each reopened one expires on time', async () => {
    const store = new MemoryCommandStore();
    await store.insert(stored({ UUID: 'fresh', command: 'configure', status: 'pending', submitted: (T0 - HOUR) / 1000, details: JSON.stringify({ serial: SERIAL, uuid: 9, when: 0, config: {} }) }));
    // Far ahead: past what a 32-bit timer holds (~24.8 days), so the due timer must not fire at once.
    const far = T0 / 1000 + 40 * 24 * 3600;
    await store.insert(stored({ UUID: 'far', command: 'factory', status: 'pending', when: far, details: JSON.stringify({ serial: SERIAL, keep_redirector: 1, when: far }) }));
    const r = run(store, T0);
    await r.restore();
    r.clock.increment(DEFAULT_TIMEOUTS.pendingTtlMs - HOUR - 1);
    await flush();
    expect(store.get('fresh')?.status).toBe('pending');
    r.clock.increment(1);
    await flush();
    await r.svc.flush();
    expect(store.get('fresh')).toMatchObject({ status: 'expired', executed: 0 });
    expect(store.get('far')?.status).toBe('pending');
    r.clock.increment(far * 1000 - r.clock.now() + DEFAULT_TIMEOUTS.pendingTtlMs);
    await flush();
    await r.svc.flush();
    expect([...store.rows.values()].every((c) => isFinalStatus(c.status))).toBe(true);
  });

  it('reopens a command once however often it is restored, and keeps a strict configure strict', async () => {
    const store = new MemoryCommandStore();
    const details = JSON.stringify({ serial: SERIAL, uuid: 9, when: 0, config: { uuid: 9 }, strict: true });
    await store.insert(stored({ UUID: 'strict', command: 'configure', status: 'pending', details }));
    const r = run(store, T0);
    await r.restore();
    await r.restore();
    const ap = await online(r);
    expect(ap.sent.filter((f) => 'method' in f && f.method === 'configure')).toHaveLength(1);
    // `strict` is the record's, not the AP's; the AP's error 1 then fails the command.
    expect(ap.last().params).not.toHaveProperty('strict');
    ap.reply(ap.last().id, { error: 1, text: 'Applied with substitutions' });
    await flush();
    await r.svc.flush();
    expect(store.get('strict')?.status).toBe('failed');
  });
});
