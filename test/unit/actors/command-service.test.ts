import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { CommandService, type CommandServiceOptions } from '../../../actors/command-service.js';
import { Fleet, type FleetOptions } from '../../../actors/fleet.js';
import { AirtwinError } from '../../../src/errors.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';

const SERIAL = '112233445566';
const T0 = 1_700_000_000_000;

function setup(fleetOpts: Partial<FleetOptions> = {}, svcOpts: Partial<CommandServiceOptions> = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const fleet = new Fleet({ clock, newId, ...fleetOpts });
  const store = new MemoryCommandStore();
  const svc = new CommandService({ fleet, store, clock, newId, ...svcOpts });
  const link = new FakeLink(SERIAL, () => clock.now());
  return { clock, fleet, store, svc, link };
}

async function connected(fleetOpts: Partial<FleetOptions> = {}, svcOpts: Partial<CommandServiceOptions> = {}) {
  const s = setup(fleetOpts, svcOpts);
  s.fleet.attach(s.link);
  s.link.up();
  s.link.connect({ uuid: 7 });
  await flush();
  return s;
}

async function rejection(p: Promise<unknown>): Promise<AirtwinError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AirtwinError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('CommandService: ping', () => {
  it('answers a PingResult with the measured latency, the device time and its config uuid', async () => {
    const { svc, link, clock, store } = await connected();
    const p = svc.ping(SERIAL, { submittedBy: 'alice' });
    await flush();
    const frame = link.last();
    expect(frame).toMatchObject({ method: 'ping', params: { serial: SERIAL } });
    clock.increment(25);
    link.reply(frame.id, { error: 0 }, { deviceUTCTime: 1_699_999_999_000, uuid: 7 });
    const { result, command } = await p;
    expect(result).toEqual({ serialNumber: SERIAL, currentUTCTime: T0 + 25, deviceUTCTime: 1_699_999_999_000, latency: 25, configurationUUID: 7 });
    expect(command.submittedBy).toBe('alice');
    expect(store.get(command.UUID)?.status).toBe('completed');
    expect(store.log.map((l) => [l.op, l.command.status])).toEqual([['insert', 'pending'], ['update', 'executed'], ['update', 'completed']]);
  });

  it('answers the PingResult when the AP answers with an error: it is alive; the record says failed', async () => {
    const { svc, link, clock, store } = await connected();
    const p = svc.ping(SERIAL);
    await flush();
    clock.increment(12);
    link.reply(link.last().id, { error: 2, text: 'busy' });
    const { result, command } = await p;
    expect(result.latency).toBe(12);
    expect(command).toMatchObject({ status: 'failed', errorCode: 2, errorText: 'busy' });
    expect(store.get(command.UUID)?.status).toBe('failed');
  });

  it('is a 504 when the device never answers', async () => {
    const { svc, clock } = await connected();
    const p = rejection(svc.ping(SERIAL));
    await flush();
    clock.increment(60_000);
    const err = await p;
    expect(err.code).toBe('COMMAND_TIMEOUT');
  });
});

