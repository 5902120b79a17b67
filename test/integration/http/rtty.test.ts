import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTTY_DEFAULTS } from '../../../src/gateway/remote-session.js';
import type { Command } from '../../../src/store/records.js';
import { FakeLink } from '../../helpers/fake-link.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * GET /device/{serial}/rtty end to end: HTTP -> command service -> device actor -> the AP, and
 * the rtty command in the command history. A1 is a simulated AP of the `lab` venue (it takes the
 * session); SCRIPTED is an AP played by the test on a FakeLink attached to the server's fleet (it
 * refuses, or stays silent); GHOST has a device record and no AP. The venue runs 20x faster than
 * wall time, so the 60 s rtty wait is 3 s here.
 */

const A1 = 'a0b1c2000001';
const SCRIPTED = 'aabbccdd0301';
const GHOST = 'aabbccdd0302';
const HEX32 = /^[0-9a-f]{32}$/;

let s: TestServer;
let link: FakeLink;

const connected = async (serial: string) => ((await s.gw('GET', `/device/${serial}/status`)).body as { connected: boolean }).connected;
const history = async (serial: string) => (await s.gw('GET', `/commands?serialNumber=${serial}`)).body.commands as Command[];
const rttyFrames = () => link.sent.filter((f) => f.method === 'rtty');

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20 });
  expect((await s.gw('POST', `/device/${SCRIPTED}`, { body: { devicePassword: 'scripted-secret' } })).status).toBe(200);
  expect((await s.gw('POST', `/device/${GHOST}`, { body: {} })).status).toBe(200);
  link = new FakeLink(SCRIPTED, () => s.running.clock.now());
  s.running.fleet.attach(link);
  link.up();
  // The configuration uuid of its record: no reconciliation configure keeps this AP busy.
  link.connect({ uuid: Math.max(1, (await s.gw('GET', `/device/${SCRIPTED}`)).body.UUID as number) });
  await until(`${A1} and ${SCRIPTED} online`, async () => [await connected(A1), await connected(SCRIPTED)], (c) => c.every(Boolean));
}, 30_000);
afterAll(async () => s?.close());

