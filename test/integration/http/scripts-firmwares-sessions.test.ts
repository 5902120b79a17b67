import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * Endpoints beyond the API documents that the OpenWiFi clients call, stored
 * in DuckDB: stored scripts (and a script command by scriptId), default firmwares, and the
 * RADIUS sessions of the simulated APs' stations. Both wires answer them; spec here, where the
 * record shapes are the same.
 */

const A1 = 'a0b1c2000001';
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20 });
  await until('lab online', async () => (await s.gw('GET', '/devices?connectionStatistics=true')).body, (b) => b.connectedDevices === 3);
}, 60_000);
afterAll(async () => s?.close());

describe('/scripts and /script/{id}', () => {
  it('creates (POST /script/0), lists, changes and deletes stored scripts, kept across a restart', async () => {
    expect((await s.gw('GET', '/scripts?limit=100&offset=0')).body).toEqual({ scripts: [] });
    const created = await s.gw('POST', '/script/0', { body: { name: 'uptime', type: 'shell', content: 'uptime', version: '1', restricted: ['csr'], timeout: 20 } });
    expect(created.status, created.text).toBe(200);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'uptime', author: 'token:test…', deferred: false, timeout: 20, restricted: ['csr'] });
    await s.restart();
    expect((await s.gw('GET', `/script/${id}`)).body).toEqual(created.body);
    const changed = await s.gw('PUT', `/script/${id}`, { body: { description: 'how long up', deferred: true } });
    expect(changed.body).toMatchObject({ description: 'how long up', deferred: true, content: 'uptime' });
    expect((await s.gw('GET', '/scripts')).body.scripts).toHaveLength(1);
    expect((await s.gw('DELETE', `/script/${id}`)).status).toBe(204);
    expectEnvelope(await s.gw('GET', `/script/${id}`), 404);
    expectEnvelope(await s.gw('DELETE', `/script/${id}`), 404);
  });

  it('refuses incomplete scripts, bad types, URIs and roles; writes need the admin role', async () => {
    for (const [body, field] of [
      [{ type: 'shell', content: 'x', version: '1' }, 'name'],
      [{ name: 'n', type: 'python', content: 'x', version: '1' }, 'body.type'],
      [{ name: 'n', type: 'shell', content: '', version: '1' }, 'content'],
      [{ name: 'n', type: 'shell', content: 'x', version: '1', uri: 'ftp://x' }, 'uri'],
      [{ name: 'n', type: 'shell', content: 'x', version: '1', restricted: ['wizard'] }, 'body.restricted.0'],
    ] as const) {
      expect(expectEnvelope(await s.gw('POST', '/script/0', { body }), 400).ErrorDetails).toBe(field);
    }
    expectEnvelope(await s.gw('POST', '/script/0', { body: { name: 'n', type: 'shell', content: 'x', version: '1' }, token: USER_TOKEN }), 403);
  });

  it('runs a stored script by scriptId (or name): its text base64-encoded, for admins and the roles it lists', async () => {
    await until('a state', async () => (await s.gw('GET', `/device/${A1}/statistics?countOnly=true`)).body.count, (n) => n > 0);
    const stored = (await s.gw('POST', '/script/0', { body: { name: 'hello', type: 'shell', content: 'echo hi', version: '1', timeout: 15 } })).body;
    const byId = await s.gw('POST', `/device/${A1}/script`, { body: { scriptId: stored.id } });
    expect(byId.status, byId.text).toBe(200);
    expect(JSON.parse(byId.body.details)).toMatchObject({ type: 'shell', script: Buffer.from('echo hi').toString('base64'), timeout: 15 });
    expect(byId.body.status).toBe('completed');
    expect((await s.gw('POST', `/device/${A1}/script`, { body: { scriptId: 'hello' } })).status).toBe(200);
    expectEnvelope(await s.gw('POST', `/device/${A1}/script`, { body: { scriptId: stored.id }, token: USER_TOKEN }), 403);
    expectEnvelope(await s.gw('POST', `/device/${A1}/script`, { body: { scriptId: 'no-such-script' } }), 400);
  });
});

