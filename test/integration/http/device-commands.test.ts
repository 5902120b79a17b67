import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Command } from '../../../src/store/records.js';
import { ADMIN_TOKEN, expectEnvelope, startTestServer, type Answer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * Every device command POST end to end: HTTP -> command service -> device actor -> SimLink ->
 * simulated AP of the `lab` venue, and back into the command history (DuckDB). The venue runs
 * 20x faster than wall time, so AP delays (a 6 s scan, a 45-90 s boot) take a few hundred ms to
 * a few seconds here; every wait is a bounded poll.
 */

const A1 = 'a0b1c2000001';
const A2 = 'a0b1c2000002';
const A3 = 'a0b1c2000003';
/** A device record with no AP behind it: always offline. */
const GHOST = 'aabbccdd0201';
const FINAL = ['completed', 'failed', 'timedout', 'expired'];

let s: TestServer;

const status = async (serial: string) => (await s.gw('GET', `/device/${serial}/status`)).body as { connected: boolean; firmware: string; UUID: number; started: number };
const online = (serial: string) => until(`${serial} online`, () => status(serial), (st) => st.connected === true);
const offline = (serial: string) => until(`${serial} offline`, () => status(serial), (st) => st.connected === false);
const record = async (uuid: string) => (await s.gw<Command>('GET', `/command/${uuid}`)).body;
const final = (uuid: string) => until(`command ${uuid} final`, () => record(uuid), (c) => FINAL.includes(c.status));
const results = (c: Command) => JSON.parse(c.results) as { status?: Record<string, unknown> } & Record<string, unknown>;
const post = (serial: string, command: string, body?: unknown) => s.gw('POST', `/device/${serial}/${command}`, body === undefined ? {} : { body });

/** A 200 with a Command record of this command and device, as stored. */
async function expectRecord(a: Answer, command: string, serial: string): Promise<Command> {
  expect(a.status, a.text).toBe(200);
  const c = a.body as Command;
  expect(c).toMatchObject({ command, serialNumber: serial, submittedBy: expect.any(String) });
  expect(typeof c.details).toBe('string');
  expect(typeof c.results).toBe('string');
  // A request's results (and completed time) may already be replaced by the report it asked for.
  const stable = ({ results: _r, completed: _c, ...rest }: Command) => (command === 'request' ? rest : { ...rest, results: _r, completed: _c });
  expect(stable(await record(c.UUID))).toEqual(stable(c));
  return c;
}

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20 });
  await Promise.all([A1, A2, A3].map(online));
  expect((await s.gw('POST', `/device/${GHOST}`, { body: {} })).status).toBe(200);
}, 30_000);
afterAll(async () => s?.close());

describe('ping', () => {
  it('answers the PingResult with a measured latency, with or without a body', async () => {
    for (const a of [await post(A1, 'ping', { serialNumber: A1 }), await s.gw('POST', `/device/${A1}/ping`)]) {
      expect(a.status, a.text).toBe(200);
      expect(a.body).toEqual({
        serialNumber: A1, currentUTCTime: expect.any(Number), deviceUTCTime: expect.any(Number),
        latency: expect.any(Number), configurationUUID: (await status(A1)).UUID,
      });
      expect(a.body.latency).toBeGreaterThanOrEqual(0);
      // The simulated AP answers within 20-200 ms of venue time; HTTP on a loaded machine adds
      // more (x20 here), but never the 60 s ping timeout.
      expect(a.body.latency).toBeLessThan(60_000);
      expect(Math.abs(a.body.deviceUTCTime - a.body.currentUTCTime)).toBeLessThan(60_000);
    }
    const history = (await s.gw('GET', `/commands?serialNumber=${A1}&newest=true&limit=2`)).body.commands as Command[];
    expect(history.map((c) => [c.command, c.status])).toEqual([['ping', 'completed'], ['ping', 'completed']]);
    expect(history[0]!.executed).toBeGreaterThan(0);
  });
});

