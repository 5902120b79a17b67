import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { flush } from '../../test/helpers/fake-link.js';
import { SERIAL, T0, startDevice, submission } from '../../test/helpers/device-fixtures.js';
import { inflateParams } from '../../src/protocol/compress.js';
import { deviceMachine } from './device.machine.js';
import { HELD_OVERFLOW, MAX_HELD_BYTES, MAX_HELD_EVENTS, MAX_PROTOCOL_ERRORS, SEND_RETRY_MS } from './device.logic.js';
import type { DeviceDeps } from './device.types.js';

async function online(opts: Parameters<typeof startDevice>[0] = {}, expected: unknown = { online: 'idle' }) {
  const d = startDevice(opts);
  d.link.up();
  d.link.connect();
  await flush();
  expect(d.value()).toEqual(expected);
  return d;
}

const STATE = {
  unit: { load: [0.5, 0.4, 0.3], memory: { total: 1000, free: 250 }, uptime: 3600, temperature: [48, 52] },
  radios: [{ phy: 'platform/soc/c000000.wifi', band: ['2G'], channel: 6 }, { phy: 'platform/soc/c000000.wifi+1', channel: 36 }],
  interfaces: [{ name: 'up0v0', ssids: [
    { phy: 'platform/soc/c000000.wifi', associations: [{ station: 'a' }, { station: 'b' }] },
    { phy: 'platform/soc/c000000.wifi+1', associations: [{ station: 'c' }] },
  ] }],
};

describe('device machine: pure transitions', () => {
  const deps: DeviceDeps = {
    now: () => T0, newId: () => 'id', isBlacklisted: () => false, admit: async () => 'accept', storedConfigFor: () => undefined,
  };

  it('starts offline and moves to connecting when its link comes up', () => {
    const [s0] = initialTransition(deviceMachine, { serial: SERIAL, deps });
    expect(s0.value).toBe('offline');
    const [s1] = transition(deviceMachine, s0, { type: 'link.connected', at: T0, ipAddress: '10.1.1.1' });
    expect(s1.value).toEqual({ connecting: 'awaitingConnect' });
    expect(s1.context.status.ipAddress).toBe('10.1.1.1');
    expect(s1.context.status.connected).toBe(false);
  });

  it('counts a state sent before connect as a protocol error and ignores it', () => {
    const [s0] = initialTransition(deviceMachine, { serial: SERIAL, deps });
    const [s1] = transition(deviceMachine, s0, { type: 'link.connected', at: T0 });
    const [s2] = transition(deviceMachine, s1, {
      type: 'link.frame', at: T0, bytes: 20, frame: { kind: 'notification', method: 'state', params: { uuid: 1, state: {} } },
    });
    expect(s2.value).toEqual({ connecting: 'awaitingConnect' });
    expect(s2.context.protocolErrors).toBe(1);
    expect(s2.context.lastState).toBeUndefined();
    expect(s2.context.status.messageCount).toBe(1);
  });

  it('refuses a non-queueable command while offline and queues a configure', () => {
    const [s0] = initialTransition(deviceMachine, { serial: SERIAL, deps });
    const [s1, a1] = transition(deviceMachine, s0, { type: 'command.submit', submission: submission('reboot') });
    expect(s1.context.pending).toHaveLength(0);
    const emitted = (a1 as { type: string; params?: unknown }[]).filter((a) => a.type === 'xstate.emit');
    expect(emitted.map((a) => (a.params as { event: { type: string } }).event.type)).toContain('command-rejected');
    const [s2] = transition(deviceMachine, s1, { type: 'command.submit', submission: submission('configure') });
    expect(s2.context.pending).toHaveLength(1);
    expect(s2.context.pending[0]?.sub.command.status).toBe('pending');
  });
});