describe('/default_firmwares and /default_firmware/{deviceType}', () => {
  it('creates, lists, counts, changes and deletes', async () => {
    const body = { deviceType: 'edgecore_eap101', uri: 'https://fw.example/eap101.bin', revision: 'TIP-v3.0.0', description: 'stable' };
    const created = await s.gw('POST', '/default_firmware/edgecore_eap101', { body });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ ...body, imageCreationDate: 0, created: expect.any(Number), lastModified: expect.any(Number) });
    expectEnvelope(await s.gw('POST', '/default_firmware/edgecore_eap101', { body }), 409);
    expect((await s.gw('GET', '/default_firmwares')).body).toEqual({ firmwares: [created.body] });
    expect((await s.gw('GET', '/default_firmwares?countOnly=true')).body).toEqual({ count: 1 });
    expect((await s.gw('PUT', '/default_firmware/edgecore_eap101', { body: { revision: 'TIP-v3.0.1' } })).body).toMatchObject({ revision: 'TIP-v3.0.1', uri: body.uri });
    expect((await s.gw('GET', '/default_firmware/edgecore_eap101')).body.revision).toBe('TIP-v3.0.1');
    expect((await s.gw('DELETE', '/default_firmware/edgecore_eap101')).status).toBe(204);
    expectEnvelope(await s.gw('GET', '/default_firmware/edgecore_eap101'), 404);
    expectEnvelope(await s.gw('DELETE', '/default_firmware/edgecore_eap101'), 404);
  });

  it('refuses a missing revision or a uri that is not http(s)', async () => {
    expect(expectEnvelope(await s.gw('POST', '/default_firmware/x', { body: { uri: 'https://a/b' } }), 400).ErrorDetails).toBe('revision');
    expect(expectEnvelope(await s.gw('POST', '/default_firmware/x', { body: { uri: 'file:///etc/passwd', revision: '1' } }), 400).ErrorDetails).toBe('uri');
  });
});

describe('GET /radiusSessions/{serial|0}', () => {
  it("lists the sessions of an AP's associated stations, and finds them by station MAC or user name on any AP", async () => {
    const sessions = (await until('sessions', async () => (await s.gw('GET', `/radiusSessions/${A1}`)).body.sessions as Record<string, any>[], (l) => l.length > 0));
    const one = sessions[0]!;
    expect(one).toMatchObject({
      serialNumber: A1, callingStationId: expect.stringMatching(/^([0-9A-F]{2}-){5}[0-9A-F]{2}$/), sessionTime: expect.any(Number),
      inputOctets: expect.any(Number), outputOctets: expect.any(Number), accountingSessionId: expect.stringMatching(/^[0-9A-F]{16}$/),
      calledStationId: expect.stringMatching(/:airtwin/), nasId: A1,
    });
    const mac = (one.callingStationId as string).toLowerCase().replace(/-/g, ':');
    expect((await s.gw('GET', `/radiusSessions/0?mac=${mac}`)).body.sessions.map((x: { callingStationId: string }) => x.callingStationId)).toEqual([one.callingStationId]);
    expect((await s.gw('GET', `/radiusSessions/0?userName=${one.userName.toLowerCase()}`)).body.sessions).toHaveLength(1);
    expect((await s.gw('GET', '/radiusSessions/0?serialNumberOnly=true')).body.serialNumbers).toContain(A1);
    expect((await s.gw('GET', `/device/${A1}/status`)).body.hasRADIUSSessions).toBe(true);
    expectEnvelope(await s.gw('GET', '/radiusSessions/0'), 400);
    expectEnvelope(await s.gw('GET', '/radiusSessions/aabbccdd09ff'), 404);
  });
});