describe('configure', () => {
  it('changes the simulated radio; the next state the AP reports shows it', async () => {
    const configuration = { radios: [{ band: '5G', channel: 44, 'channel-width': 40, 'tx-power': 14 }] };
    const c = await expectRecord(await post(A1, 'configure', { serialNumber: A1, UUID: 1, configuration: JSON.stringify(configuration) }), 'configure', A1);
    expect(c.status).toBe('completed');
    expect(c.executed).toBeGreaterThanOrEqual(c.submitted);
    expect(c.completed).toBeGreaterThanOrEqual(c.executed);
    expect(results(c).status).toMatchObject({ error: 0 });
    const sent = JSON.parse(c.details) as { uuid: number; config: Record<string, unknown> };
    expect(sent.config).toMatchObject({ ...configuration, uuid: sent.uuid });
    const radio = s.running.sim!.venue.aps.find((ap) => ap.serial === A1)!.radios.find((r) => r.band === '5G')!;
    expect([radio.channel, radio.width, radio.txPower]).toEqual([44, 40, 14]);
    // The configuration the AP took becomes the device's stored one.
    const device = await until('the stored configuration', async () => (await s.gw('GET', `/device/${A1}`)).body, (d) => d.UUID === sent.uuid);
    expect(JSON.parse(device.configuration)).toEqual({ ...configuration, uuid: sent.uuid });
    expect(device.lastConfigurationDownload).toBeGreaterThanOrEqual(c.completed);

    // request: the AP acknowledges, then its state (carrying the command UUID) replaces results.
    const req = await expectRecord(await post(A1, 'request', { message: 'state' }), 'request', A1);
    expect(req.status).toBe('completed');
    const replaced = await until('state in the request results', () => record(req.UUID), (r) => results(r).request_uuid === req.UUID);
    const state = results(replaced).state as { radios: { channel: number; channel_width: number; tx_power: number }[] };
    expect(state.radios.map((r) => [r.channel, r.channel_width, r.tx_power])).toContainEqual([44, 40, 14]);
    // The status takes the uuid the AP reports in its states.
    await until('the new uuid in the status', () => status(A1), (st) => st.UUID === sent.uuid);
  });

  it('reports substitutions (errorCode 1) as completed with the rejected parameters', async () => {
    const c = await expectRecord(await post(A3, 'configure', { configuration: { radios: [{ band: '2G', 'tx-power': 31 }] } }), 'configure', A3);
    expect([c.status, c.errorCode]).toEqual(['completed', 1]);
    expect(results(c).status!.rejected).toEqual([expect.objectContaining({ parameter: 'radios[0].tx-power', substitution: '15' })]);
  });

  it('with ?strict=true, the same substitutions (errorCode 1) make the command failed, still answered 200', async () => {
    const strict = await expectRecord(
      await s.gw('POST', `/device/${A3}/configure?strict=true`, { body: { configuration: { radios: [{ band: '2G', 'tx-power': 31 }] } } }), 'configure', A3);
    expect([strict.status, strict.errorCode, strict.errorText]).toEqual(['failed', 1, 'Applied with substitutions']);
    expect(results(strict).status!.rejected).toEqual([expect.objectContaining({ parameter: 'radios[0].tx-power', substitution: '15' })]);
    expect(JSON.parse(strict.details)).toMatchObject({ strict: true });
    // strict=false is the default; anything but a boolean is a 400.
    const lenient = await expectRecord(
      await s.gw('POST', `/device/${A3}/configure?strict=false`, { body: { configuration: { radios: [{ band: '2G', 'tx-power': 31 }] } } }), 'configure', A3);
    expect([lenient.status, lenient.errorCode]).toEqual(['completed', 1]);
    expectEnvelope(await s.gw('POST', `/device/${A3}/configure?strict=perhaps`, { body: { configuration: {} } }), 400);
    // expectRecord compared each answer with the stored record: the history says the same.
  });
});

describe('wifiscan', () => {
  it('returns the scan entries in results, filtered by the selector', async () => {
    // A2: A1 runs 5 GHz alone since the configure above named no other radio, so it scans no 2.4 GHz.
    const c = await expectRecord(await post(A2, 'wifiscan', { serialNumber: A2, verbose: true, selector: { bands: ['2'] } }), 'wifiscan', A2);
    expect(c.status).toBe('completed');
    const scan = results(c).status!.scan as { bssid: string; ssid: string; channel: number; signal: number; tsf?: number }[];
    expect(scan.length).toBeGreaterThan(0);
    for (const e of scan) expect(e.channel).toBeLessThanOrEqual(14);
    // The unmanaged neighbour on channel 6 and the other lab APs' 2.4 GHz radios.
    expect(scan.map((e) => e.ssid)).toEqual(expect.arrayContaining(['airtwin-lab']));
    expect(scan[0]!.tsf).toEqual(expect.any(Number));
    expect(JSON.parse(c.details)).toMatchObject({ bands: ['2G'], verbose: true, active: false, override_dfs: true });

    const ch = await expectRecord(await post(A2, 'wifiscan', { selector: { channels: [36] } }), 'wifiscan', A2);
    for (const e of results(ch).status!.scan as { channel: number }[]) expect(e.channel).toBe(36);
  });
});