describe('device machine: connection lifecycle', () => {
  it('goes online on connect and reports status, capabilities and a connected event', async () => {
    const d = await online();
    const st = d.actor.getSnapshot().context.status;
    expect(st).toMatchObject({ connected: true, UUID: 1, firmware: 'fw-1', ipAddress: '10.0.0.2', verifiedCertificate: 'VERIFIED', compatible: 'edgecore_eap101' });
    expect(d.of('connected')).toHaveLength(1);
    expect(d.of('capabilities')[0]?.payload.capabilities).toMatchObject({ platform: 'ap' });
  });

  it('refuses and closes an unknown device the admission hook refuses', async () => {
    const d = startDevice({ admit: async () => 'refuse' });
    d.link.up();
    d.link.connect();
    await flush();
    expect(d.value()).toBe('offline');
    expect(d.link.closed).toHaveLength(1);
    expect(d.of('dropped')[0]?.payload.reason).toBe('not-provisioned');
  });

  it('keeps frames sent while admission is pending and hands them on once admitted', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    d.link.up();
    d.link.connect();
    d.link.notify('state', { uuid: 1, state: STATE });
    d.link.notify('healthcheck', { uuid: 1, sanity: 77, data: {} });
    expect(d.value()).toEqual({ connecting: 'admitting' });
    admit('accept');
    await flush();
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('protocol-error')).toHaveLength(0);
    expect(d.events.map((e) => e.type).filter((t) => ['connected', 'state', 'healthcheck'].includes(t))).toEqual(['connected', 'state', 'healthcheck']);
    expect(d.actor.getSnapshot().context.status).toMatchObject({ sanity: 77, associations_2G: 2, messageCount: 3 });
  });

  it('dates what an AP sent, and its last contact, by when its link says it was sent (a frame that reaches serve late), never later than now', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    // The frames were held (JetStream's backlog, an edge's outage buffer) and arrive an hour late.
    d.clock.set(T0 + 3_600_000);
    d.link.stampAt = T0;
    d.link.up();
    d.link.connect();
    d.link.stampAt = T0 + 1000;
    d.link.notify('healthcheck', { uuid: 1, sanity: 77, data: {} });
    admit('accept');
    await flush();
    expect(d.value()).toEqual({ online: 'idle' });
    // The connect waited for admission and the healthcheck was held behind it: both keep their time.
    expect(d.of('connected')[0]?.at).toBe(T0);
    expect(d.actor.getSnapshot().context.status.started).toBe(Math.floor(T0 / 1000));
    expect(d.of('healthcheck')[0]?.at).toBe(T0 + 1000);
    expect(d.actor.getSnapshot().context.lastHealthcheck?.recorded).toBe(Math.floor((T0 + 1000) / 1000));
    d.link.stampAt = T0 + 2000;
    d.link.notify('state', { uuid: 1, state: STATE });
    expect(d.of('state')[0]?.at).toBe(T0 + 2000);
    // Last heard from when it sent that, not an hour later when it arrived.
    const lastContact = () => d.actor.getSnapshot().context.status.lastContact;
    expect(lastContact()).toBe(Math.floor((T0 + 2000) / 1000));
    // A link clock ahead of ours (an edge's) cannot date rows into the future.
    d.link.stampAt = T0 + 7_200_000;
    d.link.notify('log', { log: 'from the future', severity: 6 });
    expect(d.of('log')[0]?.at).toBe(T0 + 3_600_000);
    expect(lastContact()).toBe(Math.floor((T0 + 3_600_000) / 1000));
    // An older frame after it (another edge's backlog) does not move the last contact back.
    d.link.stampAt = T0 + 2500;
    d.link.notify('log', { log: 'older', severity: 6 });
    expect(lastContact()).toBe(Math.floor((T0 + 3_600_000) / 1000));
    d.link.stampAt = T0 + 3000;
    d.link.down('socket closed');
    expect(d.of('disconnected')[0]?.at).toBe(T0 + 3000);
  });

  it('keeps a disconnect and the next session that come while admission is pending, and plays them in order', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    d.link.up();
    d.link.connect();
    d.link.notify('log', { log: 'first session', severity: 6 });
    d.link.down('socket closed');
    d.link.up();
    d.link.connect({ firmware: 'fw-2' });
    d.link.notify('log', { log: 'second session', severity: 6 });
    expect(d.value()).toEqual({ connecting: 'admitting' });
    admit('accept');
    await flush();
    expect(d.events.map((e) => e.type).filter((t) => ['connected', 'disconnected', 'log'].includes(t)))
      .toEqual(['connected', 'log', 'disconnected', 'connected', 'log']);
    expect(d.of('log').map((e) => e.payload.log)).toEqual(['first session', 'second session']);
    expect(d.of('protocol-error')).toHaveLength(0);
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.actor.getSnapshot().context.status.firmware).toBe('fw-2');
  });

  it('counts the frames past what it can hold while admission is pending as ignored, and plays the rest', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    d.link.up();
    d.link.connect();
    for (let i = 0; i < MAX_HELD_EVENTS + 3; i++) d.link.notify('log', { log: `log ${i}`, severity: 6 });
    d.link.down('socket closed');
    admit('accept');
    await flush();
    expect(d.of('log')).toHaveLength(MAX_HELD_EVENTS);
    expect(d.of('log').at(-1)?.payload.log).toBe(`log ${MAX_HELD_EVENTS - 1}`);
    expect(d.of('frame-ignored').map((e) => [e.payload.method, e.payload.reason, e.payload.count]))
      .toEqual([1, 2, 3].map((n) => ['log', HELD_OVERFLOW, n]));
    // Every frame is traffic; the disconnect held past the bound is played all the same.
    expect(d.actor.getSnapshot().context.status.messageCount).toBe(MAX_HELD_EVENTS + 4);
    expect(d.value()).toBe('offline');
    expect(d.of('disconnected')).toHaveLength(1);
  });

  it('holds at most MAX_HELD_BYTES of frames while admission is pending', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    d.link.up();
    d.link.connect();
    const big = 'x'.repeat(Math.floor(MAX_HELD_BYTES / 3));
    for (let i = 0; i < 3; i++) d.link.notify('log', { log: `${i}${big}`, severity: 6 });
    admit('accept');
    await flush();
    expect(d.of('log').map((e) => e.payload.log[0])).toEqual(['0', '1']);
    expect(d.of('frame-ignored').map((e) => e.payload.reason)).toEqual([HELD_OVERFLOW]);
  });

  it('drops a device whose connect never comes, on the clock', () => {
    const d = startDevice({ timeouts: { connectMs: 1000 } });
    d.link.up();
    d.clock.increment(999);
    expect(d.value()).toEqual({ connecting: 'awaitingConnect' });
    d.clock.increment(1);
    expect(d.value()).toBe('offline');
    expect(d.of('dropped')[0]?.payload.reason).toBe('no-connect');
  });

  it('drops a blacklisted device at its next frame', async () => {
    let black = false;
    const d = await online({ blacklisted: () => black });
    black = true;
    d.link.notify('state', { uuid: 1, state: STATE });
    expect(d.value()).toBe('offline');
    expect(d.of('dropped')[0]?.payload.reason).toBe('blacklisted');
    expect(d.of('state')).toHaveLength(0);
    expect(d.link.closed).toHaveLength(1);
  });

  it('drops the device after 10 protocol errors, not before', async () => {
    const d = await online();
    for (let i = 0; i < 9; i++) d.link.frame({ jsonrpc: '2.0', method: 'nonsense', params: {} });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('protocol-error').map((e) => e.payload.count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    d.link.frame({ jsonrpc: '2.0', method: 'state', params: 'not an object' });
    expect(d.value()).toBe('offline');
    expect(d.of('dropped')[0]?.payload.reason).toBe('protocol-errors');
  });

  it('names the fault of each malformed frame', async () => {
    const d = await online();
    d.link.frame({ jsonrpc: '2.0', method: 'state', params: [] });
    d.link.frame({ jsonrpc: '2.0', method: 'reboot', params: {} });
    d.link.frame({ jsonrpc: '2.0', id: 77, result: { serial: SERIAL, status: { error: 0 } } });
    d.link.malformed('unexpected token');
    d.link.notify('state', { compress_64: 'bm90IHpsaWI=' });
    expect(d.of('protocol-error').map((e) => e.payload.reason)).toEqual([
      'params of state is not an object', 'unknown method "reboot"', 'result for unknown command id 77',
      'unexpected token', 'state: compress_64 could not be inflated (zlib)',
    ]);
  });

  it('inflates compress_64 params and derives status from the state', async () => {
    const d = await online();
    d.link.notify('state', { uuid: 1, state: STATE }, true);
    const state = d.of('state')[0];
    expect(state?.payload.state).toEqual(STATE);
    const st = d.actor.getSnapshot().context.status;
    expect(st).toMatchObject({ associations_2G: 2, associations_5G: 1, associations_6G: 0, memoryUsed: 75, load: 0.4, uptime: 3600, temperature: 48 });
    expect(d.actor.getSnapshot().context.lastState).toEqual(STATE);
  });

  it('counts traffic and contact time on every frame', async () => {
    const d = await online();
    d.clock.increment(5000);
    d.link.notify('healthcheck', { uuid: 1, sanity: 90, data: {} });
    const st = d.actor.getSnapshot().context.status;
    expect(st.messageCount).toBe(2);
    expect(st.rxBytes).toBeGreaterThan(0);
    expect(st.lastContact).toBe(Math.floor((T0 + 5000) / 1000));
    expect(st.sanity).toBe(90);
  });

  it('pushes a stored configuration newer than the device uuid on connect', async () => {
    const d = await online({ stored: () => ({ uuid: 50, configuration: '{"radios":[]}' }) }, { online: 'busy' });
    const frame = d.link.last();
    expect(frame.method).toBe('configure');
    expect(frame.params).toMatchObject({ serial: SERIAL, uuid: 50, config: { uuid: 50, radios: [] } });
    expect(d.of('config-pending')[0]?.payload).toMatchObject({ source: 'gateway', deviceUuid: 1, pendingUuid: 50 });
    const created = d.of('command-updated')[0]?.payload;
    expect(created?.created).toBe(true);
    expect(created?.command.submittedBy).toBe('*system');
    // The next state with the old uuid does not push it a second time.
    d.link.reply(frame.id);
    d.link.notify('state', { uuid: 1, state: {} });
    expect(d.link.sent.filter((f) => f.method === 'configure')).toHaveLength(1);
  });

  it('does not push a stored configuration that is not newer', async () => {
    const d = await online({ stored: () => ({ uuid: 1, configuration: {} }) });
    expect(d.link.sent).toHaveLength(0);
  });
});