describe('CommandService: lifecycle', () => {
  it('refuses a reboot to an offline device with DEVICE_OFFLINE (409) and stores nothing', async () => {
    const { svc, store } = setup();
    const err = await rejection(svc.reboot(SERIAL));
    expect([err.code, err.status, err.details]).toEqual(['DEVICE_OFFLINE', 409, 'reboot']);
    expect(store.rows.size).toBe(0);
  });

  it('queues a configure for an offline device, answers pending, and completes it on connect', async () => {
    const { svc, store, link, fleet } = setup();
    const cmd = await svc.configure(SERIAL, { configuration: '{"radios":[]}', uuid: 1234 });
    expect(cmd).toMatchObject({ status: 'pending', command: 'configure', executed: 0 });
    expect(JSON.parse(cmd.details)).toMatchObject({ uuid: 1234, config: { uuid: 1234, radios: [] } });
    expect(store.get(cmd.UUID)?.status).toBe('pending');
    fleet.attach(link);
    link.up();
    link.connect();
    await flush();
    link.reply(link.last().id);
    await svc.flush();
    expect(store.get(cmd.UUID)?.status).toBe('completed');
  });

  it('fails a strict configure the AP applied with substitutions (error 1), also when it waited in the queue', async () => {
    const { svc, store, link, fleet } = setup();
    const queued = await svc.configure(SERIAL, { configuration: '{"radios":[]}', uuid: 1234 }, {}, { strict: true });
    expect(queued.status).toBe('pending');
    // The flag is the record's (details), never the AP's (params).
    expect(JSON.parse(queued.details)).toMatchObject({ uuid: 1234, strict: true });
    fleet.attach(link);
    link.up();
    link.connect();
    await flush();
    expect(link.last()).toMatchObject({ method: 'configure', params: { uuid: 1234 } });
    expect(link.last().params).not.toHaveProperty('strict');
    link.reply(link.last().id, { error: 1, text: 'Applied with substitutions', rejected: [] });
    await svc.flush();
    expect(store.get(queued.UUID)).toMatchObject({ status: 'failed', errorCode: 1, errorText: 'Applied with substitutions' });

    // The same answer to a configure without strict completes.
    const p = svc.configure(SERIAL, { configuration: '{"radios":[]}', uuid: 1235 });
    await flush();
    link.reply(link.last().id, { error: 1, text: 'Applied with substitutions', rejected: [] });
    const lenient = await p;
    expect(lenient).toMatchObject({ status: 'completed', errorCode: 1 });
    expect(JSON.parse(lenient.details)).not.toHaveProperty('strict');
  });

  it('answers DEVICE_BUSY while another command runs', async () => {
    const { svc } = await connected();
    void svc.wifiscan(SERIAL, {});
    await flush();
    const err = await rejection(svc.leds(SERIAL, { pattern: 'on' }));
    expect([err.code, err.status]).toEqual(['DEVICE_BUSY', 409]);
  });

  it('ends a silent command as timedout on the clock', async () => {
    const { svc, clock, store } = await connected();
    const p = svc.wifiscan(SERIAL, { verbose: true });
    await flush();
    clock.increment(120_000);
    const cmd = await p;
    expect(cmd.status).toBe('timedout');
    expect(store.get(cmd.UUID)?.status).toBe('timedout');
  });

  it('answers with the current record after its bounded wait', async () => {
    const { svc, clock } = await connected({}, { maxWaitMs: 5000 });
    const p = svc.wifiscan(SERIAL, {});
    await flush();
    clock.increment(5000);
    expect((await p).status).toBe('executed');
  });

  it('answers a scheduled command at once with its pending record', async () => {
    const { svc } = await connected();
    const cmd = await svc.reboot(SERIAL, { when: T0 / 1000 + 600 });
    expect(cmd).toMatchObject({ status: 'pending', when: T0 / 1000 + 600 });
  });

  it('is 404 for a device the hook does not know', async () => {
    const { svc } = setup({}, { deviceExists: () => false });
    const err = await rejection(svc.reboot(SERIAL));
    expect([err.code, err.status]).toEqual(['NOT_FOUND', 404]);
  });

  it('stores the state a request asked for as the command results', async () => {
    const { svc, link, store } = await connected();
    const p = svc.request(SERIAL, { message: 'state' });
    await flush();
    const frame = link.last();
    expect(frame.params).toMatchObject({ message: 'state' });
    link.reply(frame.id);
    const cmd = await p;
    link.notify('state', { uuid: 7, state: { unit: { uptime: 5 } }, request_uuid: cmd.UUID });
    await svc.flush();
    expect(JSON.parse(store.get(cmd.UUID)?.results ?? '{}')).toMatchObject({ state: { unit: { uptime: 5 } } });
  });

  it('persists the configure that config reconciliation creates', async () => {
    const { svc, store } = await connected({ storedConfigFor: () => ({ uuid: 99, configuration: {} }) });
    await svc.flush();
    const rows = [...store.rows.values()];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ command: 'configure', submittedBy: '*system', status: 'executed' });
  });

  it('completes telemetry without waiting for the ack', async () => {
    const { svc, link } = await connected();
    const cmd = await svc.telemetry(SERIAL, { interval: 5, lifetime: 60 });
    expect(cmd.status).toBe('completed');
    expect(link.last()).toMatchObject({ method: 'telemetry', params: { interval: 5, types: ['wifi-frames', 'dhcp-snooping', 'state'] } });
    expect(JSON.parse(cmd.details)).toMatchObject({ lifetime: 60, messagebus: false });
  });

  it('opens an rtty session with the configured server', async () => {
    const { svc, link } = await connected({}, { rtty: { server: 'rtty.example', port: 5912, viewport: 5913, timeout: 60 } });
    const p = svc.rtty(SERIAL, { user: 'bob' });
    await flush();
    expect(link.last()).toMatchObject({ method: 'rtty', params: { server: 'rtty.example', port: 5912, user: 'bob' } });
    link.reply(link.last().id);
    const { session, command } = await p;
    expect(session).toMatchObject({ serialNumber: SERIAL, server: 'rtty.example', port: 5912, viewport: 5913, commandUUID: command.UUID });
    expect(session.token).toMatch(/^[0-9a-f]{32}$/);
  });

  it('uses a configured rtty token for every session, and never echoes the password the AP gets', async () => {
    const { svc, link } = await connected({}, { rtty: { server: 'rtty.example', port: 5912, viewport: 5913, timeout: 60, token: 'fixed-token' } });
    const p = svc.rtty(SERIAL, { password: 'device-secret' }, { submittedBy: 'carol' });
    await flush();
    expect(link.last()).toMatchObject({ method: 'rtty', params: { token: 'fixed-token', password: 'device-secret', user: 'carol' } });
    link.reply(link.last().id);
    const { session, command } = await p;
    expect(session).toMatchObject({ token: 'fixed-token', password: '', connectionId: link.last().params.id });
    expect(command).toMatchObject({ status: 'completed', submittedBy: 'carol' });
    expect(command.details).not.toContain('device-secret');
  });

  it('is RTTY_DISABLED (503) without an rtty server (serve --no-rtty), and sends the AP nothing', async () => {
    const { svc, link } = await connected();
    const e = await rejection(svc.rtty(SERIAL));
    expect([e.code, e.status]).toEqual(['RTTY_DISABLED', 503]);
    expect(link.sent).toEqual([]);
  });
});

