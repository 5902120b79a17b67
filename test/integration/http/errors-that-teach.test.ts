import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * Error answers say how to fix the request: the parameter that is not taken, the values an enum
 * allows, whether a 409 is a busy or an offline device, and which port serves a route that was
 * asked of the other service. The `lab` venue at real time: an AP rebooting stays busy for its
 * 45-90 s boot, far longer than the test needs.
 */

const A1 = 'a0b1c2000001';
/** A device record with no AP behind it: always offline. */
const GHOST = 'aabbccdd0301';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 1 });
  await until(`${A1} online`, async () => (await s.gw('GET', `/device/${A1}/status`)).body, (st) => st.connected === true, 60_000);
  expect((await s.gw('POST', `/device/${GHOST}`, { body: {} })).status).toBe(200);
}, 90_000);
afterAll(async () => s?.close());

describe('a query parameter the route does not take', () => {
  it('is named in ErrorDetails and the sentence, with the parameters the route takes', async () => {
    const e = expectEnvelope(await s.gw('GET', '/devices?colour=red'), 400);
    expect(e.ErrorDetails).toBe('querystring.colour');
    expect(e.ErrorDescription).toMatch(/colour/);
    expect(e.ErrorDescription).toMatch(/serialOnly/);
  });
});

describe('a value outside an enum', () => {
  it('lists the allowed values', async () => {
    const e = expectEnvelope(await s.gw('POST', `/device/${A1}/leds`, { body: { pattern: 'disco' } }), 400);
    expect(e.ErrorDetails).toBe('body.pattern');
    expect(e.ErrorDescription).toMatch(/disco/);
    for (const allowed of ['on', 'off', 'blink']) expect(e.ErrorDescription).toContain(`'${allowed}'`);
  });
});

describe('409 for a device command', () => {
  it('says in DeviceState that the device is offline', async () => {
    const a = await s.gw('POST', `/device/${GHOST}/ping`);
    expectEnvelope(a, 409);
    expect(a.body.DeviceState).toBe('offline');
  });

  it('says in DeviceState that the device is busy', async () => {
    const reboot = await s.gw('POST', `/device/${A1}/reboot`, { body: { serialNumber: A1 } });
    expect(reboot.status, reboot.text).toBe(200);
    const a = await s.gw('POST', `/device/${A1}/ping`);
    expectEnvelope(a, 409);
    expect(a.body.DeviceState).toBe('busy');
  });
});

describe('a route of the other service', () => {
  it('on the gateway port, names the RRM service and its address', async () => {
    const e = expectEnvelope(await s.gw('GET', '/optimizeChannel?mode=random&zone=z'), 404);
    expect(e.ErrorDescription).toContain('RRM');
    expect(e.ErrorDescription).toContain(s.running.rrmUrl);
  });

  it('on the RRM port, names the gateway and its address', async () => {
    const e = expectEnvelope(await s.rrm('GET', `/device/${A1}/status`), 404);
    expect(e.ErrorDescription).toContain('device gateway');
    expect(e.ErrorDescription).toContain(s.running.gatewayUrl);
  });

  it('a route neither serves stays a plain 404', async () => {
    for (const call of [s.gw, s.rrm]) {
      const e = expectEnvelope(await call('GET', '/no-such-route'), 404);
      expect(e.ErrorDescription).toBe('No route GET /api/v1/no-such-route.');
    }
  });
});