describe('device machine: params.serial of every notification', () => {
  const bare = (method: string, params: Record<string, unknown>) => ({ jsonrpc: '2.0', method, params } as never);

  it('drops an AP whose notification carries a serial that is not hex, without a protocol error', async () => {
    const d = await online();
    d.link.notify('state', { serial: 'zz!', uuid: 1, state: STATE });
    expect(d.value()).toBe('offline');
    expect(d.of('dropped').map((e) => e.payload)).toEqual([{ reason: 'bad-serial', detail: 'state: params.serial "zz!" is not 1-29 hex digits' }]);
    expect(d.link.closed).toEqual(['state: params.serial "zz!" is not 1-29 hex digits']);
    expect(d.of('state')).toHaveLength(0);
    expect(d.of('protocol-error')).toHaveLength(0);
    const st = d.actor.getSnapshot().context.status;
    expect(st).toMatchObject({ connected: false, messageCount: 2 });
    // Frames until the link's disconnect arrives are counted, not acted on (no second drop).
    d.link.notify('state', { serial: 'zz!', uuid: 1, state: STATE });
    expect(d.of('dropped')).toHaveLength(1);
    expect(d.actor.getSnapshot().context.status.messageCount).toBe(3);
  });

  it('checks the serial inside compress_64 params', async () => {
    const d = await online();
    d.link.notify('healthcheck', { serial: 'x'.repeat(12), uuid: 1, sanity: 50, data: {} }, true);
    expect(d.of('dropped')[0]?.payload.reason).toBe('bad-serial');
  });

  it('ignores and counts a notification without params.serial; it stays connected and it is no protocol error', async () => {
    const d = await online();
    for (let i = 0; i < MAX_PROTOCOL_ERRORS + 2; i++) d.link.frame(bare('state', { uuid: 1, state: STATE }));
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('state')).toHaveLength(0);
    expect(d.of('protocol-error')).toHaveLength(0);
    expect(d.of('dropped')).toHaveLength(0);
    const ignored = d.of('frame-ignored');
    expect(ignored.map((e) => e.payload.count)).toEqual(Array.from({ length: MAX_PROTOCOL_ERRORS + 2 }, (_, i) => i + 1));
    expect(ignored[0]?.payload).toEqual({ method: 'state', reason: 'state: params.serial is missing', count: 1 });
    const c = d.actor.getSnapshot().context;
    expect(c).toMatchObject({ ignoredFrames: MAX_PROTOCOL_ERRORS + 2, protocolErrors: 0, lastState: undefined });
    expect(c.status).toMatchObject({ connected: true, messageCount: MAX_PROTOCOL_ERRORS + 3, associations_2G: 0 });
    // The same AP's next good frame is taken as usual.
    d.link.notify('state', { uuid: 1, state: STATE });
    expect(d.of('state')).toHaveLength(1);
  });

  it('takes a valid serial that is not its own and files the frame under the connection serial', async () => {
    const d = await online();
    d.link.notify('state', { serial: ' 0123456789AB ', uuid: 1, state: STATE });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('state').map((e) => e.serial)).toEqual([SERIAL]);
    expect(d.actor.getSnapshot().context.status.associations_2G).toBe(2);
  });

  it('before connect: a frame without serial is ignored (not a protocol error), a connect without one does not open the session', () => {
    const d = startDevice({ timeouts: { connectMs: 1000 } });
    d.link.up();
    d.link.frame(bare('state', { uuid: 1, state: {} }));
    d.link.frame(bare('connect', { uuid: 1, firmware: 'fw-1', capabilities: {} }));
    expect(d.value()).toEqual({ connecting: 'awaitingConnect' });
    expect(d.of('frame-ignored').map((e) => e.payload.method)).toEqual(['state', 'connect']);
    expect(d.of('protocol-error')).toHaveLength(0);
    d.clock.increment(1000);
    expect(d.of('dropped').map((e) => e.payload.reason)).toEqual(['no-connect']);
  });

  it('drops a connect with a bad serial, before admission and while admission is pending', async () => {
    const first = startDevice();
    first.link.up();
    first.link.connect({ serial: 'not-a-serial' });
    await flush();
    expect(first.value()).toBe('offline');
    expect(first.of('dropped').map((e) => e.payload.reason)).toEqual(['bad-serial']);
    expect(first.of('connected')).toHaveLength(0);

    const d = startDevice({ admit: () => new Promise(() => undefined) });
    d.link.up();
    d.link.connect();
    expect(d.value()).toEqual({ connecting: 'admitting' });
    d.link.connect({ serial: 'zz!' });
    expect(d.value()).toBe('offline');
    expect(d.of('dropped').map((e) => e.payload.reason)).toEqual(['bad-serial']);
    expect(d.link.closed).toHaveLength(1);
  });

  it('while admission is pending, holds a frame without serial and counts it as ignored once admitted', async () => {
    let admit: (a: 'accept') => void = () => undefined;
    const d = startDevice({ admit: () => new Promise((resolve) => { admit = resolve; }) });
    d.link.up();
    d.link.connect();
    d.link.frame(bare('state', { uuid: 1, state: STATE }));
    expect(d.of('frame-ignored')).toHaveLength(0);
    admit('accept');
    await flush();
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('frame-ignored')).toHaveLength(1);
    expect(d.of('state')).toHaveLength(0);
    expect(d.of('protocol-error')).toHaveLength(0);
  });

  it('checks the blacklist before the serial', async () => {
    let black = false;
    const d = await online({ blacklisted: () => black });
    black = true;
    d.link.notify('state', { serial: 'zz!', uuid: 1, state: STATE });
    expect(d.of('dropped').map((e) => e.payload.reason)).toEqual(['blacklisted']);
  });
});

