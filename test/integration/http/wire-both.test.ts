import { connect as tcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * What both wire profiles do alike (docs/wire-profiles.md): exact JSON content type,
 * empty JSON bodies, CORS, the device list's platform and health filters, DELETE /devices,
 * a UUID as text on create, the status figures, and refused websocket upgrades.
 */

const A1 = 'a0b1c2000001';
const A2 = 'a0b1c2000002';
const servers: Record<'openwifi' | 'spec', TestServer> = {} as never;

beforeAll(async () => {
  [servers.openwifi, servers.spec] = await Promise.all([
    startTestServer({ wire: 'openwifi', sim: true, scenario: 'lab', speed: 20 }),
    startTestServer({ wire: 'spec', sim: true, scenario: 'lab', speed: 20 }),
  ]);
  for (const s of Object.values(servers)) {
    await until('lab online', async () => (await s.gw('GET', '/devices?connectionStatistics=true')).body, (b) => b.connectedDevices === 3);
  }
}, 60_000);
afterAll(async () => Promise.all(Object.values(servers).map((s) => s.close())));

// Before the tests below delete the simulated devices.
describe('16. status figures (both wires)', () => {
  it('has temperature, the 5-minute load, hasGPS, hasRADIUSSessions, and an integer averageConnectionTime', async () => {
    const s = servers.spec;
    // Read the status and the last state with no state arriving in between.
    const { st, last } = await until('a status and the state it came from', async () => {
      const before = (await s.gw('GET', `/device/${A1}/status`)).body;
      // No state stored yet (a loaded machine): an empty list, read again.
      const stored = (await s.gw('GET', `/device/${A1}/statistics?lastOnly=true`)).body.values?.[0]?.data;
      const state = stored === undefined ? undefined : JSON.parse(stored);
      const after = (await s.gw('GET', `/device/${A1}/status`)).body;
      return { st: after, last: state, same: before.load === after.load && before.temperature === after.temperature };
    }, (x) => x.same && x.last !== undefined && x.st.load === x.last.unit.load[1]);
    expect(st.temperature).toBe(last.unit.temperature[0]);
    expect(st.load).toBe(last.unit.load[1]);
    expect(st.hasGPS).toBe(true); // a simulated AP reports where it is (state gps)
    expect(last.gps).toEqual({ latitude: expect.any(Number), longitude: expect.any(Number), elevation: expect.any(Number) });
    expect(st.hasRADIUSSessions).toBe((await s.gw('GET', `/radiusSessions/${A1}`)).body.sessions.length > 0);
    const listed = (await s.gw('GET', '/devices?deviceWithStatus=true')).body.devicesWithStatus.find((d: { serialNumber: string }) => d.serialNumber === A1);
    expect(listed).toMatchObject({ temperature: st.temperature, hasGPS: true, hasRADIUSSessions: expect.any(Boolean) });
    expect(Number.isInteger((await s.gw('GET', '/devices?connectionStatistics=true')).body.averageConnectionTime)).toBe(true);
    expect((await s.gw('POST', '/device/aabbccdd0408', { body: {} })).status).toBe(200);
    const offline = (await s.gw('GET', '/device/aabbccdd0408/status')).body;
    expect(offline).toMatchObject({ connected: false, temperature: 0, hasGPS: false, hasRADIUSSessions: false });
  });
});

describe.each(['openwifi', 'spec'] as const)('on the %s wire', (wire) => {
  const s = () => servers[wire];

  it('10. says Content-Type: application/json exactly, on answers and errors, and takes an empty JSON body', async () => {
    for (const a of [await s().gw('GET', '/devices?countOnly=true'), await s().gw('GET', '/device/aabbccdd0401'), await s().gw('GET', '/no/such')]) {
      expect(a.headers.get('content-type')).toBe('application/json');
    }
    expect((await s().gw('POST', '/device/aabbccdd0402', { body: {} })).status).toBe(200);
    const del = await s().gw('DELETE', '/device/aabbccdd0402', { raw: '' });
    expect(del.status).toBeLessThan(300);
    const reboot = await s().gw('POST', `/device/${A2}/reboot`, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(reboot.status, reboot.text).toBe(200);
  });

  it('11. allows every method and the requested headers in a CORS preflight, on both services, and exposes Content-Disposition', async () => {
    for (const base of [s().running.gatewayUrl, s().running.rrmUrl]) {
      const res = await fetch(`${base}/api/v1/device/${A1}`, {
        method: 'OPTIONS',
        headers: { origin: 'http://ui.example', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization,content-type,x-custom' },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-methods')?.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type,x-custom');
      expect(res.headers.get('access-control-expose-headers')).toBe('Content-Disposition');
      expect(res.headers.get('access-control-allow-origin')).toBe('http://ui.example');
    }
  });

  it('12. filters GET /devices by platform (any case; ALL is no filter, also with countOnly)', async () => {
    const all = (await s().gw('GET', '/devices?countOnly=true')).body.count;
    expect((await s().gw('POST', '/device/aabbccdd0403', { body: { deviceType: 'SWITCH' } })).status).toBe(200);
    expect((await s().gw('GET', '/devices?countOnly=true&platform=ALL')).body.count).toBe(all + 1);
    expect((await s().gw('GET', '/devices?countOnly=true&platform=switch')).body.count).toBe(1);
    expect((await s().gw('GET', '/devices?serialOnly=true&platform=Switch')).body.serialNumbers).toEqual(['aabbccdd0403']);
    expect((await s().gw('GET', '/devices?countOnly=true&platform=ap')).body.count).toBe(all);
    expectEnvelope(await s().gw('GET', '/devices?platform=router'), 400);
  });

  it('12. answers health=true with the connected devices whose last sanity is within the limits', async () => {
    await until('health checks', async () => (await s().gw('GET', `/device/${A1}/status`)).body, (st) => st.sanity > 0);
    const sanity = (await s().gw('GET', `/device/${A1}/status`)).body.sanity as number;
    const inRange = (await s().gw('GET', `/devices?health=true&lowLimit=${sanity}&highLimit=${sanity}`)).body.serialNumbers;
    expect(inRange).toContain(A1);
    expect((await s().gw('GET', '/devices?health=true&lowLimit=0&highLimit=100')).body.serialNumbers).not.toContain('aabbccdd0403');
    const below = sanity > 0 ? (await s().gw('GET', `/devices?health=true&lowLimit=0&highLimit=${sanity - 1}`)).body.serialNumbers : [];
    expect(below).not.toContain(A1);
  });

  it('12. deletes devices by macPattern and every simulated one (admin only)', async () => {
    for (const serial of ['aabbccdd0404', 'aabbccdd0405', 'aabbccdd0504']) expect((await s().gw('POST', `/device/${serial}`, { body: {} })).status).toBe(200);
    expectEnvelope(await s().gw('DELETE', '/devices?macPattern=aabbccdd04*', { token: USER_TOKEN }), 403);
    expectEnvelope(await s().gw('DELETE', '/devices'), 400);
    expectEnvelope(await s().gw('DELETE', '/devices?macPattern=zz*'), 400);
    expect((await s().gw('DELETE', '/devices?macPattern=AABBCCDD040*')).status).toBeLessThan(300);
    const left = (await s().gw('GET', '/devices?serialOnly=true')).body.serialNumbers as string[];
    expect(left).toContain('aabbccdd0504');
    expect(left.filter((x) => x.startsWith('aabbccdd040'))).toEqual([]);
    expect((await s().gw('DELETE', '/devices?simulatedDevices=true')).status).toBeLessThan(300);
    expect((await s().gw('GET', '/devices?serialOnly=true')).body.serialNumbers).toEqual(['aabbccdd0504']);
  });

  it('13. takes a numeric-string UUID on create', async () => {
    const a = await s().gw('POST', '/device/aabbccdd0406', { body: { UUID: '123456' } });
    expect(a.status, a.text).toBe(200);
    expect(a.body.UUID).toBe(123456);
    expectEnvelope(await s().gw('POST', '/device/aabbccdd0407', { body: { UUID: '12a' } }), 400);
  });

  it('19. closes the socket of a refused websocket upgrade', async () => {
    const { port } = new URL(s().running.gatewayUrl);
    for (const path of ['/api/v1/ws_nothing', '/api/v1/devices', '/nowhere']) {
      const socket = tcp(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
      await closed; // the server ends it; the client never does
      expect(answer).toMatch(/^HTTP\/1\.1 (4\d\d|200)/);
    }
  });
});