describe('leds, trace, script, eventqueue, generic command', () => {
  it('leds blink completes; a future `when` keeps it pending until due, then it runs', async () => {
    const c = await expectRecord(await post(A2, 'leds', { pattern: 'blink', duration: 5 }), 'leds', A2);
    expect(c.status).toBe('completed');
    expect(JSON.parse(c.details)).toMatchObject({ pattern: 'blink', duration: 5 });
    const when = Math.floor(s.running.clock.now() / 1000) + 40;
    const later = await expectRecord(await post(A2, 'leds', { pattern: 'off', when }), 'leds', A2);
    expect([later.status, later.executed, later.when]).toEqual(['pending', 0, when]);
    const done = await final(later.UUID);
    expect(done.status).toBe('completed');
    expect(done.executed).toBeGreaterThanOrEqual(when);
  });

  it('trace captures for the given duration, uploads the capture to the uri and completes with it attached', async () => {
    const c = await expectRecord(await post(A2, 'trace', { network: 'lan', duration: 3 }), 'trace', A2);
    expect(c).toMatchObject({ status: 'completed', waitingForFile: 0, attachType: 'pcap', attachSize: expect.any(Number) });
    expect(c.attachSize).toBeGreaterThan(24);
    expect(c.attachFile).toBeGreaterThanOrEqual(c.executed);
    expect(c.completed - c.executed).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(c.details).uri).toBe(`${s.running.uploaderUrl}/v1/upload/${c.UUID}`);
    expect(results(c).status).toMatchObject({ error: 0, resultCode: 0 });
    const file = await s.gw('GET', `/file/${c.UUID}?serialNumber=${A2}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/vnd.tcpdump.pcap');
  });

  it('script: a shell script completes; a type the AP refuses is failed with its error', async () => {
    const script = Buffer.from('uptime').toString('base64');
    const ok = await expectRecord(await post(A3, 'script', { type: 'shell', script, timeout: 10 }), 'script', A3);
    expect([ok.status, ok.errorCode]).toEqual(['completed', 0]);
    expect(JSON.parse(ok.details)).toMatchObject({ type: 'shell', script, timeout: 10 });
    const refused = await expectRecord(await post(A3, 'script', { type: 'uci', script }), 'script', A3);
    expect([refused.status, refused.errorCode]).toEqual(['failed', 2]);
    expect(refused.errorText).toMatch(/uci/);
  });

  it("leds 'on' still carries duration in details; the record has executionTime, lastTry and deferred; results serial and uuid", async () => {
    const c = await expectRecord(await post(A2, 'leds', { serialNumber: A2, when: 0, duration: 1, pattern: 'on' }), 'leds', A2);
    expect(JSON.parse(c.details)).toEqual({ serial: A2, pattern: 'on', when: 0, duration: 1 });
    expect(JSON.parse((await post(A2, 'leds', { pattern: 'off' })).body.details)).toMatchObject({ duration: 30 });
    expect(c).toMatchObject({ deferred: false, lastTry: 0 });
    expect(c.executionTime).toBeGreaterThan(0);
    expect(results(c)).toMatchObject({ serial: A2, uuid: (await status(A2)).UUID, status: { error: 0, resultCode: 0, text: expect.any(String) } });
  });

  it('trace: a duration wins and numberOfPackets 0 means by duration; packets alone count; results carry resultText', async () => {
    const c = await expectRecord(await post(A2, 'trace', { serialNumber: A2, when: 0, duration: 2, numberOfPackets: 0, network: 'up', interface: 'up' }), 'trace', A2);
    expect(JSON.parse(c.details)).toEqual({ serial: A2, when: 0, network: 'up', interface: 'up', duration: 2, uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1\/upload\//) });
    expect(results(c).status).toMatchObject({ error: 0, resultCode: 0, resultText: expect.any(String), text: expect.any(String) });
    const byPackets = await expectRecord(await post(A2, 'trace', { network: 'up', numberOfPackets: 20 }), 'trace', A2);
    expect(JSON.parse(byPackets.details)).toMatchObject({ packets: 20 });
    expect(JSON.parse(byPackets.details).duration).toBeUndefined();
  });

  it('script type diagnostic: neither script nor scriptId; deferred, the AP acknowledges at once and the record says deferred', async () => {
    const body = { serialNumber: A3, timeout: 30, type: 'diagnostic', script: '', scriptId: '', when: 0, signature: '', deferred: true, uri: '' };
    const c = await expectRecord(await post(A3, 'script', body), 'script', A3);
    expect(c).toMatchObject({ status: 'completed', errorCode: 0, deferred: true, waitingForFile: 0, attachType: 'tgz' });
    expect(JSON.parse(c.details)).toEqual({ serial: A3, type: 'diagnostic', when: 0, uri: `${s.running.uploaderUrl}/v1/upload/${c.UUID}` });
    expect(results(c)).toMatchObject({ serial: A3, status: { error: 0 } });
    const inline = await expectRecord(await post(A3, 'script', { type: 'diagnostic', deferred: false, timeout: 10 }), 'script', A3);
    expect([inline.status, inline.deferred]).toEqual(['completed', false]);
    expect(results(inline).status).toMatchObject({ result_64: expect.any(String) });
    expect(expectEnvelope(await post(A3, 'script', { type: 'diagnostic', script: 'eA==' }), 400).ErrorDetails).toBe('type');
    expect(expectEnvelope(await post(A3, 'script', { type: 'shell', script: 'eA==', deferred: true, uri: 'ftp://x' }), 400).ErrorDetails).toBe('uri');
  });

  it('eventqueue asks the AP for its queued events (method `event`)', async () => {
    const c = await expectRecord(await post(A3, 'eventqueue', { types: ['dhcp', 'wifi'] }), 'event', A3);
    expect(c.status).toBe('completed');
    // As a real AP: `events` beside `status`, one list per type asked.
    expect((results(c) as Record<string, unknown>).events).toEqual({ dhcp: expect.any(Array), wifi: expect.any(Array) });
  });

  it('request healthcheck: the healthcheck carrying the command UUID replaces results', async () => {
    const c = await expectRecord(await post(A3, 'request', { message: 'healthcheck' }), 'request', A3);
    const r = await until('healthcheck in results', () => record(c.UUID), (x) => results(x).request_uuid === c.UUID);
    expect(results(r)).toMatchObject({ sanity: expect.any(Number), data: expect.any(Object) });
  });

  it('the generic command runs any AP method', async () => {
    const c = await expectRecord(await post(A3, 'command', { command: 'leds', payload: '{"pattern":"on"}' }), 'leds', A3);
    expect(c.status).toBe('completed');
    expect(JSON.parse(c.details)).toMatchObject({ pattern: 'on', serial: A3 });
  });
});

describe('telemetry', () => {
  it('starts a stream (the command record, action, stream uuid) and stops it with interval 0', async () => {
    const a = await post(A3, 'telemetry', { interval: 2, lifetime: 60, types: ['state'] });
    const c = await expectRecord({ ...a, body: pickCommand(a.body) }, 'telemetry', A3);
    // Fire-and-forget, as upstream: completed once sent.
    expect(results(c)).toEqual({ result: 'success' });
    expect(c.status).toBe('completed');
    expect(a.body).toMatchObject({ action: 'WebSocket telemetry started.', uuid: c.UUID, serialNumber: A3 });
    expect(a.body.uri).toMatch(new RegExp(`^ws://.+/api/v1/ws_telemetry\\?uuid=${c.UUID}&serialNumber=${A3}$`));
    const stop = await post(A3, 'telemetry', { interval: 0, uuid: c.UUID });
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body).toMatchObject({ action: 'WebSocket telemetry stopped.', command: 'telemetry', status: 'completed' });
    const only = await s.gw('POST', `/device/${A3}/telemetry?statusOnly=true`);
    expect(only.body).toMatchObject({ action: 'Telemetry status only.', serialNumber: A3 });
    expect(only.body.UUID).toBeUndefined();
  });

  it('refuses a message-bus stream without NATS and out-of-range intervals', async () => {
    expect(expectEnvelope(await post(A3, 'telemetry', { interval: 5, messagebus: true }), 400).ErrorDetails).toBe('messagebus');
    expect(expectEnvelope(await post(A3, 'telemetry', { interval: 121 }), 400).ErrorDetails).toMatch(/interval/);
    expect(expectEnvelope(await post(A3, 'telemetry', { interval: 0, uuid: 'not-a-uuid' }), 400).ErrorDetails).toBe('uuid');
  });
});