describe('device machine: commands', () => {
  it('runs a command: executed when sent, completed with the reply and its latency', async () => {
    const d = await online();
    const sub = submission('ping');
    d.actor.send({ type: 'command.submit', submission: sub });
    expect(d.value()).toEqual({ online: 'busy' });
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('executed');
    d.clock.increment(42);
    d.link.reply(d.link.last().id, { error: 0 }, { deviceUTCTime: 123 });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.lastRecord(sub.command.UUID)).toMatchObject({ status: 'completed', errorCode: 0 });
    const done = d.of('command-updated').at(-1)?.payload;
    expect(done?.latencyMs).toBe(42);
    expect(JSON.parse(done?.command.results ?? '{}')).toMatchObject({ deviceUTCTime: 123 });
  });

  it('compresses configure params for an AP that announced compress_cmd', async () => {
    const d = startDevice();
    d.link.up();
    d.link.connect({ capabilities: { compatible: 'x', compress_cmd: true } });
    await flush();
    const sub = submission('configure', { params: { uuid: 9, config: { uuid: 9, radios: [] } } });
    d.actor.send({ type: 'command.submit', submission: sub });
    const params = d.link.last().params;
    expect(Object.keys(params).sort()).toEqual(['compress_64', 'compress_sz']);
    expect(inflateParams(params)).toEqual({ ok: true, params: sub.params });
  });

  it('marks a command failed when the device answers with an error', async () => {
    const d = await online();
    const sub = submission('leds', { params: { pattern: 'blink' } });
    d.actor.send({ type: 'command.submit', submission: sub });
    d.link.reply(d.link.last().id, { error: 2, text: 'refused' });
    expect(d.lastRecord(sub.command.UUID)).toMatchObject({ status: 'failed', errorCode: 2, errorText: 'refused' });
  });

  it('times a command out on the clock and ignores its late reply', async () => {
    const d = await online();
    const sub = submission('wifiscan', { timeoutMs: 10_000 });
    d.actor.send({ type: 'command.submit', submission: sub });
    const id = d.link.last().id;
    d.clock.increment(10_000);
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('timedout');
    expect(d.value()).toEqual({ online: 'idle' });
    d.link.reply(id);
    expect(d.of('protocol-error')).toHaveLength(0);
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('timedout');
  });

  it('answers busy for a second interactive command and queues a configure behind the running one', async () => {
    const d = await online();
    const first = submission('wifiscan');
    d.actor.send({ type: 'command.submit', submission: first });
    const second = submission('leds');
    d.actor.send({ type: 'command.submit', submission: second });
    expect(d.of('command-rejected')[0]?.payload).toMatchObject({ code: 'DEVICE_BUSY' });
    const cfg = submission('configure', { params: { uuid: 9, config: {} } });
    d.actor.send({ type: 'command.submit', submission: cfg });
    expect(d.lastRecord(cfg.command.UUID)?.status).toBe('pending');
    d.link.reply(d.link.last().id, { error: 0, scan: [{ bssid: 'x' }] });
    expect(d.of('wifiscan-result')[0]?.payload).toMatchObject({ source: 'command', entries: [{ bssid: 'x' }] });
    expect(d.link.last().method).toBe('configure');
    expect(d.lastRecord(cfg.command.UUID)?.status).toBe('executed');
  });

  it('queues configure while offline and sends it once the device connects', async () => {
    const d = startDevice();
    const cfg = submission('configure', { params: { uuid: 9, config: {} } });
    d.actor.send({ type: 'command.submit', submission: cfg });
    const reboot = submission('reboot');
    d.actor.send({ type: 'command.submit', submission: reboot });
    expect(d.of('command-rejected').map((e) => e.payload.code)).toEqual(['DEVICE_OFFLINE']);
    expect(d.of('command-updated')[0]?.payload).toMatchObject({ created: true, queued: true });
    d.link.up();
    d.link.connect();
    await flush();
    expect(d.link.last().method).toBe('configure');
    d.link.reply(d.link.last().id, { error: 1, text: 'substituted', rejected: [] });
    expect(d.lastRecord(cfg.command.UUID)?.status).toBe('completed');
  });

  it('expires a queued command the device never comes online for', () => {
    const d = startDevice({ timeouts: { pendingTtlMs: 60_000 } });
    const cfg = submission('factory', { params: { keep_redirector: 1 } });
    d.actor.send({ type: 'command.submit', submission: cfg });
    d.clock.increment(60_000);
    expect(d.lastRecord(cfg.command.UUID)).toMatchObject({ status: 'expired', executed: 0 });
    expect(d.actor.getSnapshot().context.pending).toHaveLength(0);
  });

  it('holds a command with a future `when` and runs it when due', async () => {
    const d = await online();
    const sub = submission('leds', { runAt: T0 + 30_000 });
    d.actor.send({ type: 'command.submit', submission: sub });
    expect(d.link.sent).toHaveLength(0);
    expect(d.of('command-updated')[0]?.payload.queued).toBe(true);
    d.clock.increment(30_000);
    expect(d.link.last().method).toBe('leds');
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('executed');
  });

  it('fails the running command when the device disconnects', async () => {
    const d = await online();
    const sub = submission('trace');
    d.actor.send({ type: 'command.submit', submission: sub });
    d.link.down();
    expect(d.value()).toBe('offline');
    expect(d.lastRecord(sub.command.UUID)).toMatchObject({ status: 'failed', errorText: 'The device disconnected before replying.' });
  });

  it('fails a command the link cannot send', async () => {
    const d = await online();
    d.link.failSends = 'socket gone';
    const sub = submission('ping');
    d.actor.send({ type: 'command.submit', submission: sub });
    await flush();
    expect(d.lastRecord(sub.command.UUID)).toMatchObject({ status: 'failed', errorText: 'The command could not be sent: socket gone' });
    expect(d.value()).toEqual({ online: 'idle' });
  });

  it('keeps a queueable command pending when the link cannot send it, and sends it again after the retry gap', async () => {
    const d = await online();
    d.link.failSends = 'socket gone';
    const sub = submission('configure', { params: { uuid: 2, config: { uuid: 2 } } });
    d.actor.send({ type: 'command.submit', submission: sub });
    await flush();
    expect(d.lastRecord(sub.command.UUID)).toMatchObject({ status: 'pending', executed: 0 });
    expect(d.actor.getSnapshot().context.pending.map((p) => p.sub.command.UUID)).toEqual([sub.command.UUID]);
    d.link.failSends = undefined;
    const sentBefore = d.link.sent.length;
    d.clock.increment(SEND_RETRY_MS);
    await flush();
    expect(d.link.sent.length).toBe(sentBefore + 1);
    d.link.reply(d.link.last().id);
    await flush();
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('completed');
  });

  it('completes a one-way command (telemetry) at once and tolerates its ack', async () => {
    const d = await online();
    const sub = submission('telemetry', { awaitResult: false, params: { interval: 5, types: ['state'] } });
    d.actor.send({ type: 'command.submit', submission: sub });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('completed');
    d.link.reply(d.link.last().id);
    expect(d.of('protocol-error')).toHaveLength(0);
  });

  it('fills a request command results from the state carrying its uuid', async () => {
    const d = await online();
    const sub = submission('request', { params: { message: 'state' } });
    d.actor.send({ type: 'command.submit', submission: sub });
    d.link.reply(d.link.last().id);
    d.link.notify('state', { uuid: 1, state: { unit: {} }, request_uuid: sub.command.UUID });
    expect(JSON.parse(d.lastRecord(sub.command.UUID)?.results ?? '{}')).toMatchObject({ request_uuid: sub.command.UUID, state: { unit: {} } });
  });

  it('refuses when the per-device queue is full', () => {
    const d = startDevice({ maxPending: 2 });
    for (let i = 0; i < 3; i++) d.actor.send({ type: 'command.submit', submission: submission('configure') });
    expect(d.of('command-rejected').map((e) => e.payload.code)).toEqual(['DEVICE_BUSY']);
  });

  it('expires everything it holds on shutdown', async () => {
    const d = await online();
    const run = submission('ping');
    d.actor.send({ type: 'command.submit', submission: run });
    const queued = submission('configure');
    d.actor.send({ type: 'command.submit', submission: queued });
    d.actor.send({ type: 'device.shutdown', reason: 'stopping' });
    expect(d.lastRecord(run.command.UUID)?.status).toBe('failed');
    expect(d.lastRecord(queued.command.UUID)?.status).toBe('expired');
  });
});