describe('CommandService: parameters', () => {
  const cases: [string, (s: CommandService) => Promise<unknown>, string][] = [
    ['leds pattern', (s) => s.leds(SERIAL, { pattern: 'disco' }), 'pattern'],
    ['script both script and scriptId', (s) => s.script(SERIAL, { type: 'shell', script: 'ZWNobw==', scriptId: 'x' }), 'scriptId'],
    ['script type', (s) => s.script(SERIAL, { type: 'python', script: 'eA==' }), 'type'],
    ['telemetry interval above 120', (s) => s.telemetry(SERIAL, { interval: 121 }), 'interval'],
    ['telemetry uuid that is not a UUID while stopping', (s) => s.telemetry(SERIAL, { interval: 0, uuid: 'not-a-uuid' }), 'uuid'],
    ['wifiscan selector shape', (s) => s.wifiscan(SERIAL, { selector: 'all' }), 'selector'],
    ['wifiscan bands', (s) => s.wifiscan(SERIAL, { selector: { bands: ['7'] } }), 'selector.bands'],
    ['wifiscan ies', (s) => s.wifiscan(SERIAL, { ies: [300] }), 'ies'],
    ['request message', (s) => s.request(SERIAL, { message: 'State' }), 'message'],
    ['eventqueue types', (s) => s.eventqueue(SERIAL, {}), 'types'],
    ['upgrade uri', (s) => s.upgrade(SERIAL, { uri: 'ftp://x' }), 'uri'],
    ['configure configuration', (s) => s.configure(SERIAL, { configuration: '[1]' }), 'configuration'],
    ['trace network or interface', (s) => s.trace(SERIAL, { duration: 5 }), 'network'],
    ['generic command name', (s) => s.command(SERIAL, { command: 'selfdestruct' }), 'command'],
    ['when negative', (s) => s.reboot(SERIAL, { when: -1 }), 'when'],
  ];
  for (const [name, call, field] of cases) {
    it(`answers 400 naming ${field} for a bad ${name}`, async () => {
      const { svc, store } = await connected();
      const err = await rejection(call(svc));
      expect(err.status).toBe(400);
      expect(err.details).toBe(field);
      expect(store.rows.size).toBe(0);
    });
  }

  it('sends script defaults: timeout 30, when 0', async () => {
    const { svc, link } = await connected();
    void svc.script(SERIAL, { type: 'uci', script: 'c2hvdw==' });
    await flush();
    expect(link.last().params).toEqual({ serial: SERIAL, type: 'uci', script: 'c2hvdw==', timeout: 30, when: 0 });
  });

  it('forwards every wifiscan selector field', async () => {
    const { svc, link } = await connected();
    void svc.wifiscan(SERIAL, { verbose: true, activeScan: true, selector: { bands: ['2', '5G'], channels: [1, 36] }, ies: [0, 48] });
    await flush();
    expect(link.last().params).toEqual({
      serial: SERIAL, override_dfs: true, active: true, verbose: true, bands: ['2G', '5G'], channels: [1, 36], ies: [0, 48],
    });
  });

  it('sends leds duration only for blink', async () => {
    const { svc, link } = await connected();
    void svc.leds(SERIAL, { pattern: 'blink' });
    await flush();
    expect(link.last().params).toEqual({ serial: SERIAL, pattern: 'blink', when: 0, duration: 30 });
  });
});