describe('GET /api/v1/device/:serial/rtty', () => {
  it('opens a session on a connected AP: the rtty command it answers with is in the history, completed, with the same id and token', async () => {
    const a = await s.gw('GET', `/device/${A1}/rtty`);
    expect(a.status, a.text).toBe(200);
    const session = a.body as Record<string, unknown>;
    expect(Object.keys(session).sort()).toEqual(
      ['commandUUID', 'connectionId', 'password', 'port', 'serialNumber', 'server', 'started', 'timeout', 'token', 'viewport']);
    // The internal rtty server's ports (free ones: the test server's gateway is on port 0).
    const ports = s.running.rtty!.ports!;
    expect(session).toMatchObject({
      serialNumber: A1, server: RTTY_DEFAULTS.server, port: ports.port, viewport: ports.viewport,
      timeout: RTTY_DEFAULTS.timeout, password: '', connectionId: expect.stringMatching(HEX32), token: expect.stringMatching(HEX32),
    });

    const c = (await history(A1)).find((x) => x.UUID === session.commandUUID);
    expect(c, `command ${String(session.commandUUID)} in the history`).toBeDefined();
    expect(c).toMatchObject({ command: 'rtty', serialNumber: A1, status: 'completed', errorCode: 0 });
    expect(c!.submittedBy).not.toBe('');
    expect(session.started).toBe(c!.executed);
    // What the AP was sent: this session's id and token, the rtty server, and the caller as user.
    expect(JSON.parse(c!.details)).toMatchObject({
      method: 'rtty', serial: A1, id: session.connectionId, token: session.token,
      server: RTTY_DEFAULTS.server, port: ports.port, timeout: RTTY_DEFAULTS.timeout, user: c!.submittedBy,
    });
    // The device password went to the AP, not into the command history.
    expect(JSON.parse(c!.details)).not.toHaveProperty('password');
    // ...and what the simulated AP answered.
    expect(JSON.parse(c!.results)).toMatchObject({ serial: A1, status: { error: 0 } });

    // Each session gets its own id and token.
    const again = (await s.gw('GET', `/device/${A1}/rtty`)).body as Record<string, unknown>;
    expect([again.connectionId, again.token, again.commandUUID]).not.toContain(session.connectionId);
    expect(again.token).not.toBe(session.token);
    expect(again.commandUUID).not.toBe(session.commandUUID);
  });

  it('answers 409 DEVICE_OFFLINE for a device that is not connected, and sends nothing', async () => {
    const e = expectEnvelope(await s.gw('GET', `/device/${GHOST}/rtty`), 409);
    expect(e.ErrorDetails).toBe('rtty');
    expect((await history(GHOST)).filter((c) => c.command === 'rtty')).toEqual([]);
    expectEnvelope(await s.gw('GET', '/device/aabbccdd03ff/rtty'), 404);
  });

  it('answers the failed Command record (200) when the AP refuses the session', async () => {
    const before = rttyFrames().length;
    const pending = s.gw('GET', `/device/${SCRIPTED}/rtty`);
    await until('the rtty command at the AP', async () => rttyFrames().length, (n) => n > before);
    expect(link.sent.filter((f) => f.method !== 'rtty')).toEqual([]);
    const frame = rttyFrames().at(-1)!;
    // The AP gets its record's devicePassword (the simulated A1 has none: the default "openwifi").
    expect(frame.params).toMatchObject({
      serial: SCRIPTED, id: expect.stringMatching(HEX32), server: RTTY_DEFAULTS.server, port: s.running.rtty!.ports!.port, password: 'scripted-secret',
    });
    link.reply(frame.id, { error: 2, text: 'rtty: cannot start the client' });
    const a = await pending;
    expect(a.status, a.text).toBe(200);
    const c = a.body as Command;
    expect(c).toMatchObject({ command: 'rtty', serialNumber: SCRIPTED, status: 'failed', errorCode: 2, errorText: 'rtty: cannot start the client' });
    expect(c).not.toHaveProperty('connectionId');
    // The internal rtty server dropped the session the AP will not come to.
    expect(s.running.rtty!.has(frame.params.id as string)).toBe(false);
    expect(JSON.parse(c.details)).toMatchObject({ id: frame.params.id, token: frame.params.token });
    expect(c.details).not.toContain('scripted-secret');
    expect((await s.gw('GET', `/command/${c.UUID}`)).body).toEqual(c);
  });

  it('answers the timed-out Command record (200) when the AP does not answer within 60 s', async () => {
    const before = rttyFrames().length;
    const a = await s.gw('GET', `/device/${SCRIPTED}/rtty`);
    expect(rttyFrames().length).toBe(before + 1);
    expect(a.status, a.text).toBe(200);
    const c = a.body as Command;
    expect(c).toMatchObject({ command: 'rtty', serialNumber: SCRIPTED, status: 'timedout' });
    expect(c.completed - c.executed).toBeGreaterThanOrEqual(59);
    expect((await s.gw('GET', `/command/${c.UUID}`)).body).toEqual(c);
  }, 20_000);
});

describe('GET /api/v1/device/:serial/rtty with serve --no-rtty', () => {
  it('answers 503 RTTY_DISABLED for a connected AP, sends it nothing and records no command', async () => {
    const off = await startTestServer({ rtty: false });
    try {
      const ap = new FakeLink(SCRIPTED, () => off.running.clock.now());
      off.running.fleet.attach(ap);
      ap.up();
      ap.connect({ uuid: 1 });
      await until(`${SCRIPTED} online`, async () => (await off.gw('GET', `/device/${SCRIPTED}/status`)).body.connected, (c) => c === true);
      const a = await off.gw('GET', `/device/${SCRIPTED}/rtty`);
      const e = expectEnvelope(a, 503);
      expect(e.ErrorDetails).toBe('rtty');
      expect(e.ErrorDescription).toMatch(/--no-rtty/);
      expect(ap.sent.filter((f) => f.method === 'rtty')).toEqual([]);
      expect((await off.gw('GET', `/commands?serialNumber=${SCRIPTED}`)).body.commands).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