describe('telemetry streams: the answer names a websocket that carries the AP frames', () => {
  it('starts, reports status, streams frames, stops with interval 0 (the socket closes)', async () => {
    const start = await post(A2, 'telemetry', { serialNumber: A2, interval: 1, lifetime: 120, types: ['state'] });
    expect(start.status, start.text).toBe(200);
    expect(start.body).toMatchObject({ command: 'telemetry', status: 'completed', action: 'WebSocket telemetry started.', serialNumber: A2 });
    const uuid = start.body.UUID as string;
    expect(start.body.uuid).toBe(uuid);
    expect(start.body.uri).toBe(`${s.running.gatewayUrl.replace('http', 'ws')}/api/v1/ws_telemetry?uuid=${uuid}&serialNumber=${A2}`);
    expect(start.body.telemetry).toMatchObject({ running: true, interval: 1, websocketClients: 0 });

    const ws = new WebSocket(start.body.uri as string, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const frames: Record<string, unknown>[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    // One frame a second of venue time: 50 ms here.
    await until('telemetry frames', async () => frames.length, (n) => n >= 2);
    expect(frames[0]).toMatchObject({ timestamp: expect.any(Number) });
    const st = await s.gw('POST', `/device/${A2}/telemetry?statusOnly=true`, { body: { interval: 0 } });
    expect(st.body).toMatchObject({ action: 'Telemetry status only.', telemetry: { running: true, websocketClients: 1 } });
    expect(st.body.telemetry.websocketPackets).toBeGreaterThanOrEqual(2);

    const stop = await post(A2, 'telemetry', { interval: 0, uuid });
    expect(stop.body).toMatchObject({ action: 'WebSocket telemetry stopped.', status: 'completed', telemetry: { running: false } });
    expect(await closed).toEqual({ code: 1000, reason: 'telemetry stopped (interval 0)' });
  });

  it('frames the AP sends before the POST returns do not make the gateway stop it as a runaway', async () => {
    // Slow history writes (200 ms = 4 s of venue time): the AP streams before the answer.
    const store = (s.running.commandService as unknown as { opts: { store: { insert(c: Command): Promise<void> } } }).opts.store;
    const insert = store.insert.bind(store);
    store.insert = async (c) => {
      await new Promise((r) => setTimeout(r, 200));
      return insert(c);
    };
    try {
      const start = await post(A3, 'telemetry', { interval: 1, lifetime: 60 });
      expect(start.status, start.text).toBe(200);
      const ws = new WebSocket(start.body.uri as string, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      let frames = 0;
      ws.on('message', () => frames++);
      await until('frames after a slow start', async () => frames, (n) => n >= 2);
      ws.close();
      expect((await post(A3, 'telemetry', { interval: 0 })).status).toBe(200);
    } finally {
      store.insert = insert;
    }
  });

  it('a stop the AP cannot take (busy: 409) still ends the streams', async () => {
    const start = await post(A1, 'telemetry', { interval: 5, lifetime: 300 });
    expect(start.body.telemetry).toMatchObject({ running: true });
    const trace = post(A1, 'trace', { network: 'lan', duration: 20 });
    await until('the trace running on A1', async () => s.running.fleet.details(A1)?.running, (r) => r !== undefined);
    expectEnvelope(await post(A1, 'telemetry', { interval: 0 }), 409);
    const st = await s.gw('POST', `/device/${A1}/telemetry?statusOnly=true`, { body: { interval: 0 } });
    expect(st.body.telemetry).toMatchObject({ running: false });
    expect((await trace).status).toBe(200);
  });
});

/** The Command fields of a telemetry answer (which adds action, uuid, uri, telemetry). */
function pickCommand(body: Record<string, unknown>): Command {
  const { action: _a, uuid: _u, uri: _r, telemetry: _t, ...rest } = body;
  return rest as unknown as Command;
}

describe('the command policy: busy, offline, queued', () => {
  it('a device running a command refuses a second non-queueable one (409 DEVICE_BUSY) and queues a configure', async () => {
    // A 20 s capture (1 s of wall time): long enough to stay busy under a loaded machine.
    const trace = post(A2, 'trace', { network: 'lan', duration: 20 });
    // It is on the wire once the actor names it as running.
    await until('the trace running on A2', async () => s.running.fleet.details(A2)?.running, (r) => r !== undefined);
    const busy = expectEnvelope(await post(A2, 'leds', { pattern: 'on' }), 409);
    expect(busy).toMatchObject({ ErrorDetails: 'leds', ErrorDescription: expect.stringMatching(/already running a command/) });
    expectEnvelope(await post(A2, 'ping'), 409);
    const queued = await expectRecord(await post(A2, 'configure', { configuration: { radios: [{ band: '2G', channel: 1 }] } }), 'configure', A2);
    expect([queued.status, queued.executed]).toEqual(['pending', 0]);
    expect((await trace).body.status).toBe('completed');
    // pending -> executed -> completed once the trace is done.
    const done = await final(queued.UUID);
    expect(done.status).toBe('completed');
    expect(done.executed).toBeGreaterThan(0);
    expect(done.completed).toBeGreaterThanOrEqual(done.executed);
  });

  it('an offline device: 409 DEVICE_OFFLINE for reboot, ping, leds; configure, upgrade and factory are queued (pending)', async () => {
    for (const [cmd, body] of [['reboot', {}], ['ping', {}], ['leds', { pattern: 'on' }], ['wifiscan', {}], ['request', { message: 'state' }]] as const) {
      const e = expectEnvelope(await post(GHOST, cmd, body), 409);
      expect(e.ErrorDescription).toMatch(/not connected/);
    }
    for (const [cmd, body] of [['configure', { configuration: '{"radios":[]}' }], ['upgrade', { uri: 'https://fw.example.com/tip-v4.bin' }], ['factory', { keepRedirector: true }]] as const) {
      const c = await expectRecord(await post(GHOST, cmd, body), cmd, GHOST);
      expect([c.status, c.executed, c.completed]).toEqual(['pending', 0, 0]);
    }
    const listed = (await s.gw('GET', `/commands?serialNumber=${GHOST}`)).body.commands as Command[];
    expect(listed.map((c) => `${c.command} ${c.status}`).sort()).toEqual(['configure pending', 'factory pending', 'upgrade pending']);
  });

  it('reboot: completed, the AP goes offline and comes back; meanwhile a configure waits and then runs', async () => {
    const before = await status(A3);
    const c = await expectRecord(await post(A3, 'reboot', { serialNumber: A3 }), 'reboot', A3);
    expect([c.status, c.errorCode]).toEqual(['completed', 0]);
    await offline(A3);
    // Rebooting: interactive commands are refused, configure is queued for when it is back.
    expectEnvelope(await post(A3, 'ping'), 409);
    expectEnvelope(await post(A3, 'reboot'), 409);
    const queued = await expectRecord(await post(A3, 'configure', { configuration: { radios: [{ band: '5G', channel: 44 }] } }), 'configure', A3);
    expect(queued.status).toBe('pending');
    const back = await online(A3);
    expect(back.started).toBeGreaterThan(before.started);
    const done = await final(queued.UUID);
    expect([done.status, done.errorCode]).toEqual(['completed', 0]);
    expect(done.executed).toBeGreaterThanOrEqual(back.started);
    expect(s.running.sim!.venue.aps.find((ap) => ap.serial === A3)!.radios.find((r) => r.band === '5G')!.channel).toBe(44);
    expect((await post(A3, 'ping')).status).toBe(200);
  });

  it('upgrade and factory: completed, then the APs come back (with the new firmware after the upgrade)', async () => {
    const [up, fac] = await Promise.all([
      s.gw('POST', `/device/${A2}/upgrade?FWsignature=c2lnbmVk`, { body: { uri: 'https://fw.example.com/images/tip-v9.9.9.bin', keepRedirector: true } }),
      post(A1, 'factory', { keepRedirector: false }),
    ]);
    const u = await expectRecord(up, 'upgrade', A2);
    const f = await expectRecord(fac, 'factory', A1);
    expect([u.status, f.status]).toEqual(['completed', 'completed']);
    expect(JSON.parse(u.details)).toMatchObject({ uri: 'https://fw.example.com/images/tip-v9.9.9.bin', keep_redirector: 1, signature: 'c2lnbmVk' });
    expect(JSON.parse(f.details)).toMatchObject({ keep_redirector: 0 });
    await Promise.all([offline(A2), offline(A1)]);
    const [a2] = await Promise.all([online(A2), online(A1)]);
    expect(a2.firmware).toMatch(/tip-v9\.9\.9/);
    // Factory settings run an older configuration than the stored one (configured above): the
    // gateway pushes it back (a system configure) and the AP reports its uuid again.
    const stored = (await s.gw('GET', `/device/${A1}`)).body.UUID as number;
    await until('A1 reconciled', () => status(A1), (st) => st.UUID === stored);
    expect(s.running.sim!.venue.aps.find((ap) => ap.serial === A1)!.radios.find((r) => r.band === '5G')!.channel).toBe(44);
    const pushed = (await s.gw('GET', `/commands?serialNumber=${A1}&newest=true&limit=1`)).body.commands[0] as Command;
    expect(pushed).toMatchObject({ command: 'configure', submittedBy: '*system' });
  });
});

describe('errors', () => {
  const commands = ['command', 'configure', 'ping', 'upgrade', 'reboot', 'script', 'factory', 'leds', 'trace', 'wifiscan', 'request', 'eventqueue', 'telemetry'];

  it.each(commands)('%s: 400 for a malformed serial, 404 for an unknown device, 400 SERIAL_MISMATCH', async (cmd) => {
    // Bodies valid for every command's schema, so the serial checks are what answers.
    const body = { command: 'ping', configuration: {}, uri: 'https://x.example/fw.bin', type: 'shell', script: 'ZWNobw==', pattern: 'on', network: 'lan', message: 'state', types: ['dhcp'], interval: 0 };
    expect(expectEnvelope(await post('not-a-serial', cmd, body), 400).ErrorDescription).toMatch(/serial/);
    expect(expectEnvelope(await post('ffffffffffff', cmd, body), 404).ErrorDetails).toBe('serialNumber');
    const mismatch = expectEnvelope(await post(A1, cmd, { ...body, serialNumber: A2 }), 400);
    expect(mismatch).toMatchObject({ ErrorDetails: 'serialNumber', ErrorDescription: expect.stringMatching(/differs from the path/) });
  });

  it('bad parameters: 400 naming the field, nothing sent to the AP', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['upgrade', { uri: 'ftp://fw.example.com/x.bin' }, /^uri$/],
      ['upgrade', {}, /uri/],
      ['leds', { pattern: 'disco' }, /pattern/],
      ['leds', { pattern: 'blink', duration: 0 }, /duration/],
      ['configure', { configuration: 'not json' }, /^configuration$/],
      ['configure', {}, /configuration/],
      ['trace', { duration: 5 }, /^network$/],
      ['request', { message: 'logs' }, /message/],
      ['eventqueue', { types: [] }, /^types$/],
      ['eventqueue', { types: 'dhcp' }, /types/],
      ['script', { type: 'shell', script: 'ZWNobw==', scriptId: '00000000-0000-4000-8000-000000000001' }, /^scriptId$/],
      ['script', { type: 'perl', script: 'ZWNobw==' }, /type/],
      ['wifiscan', { selector: { bands: ['7'] } }, /bands/],
      ['wifiscan', { ies: [300] }, /ies/],
      ['command', { command: 'dance' }, /command/],
      ['command', { command: 'leds', payload: '{broken' }, /^payload$/],
      ['reboot', { when: -5 }, /when/],
      ['telemetry', { types: ['state'] }, /^interval$/],
      ['telemetry', { interval: 121 }, /interval/],
    ];
    const before = (await s.gw('GET', '/commands')).body.commands.length as number;
    for (const [cmd, body, field] of cases) {
      const e = expectEnvelope(await post(A3, cmd, body), 400);
      expect(e.ErrorDetails, `${cmd} ${JSON.stringify(body)}: ${e.ErrorDescription}`).toMatch(field);
    }
    expect((await s.gw('GET', '/commands')).body.commands.length).toBe(before);
  });

  it('needs a token', async () => {
    expectEnvelope(await s.gw('POST', `/device/${A1}/ping`, { token: null }), 401);
  });

  it('every command in the history ends final, except those queued for the offline device', async () => {
    const open = async () => ((await s.gw('GET', '/commands')).body.commands as Command[]).filter((c) => !FINAL.includes(c.status));
    const left = await until('only the offline device with open commands', open, (cs) => cs.every((c) => c.serialNumber === GHOST));
    expect(left.map((c) => c.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await s.gw('GET', '/commands')).body.commands.length).toBeGreaterThan(20);
  });
});