describe('device machine: maintenance states', () => {
  it('reboots: acked -> rebooting, link drops, reconnects -> online', async () => {
    const d = await online();
    const sub = submission('reboot', { restart: 'reboot' });
    d.actor.send({ type: 'command.submit', submission: sub });
    d.link.reply(d.link.last().id);
    expect(d.value()).toBe('rebooting');
    expect(d.lastRecord(sub.command.UUID)?.status).toBe('completed');
    d.actor.send({ type: 'command.submit', submission: submission('ping') });
    expect(d.of('command-rejected')[0]?.payload.code).toBe('DEVICE_BUSY');
    d.link.down();
    expect(d.value()).toBe('rebooting');
    expect(d.actor.getSnapshot().context.status.connected).toBe(false);
    d.clock.increment(20_000);
    d.link.up();
    d.link.connect({ reason: 'reboot' });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('maintenance').map((e) => e.payload.phase)).toEqual(['started', 'done']);
  });

  it('upgrades: records the firmware change when the AP comes back', async () => {
    const d = await online();
    d.actor.send({ type: 'command.submit', submission: submission('upgrade', { restart: 'upgrade', params: { uri: 'http://x/fw.bin' } }) });
    d.link.reply(d.link.last().id);
    expect(d.value()).toBe('upgrading');
    d.link.down();
    d.link.up();
    d.link.connect({ firmware: 'fw-2' });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('firmware-changed')[0]?.payload).toEqual({ oldFirmware: 'fw-1', newFirmware: 'fw-2' });
    expect(d.actor.getSnapshot().context.status.firmware).toBe('fw-2');
  });

  it('gives up waiting for a factory-reset AP on the clock', async () => {
    const d = await online({ timeouts: { factoryMs: 60_000 } });
    d.actor.send({ type: 'command.submit', submission: submission('factory', { restart: 'factory' }) });
    d.link.reply(d.link.last().id);
    expect(d.value()).toBe('factoryResetting');
    d.link.down();
    d.clock.increment(60_000);
    expect(d.value()).toBe('offline');
    expect(d.of('maintenance').map((e) => e.payload.phase)).toEqual(['started', 'timedout']);
  });

  it('reboots an AP that reports recovery with reboot: true', async () => {
    const d = await online();
    d.link.notify('recovery', { firmware: 'fw-1', uuid: 1, reboot: true, loglines: ['panic'] });
    expect(d.of('crashlog')[0]?.payload).toMatchObject({ recovery: true, loglines: ['panic'] });
    expect(d.link.last()).toMatchObject({ method: 'reboot', params: { serial: SERIAL, when: 0 } });
    expect(d.of('command-updated')[0]?.payload.command.submittedBy).toBe('*system');
  });

  it('ends the maintenance state when the AP keeps its session and its uptime after acking a reboot', async () => {
    const d = await online();
    d.link.notify('state', { uuid: 1, state: STATE });
    d.actor.send({ type: 'command.submit', submission: submission('reboot', { restart: 'reboot' }) });
    d.link.reply(d.link.last().id);
    expect(d.value()).toBe('rebooting');
    // A real AP restarts ~10 s after its ack: a state before the grace is that AP's last one.
    d.clock.increment(10_000);
    d.link.notify('state', { uuid: 1, state: { ...STATE, unit: { ...STATE.unit, uptime: 3610 } } });
    expect(d.value()).toBe('rebooting');
    d.clock.increment(60_000);
    d.link.notify('state', { uuid: 1, state: { ...STATE, unit: { ...STATE.unit, uptime: 3670 } } });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('maintenance').map((e) => e.payload.phase)).toEqual(['started', 'not-restarted']);
    expect(d.of('state')).toHaveLength(3);
    // Commands run again at once, not after the 5 minutes of the reboot timeout.
    const ping = submission('ping');
    d.actor.send({ type: 'command.submit', submission: ping });
    expect(d.link.last()).toMatchObject({ method: 'ping' });
  });

  it('ends an upgrade wait the same way when a state shows the same uptime', async () => {
    const d = await online();
    d.link.notify('state', { uuid: 1, state: STATE });
    d.actor.send({ type: 'command.submit', submission: submission('upgrade', { restart: 'upgrade', params: { uri: 'http://x/fw.bin' } }) });
    d.link.reply(d.link.last().id);
    expect(d.value()).toBe('upgrading');
    d.clock.increment(120_000);
    d.link.notify('state', { uuid: 1, state: STATE });
    expect(d.value()).toEqual({ online: 'idle' });
    expect(d.of('maintenance').map((e) => e.payload.phase)).toEqual(['started', 'not-restarted']);
  });

  it('stays online when a failed reboot is answered with an error', async () => {
    const d = await online();
    d.actor.send({ type: 'command.submit', submission: submission('reboot', { restart: 'reboot' }) });
    d.link.reply(d.link.last().id, { error: 1, text: 'busy' });
    expect(d.value()).toEqual({ online: 'idle' });
  });
});
