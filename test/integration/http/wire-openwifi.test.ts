import { resolveRef } from '../../helpers/openapi-check.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceDataRepo } from '../../../src/store/device-data-repo.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * The two wire profiles side by side (docs/wire-profiles.md): the same
 * requests to a gateway on the openwifi wire (what the OpenWiFi gateway sends) and one on the
 * spec wire (the API documents). Both run the `lab` venue at 20x.
 */

const A1 = 'a0b1c2000001';
const FRESH = 'aabbccdd0301';
let ow: TestServer;
let sp: TestServer;

const online = (s: TestServer, serial: string) =>
  until(`${serial} online`, async () => (await s.gw('GET', `/device/${serial}/status`)).body, (st) => st?.connected === true);
const withState = (s: TestServer, serial: string) =>
  until(`${serial} statistics`, async () => (await s.gw('GET', `/device/${serial}/statistics?countOnly=true`)).body, (b) => b?.count > 0);
const withHealthCheck = (s: TestServer, serial: string) =>
  until(`${serial} health check`, async () => (await s.gw('GET', `/device/${serial}/healthchecks`)).body, (b) => b?.values?.length > 0);

beforeAll(async () => {
  [ow, sp] = await Promise.all([
    startTestServer({ wire: 'openwifi', sim: true, scenario: 'lab', speed: 20 }),
    startTestServer({ wire: 'spec', sim: true, scenario: 'lab', speed: 20 }),
  ]);
  await Promise.all([online(ow, A1), online(sp, A1)]);
  await Promise.all([withState(ow, A1), withState(sp, A1)]);
}, 60_000);
afterAll(async () => Promise.all([ow?.close(), sp?.close()]));

describe('1. DELETE', () => {
  it('openwifi answers 200 with Content-Type application/json and the operation result; spec 204 with no body', async () => {
    for (const s of [ow, sp]) expect((await s.gw('POST', `/device/${FRESH}`, { body: {} })).status).toBe(200);
    const a = await ow.gw('DELETE', `/device/${FRESH}`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/json');
    expect(a.body).toEqual({ Operation: 'DELETE', Details: 'Command completed.', Code: 0 });
    const b = await sp.gw('DELETE', `/device/${FRESH}`);
    expect([b.status, b.text]).toEqual([204, '']);
  });

  it('openwifi answers 200 where upstream does for nothing to delete (a default configuration, capabilities); spec 404', async () => {
    expect((await ow.gw('DELETE', '/default_configuration/nothing-here')).status).toBe(200);
    expectEnvelope(await sp.gw('DELETE', '/default_configuration/nothing-here'), 404);
    for (const s of [ow, sp]) expect((await s.gw('POST', `/device/${FRESH}`, { body: {} })).status).toBe(200);
    expect((await ow.gw('DELETE', `/device/${FRESH}/capabilities`)).status).toBe(200);
    expectEnvelope(await sp.gw('DELETE', `/device/${FRESH}/capabilities`), 404);
    // A device that is not there stays a 404 on both.
    expectEnvelope(await ow.gw('DELETE', '/device/aabbccdd03ff'), 404);
  });
});

describe('2. JSON documents', () => {
  it('openwifi embeds configuration, details, results, data and capabilities as objects; spec sends JSON text', async () => {
    const [dOw, dSp] = [(await ow.gw('GET', `/device/${A1}`)).body, (await sp.gw('GET', `/device/${A1}`)).body];
    expect(dOw.configuration).toMatchObject({ uuid: dOw.UUID, radios: expect.any(Array) });
    expect(JSON.parse(dSp.configuration)).toMatchObject({ uuid: dSp.UUID, radios: expect.any(Array) });
    const [cOw, cSp] = [(await ow.gw('POST', `/device/${A1}/leds`, { body: { pattern: 'on' } })).body, (await sp.gw('POST', `/device/${A1}/leds`, { body: { pattern: 'on' } })).body];
    expect(cOw.details).toMatchObject({ serial: A1, pattern: 'on' });
    expect(cOw.results).toMatchObject({ serial: A1, status: { error: 0 } });
    expect(typeof cSp.details).toBe('string');
    expect(JSON.parse(cSp.results)).toMatchObject({ serial: A1, status: { error: 0 } });
    const listed = (await ow.gw('GET', `/commands?serialNumber=${A1}&newest=true&limit=1`)).body.commands[0];
    expect(typeof listed.details).toBe('object');
    const caps = (await ow.gw('GET', `/device/${A1}/capabilities`)).body;
    expect(caps.capabilities).toMatchObject({ compatible: expect.any(String) });
    expect(typeof (await sp.gw('GET', `/device/${A1}/capabilities`)).body.capabilities).toBe('string');
    const types = (await ow.gw('GET', '/capabilities')).body.device_types;
    expect(typeof types[0].capabilities).toBe('object');
  });

  it('openwifi embeds a default configuration and log data; a stored text that is not JSON stays a string', async () => {
    for (const s of [ow, sp]) {
      const a = await s.gw('POST', '/default_configuration/embed', { body: { modelIds: ['*'], configuration: { uuid: 1, radios: [] } } });
      expect(a.status, a.text).toBe(200);
    }
    expect((await ow.gw('GET', '/default_configuration/embed')).body.configuration).toEqual({ uuid: 1, radios: [] });
    expect((await ow.gw('GET', '/default_configurations')).body.configurations[0].configuration).toEqual({ uuid: 1, radios: [] });
    expect((await sp.gw('GET', '/default_configuration/embed')).body.configuration).toBe('{"uuid":1,"radios":[]}');
    const logs = (await ow.gw('GET', `/device/${A1}/logs`)).body.values;
    for (const l of logs) expect(typeof l.data === 'object' || typeof l.data === 'string').toBe(true);
    // A command never answered keeps results {} as an object.
    const scheduled = (await ow.gw('POST', `/device/${A1}/reboot`, { body: { when: 4_000_000_000 } })).body;
    expect(scheduled).toMatchObject({ status: 'pending', results: {} });
  });
});

describe('3. statistics and health checks', () => {
  it('openwifi lists statistics under data with data objects; lastOnly is the raw state; countOnly {count} on both', async () => {
    const list = (await ow.gw('GET', `/device/${A1}/statistics?newest=true&limit=2`)).body;
    expect(list).toEqual({ serialNumber: A1, data: expect.any(Array) });
    expect(list.data[0]).toEqual({ data: expect.objectContaining({ unit: expect.any(Object) }), UUID: expect.any(Number), recorded: expect.any(Number) });
    const last = (await ow.gw('GET', `/device/${A1}/statistics?lastOnly=true`)).body;
    expect(last).toMatchObject({ unit: expect.any(Object), interfaces: expect.any(Array) });
    expect(last.serialNumber).toBeUndefined();
    const spec = (await sp.gw('GET', `/device/${A1}/statistics?lastOnly=true`)).body;
    expect(spec).toEqual({ serialNumber: A1, values: [expect.objectContaining({ data: expect.any(String) })] });
    for (const s of [ow, sp]) expect((await s.gw('GET', `/device/${A1}/statistics?countOnly=true`)).body).toEqual({ count: expect.any(Number) });
  });

  it('openwifi health check items carry their data under values; lastOnly answers the one item', async () => {
    await Promise.all([withHealthCheck(ow, A1), withHealthCheck(sp, A1)]);
    const list = (await ow.gw('GET', `/device/${A1}/healthchecks?newest=true&limit=1`)).body;
    expect(list.values[0]).toEqual({ values: expect.any(Object), UUID: expect.any(Number), sanity: expect.any(Number), recorded: expect.any(Number) });
    const last = (await ow.gw('GET', `/device/${A1}/healthchecks?lastOnly=true`)).body;
    expect(last).toEqual({ values: expect.any(Object), UUID: expect.any(Number), sanity: expect.any(Number), recorded: expect.any(Number) });
    expect((await sp.gw('GET', `/device/${A1}/healthchecks?newest=true&limit=1`)).body.values[0].data).toEqual(expect.any(String));
  });
});

describe('logType', () => {
  it("openwifi reads logType as upstream (0 normal, 1 crash, 2 reboot logs, default 0); spec as its document (0 any, 1 normal, 2 crash)", async () => {
    const serial = 'aabbccdd0321';
    const kinds = async (s: TestServer, query: string) =>
      ((await s.gw('GET', `/device/${serial}/logs${query}`)).body.values as { logType: number }[]).map((l) => l.logType).sort();
    for (const s of [ow, sp]) {
      expect((await s.gw('POST', `/device/${serial}`, { body: {} })).status).toBe(200);
      await new DeviceDataRepo(s.running.store).insertLogs([0, 1, 2].map((logType) => ({ serial, log: `kind ${logType}`, recorded: 100 + logType, severity: 6, data: '{}', logType, UUID: 1 })));
    }
    expect([await kinds(ow, ''), await kinds(ow, '?logType=0'), await kinds(ow, '?logType=1'), await kinds(ow, '?logType=2')]).toEqual([[0], [0], [1], [2]]);
    expect([await kinds(sp, ''), await kinds(sp, '?logType=1'), await kinds(sp, '?logType=2')]).toEqual([[0, 1, 2], [0, 2], [1]]);
    expect((await ow.gw('DELETE', `/device/${serial}/logs?logType=2`)).status).toBe(200);
    expect(await kinds(sp, '')).toEqual([0, 1, 2]);
    expect([await kinds(ow, '?logType=0'), await kinds(ow, '?logType=1'), await kinds(ow, '?logType=2')]).toEqual([[0], [1], []]);
  });
});

describe('4. deviceType', () => {
  it('openwifi sends it lower case, spec as the document (AP); any case is taken on input', async () => {
    expect((await ow.gw('GET', `/device/${A1}`)).body.deviceType).toBe('ap');
    expect((await sp.gw('GET', `/device/${A1}`)).body.deviceType).toBe('AP');
    expect((await ow.gw('GET', '/devices?deviceWithStatus=true&limit=1')).body.devicesWithStatus[0].deviceType).toBe('ap');
    for (const [s, sent, shown] of [[ow, 'Switch', 'switch'], [sp, 'ap', 'AP']] as const) {
      const a = await s.gw('POST', '/device/aabbccdd0302', { body: { deviceType: sent } });
      expect(a.status, a.text).toBe(200);
      expect(a.body.deviceType).toBe(shown);
    }
  });
});

describe('5. ping and telemetry', () => {
  it('openwifi sends ping latency as upstream text; spec as a number of ms', async () => {
    const a = (await ow.gw('POST', `/device/${A1}/ping`, { body: { serialNumber: A1 } })).body;
    expect(a.latency).toMatch(/^\d+\.\d{3}ms\.$/);
    expect(a).toMatchObject({ serialNumber: A1, currentUTCTime: expect.any(Number) });
    expect(typeof (await sp.gw('POST', `/device/${A1}/ping`)).body.latency).toBe('number');
  });

  it("openwifi answers telemetry in upstream's shape, the stream status as status with kafka* keys", async () => {
    const body = { serialNumber: A1, interval: 3, lifetime: 2, kafka: false, types: ['dhcp-snooping'], uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6' };
    const a = await ow.gw('POST', `/device/${A1}/telemetry`, { body });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual({
      action: 'WebSocket telemetry started.', serialNumber: A1, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), uri: expect.stringMatching(/^ws:\/\//),
      status: { interval: 3, running: true, websocketClients: 0, websocketPackets: 0, websocketTimer: expect.any(Number), kafkaClients: 0, kafkaPackets: 0, kafkaTimer: 0 },
    });
    expect(a.body.uuid).not.toBe(body.uuid);
    const stop = await ow.gw('POST', `/device/${A1}/telemetry`, { body: { serialNumber: A1, interval: 0 } });
    expect(stop.body).toMatchObject({ action: 'WebSocket telemetry stopped.', status: { running: false } });
    const spec = (await sp.gw('POST', `/device/${A1}/telemetry`, { body })).body;
    expect(spec).toMatchObject({ command: 'telemetry', status: 'completed', telemetry: { running: true, messagebusClients: 0 } });
  });
});

describe('6. PUT default_configuration', () => {
  it('openwifi answers the updated record; spec the OperationResult', async () => {
    for (const s of [ow, sp]) await s.gw('POST', '/default_configuration/put-me', { body: { modelIds: ['*'], configuration: { uuid: 1 } } });
    const a = await ow.gw('PUT', '/default_configuration/put-me', { body: { description: 'edited' } });
    expect(a.body).toMatchObject({ name: 'put-me', description: 'edited', configuration: { uuid: 1 }, modelIds: ['*'], platform: 'ap' });
    expect((await sp.gw('PUT', '/default_configuration/put-me', { body: { description: 'edited' } })).body).toEqual({ Operation: 'PUT', Details: 'Command completed.', Code: 0 });
  });
});

describe('7. token failures', () => {
  it('openwifi answers a bad token with 403 and ErrorCode 8 (no WWW-Authenticate); spec 401 with it', async () => {
    for (const token of ['not-a-token', null]) {
      const a = await ow.gw('GET', '/devices', { token });
      expect(a.status).toBe(403);
      expect(a.body).toMatchObject({ ErrorCode: 8, ErrorDetails: 'GET', ErrorDescription: expect.stringMatching(/^8: Invalid token\./) });
      expect(a.headers.get('www-authenticate')).toBeNull();
      const b = await sp.gw('GET', '/devices', { token });
      expectEnvelope(b, 401);
      expect(b.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await ow.rrm('GET', '/system?command=info', { token: null })).body.ErrorCode).toBe(8);
  });

  it('openwifi answers an expired token with 403 and ErrorCode 9; spec 401', async () => {
    const secret = 'a-jwt-secret-for-expiry-tests';
    const servers = await Promise.all([startTestServer({ wire: 'openwifi', jwtSecret: secret }), startTestServer({ wire: 'spec', jwtSecret: secret })]);
    try {
      const expired = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(new TextEncoder().encode(secret));
      const a = await servers[0].gw('GET', '/devices', { token: expired });
      expect([a.status, a.body.ErrorCode]).toEqual([403, 9]);
      expect(a.body.ErrorDescription).toMatch(/^9: Expired token\./);
      expectEnvelope(await servers[1].gw('GET', '/devices', { token: expired }), 401);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe('8. query parameters a route does not take', () => {
  it('openwifi ignores them; spec answers 400 naming them', async () => {
    const a = await ow.gw('GET', '/devices?countOnly=true&unheardOf=1');
    expect(a.body).toEqual({ count: expect.any(Number) });
    const e = expectEnvelope(await sp.gw('GET', '/devices?countOnly=true&unheardOf=1'), 400);
    expect(e.ErrorDescription).toMatch(/unheardOf/);
  });
});

describe('9. blacklist POST', () => {
  it('openwifi takes the serial from the body when the path has none (the CLI posts to /blacklist/1); spec refuses', async () => {
    const serial = 'aabbccdd0311';
    const a = await ow.gw('POST', '/blacklist/1', { body: { serialNumber: serial, reason: 'cli' } });
    expect(a.status, a.text).toBe(200);
    expect((await ow.gw('GET', `/blacklist/${serial}`)).body).toMatchObject({ serialNumber: serial, reason: 'cli' });
    expectEnvelope(await sp.gw('POST', '/blacklist/1', { body: { serialNumber: serial, reason: 'cli' } }), 400);
    expect((await ow.gw('DELETE', `/blacklist/${serial}`)).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('describes the active wire', async () => {
    const [dOw, dSp] = [(await ow.gw('GET', '/openapi.json', { token: null })).body, (await sp.gw('GET', '/openapi.json', { token: null })).body];
    expect(dOw.info.description).toMatch(/Wire profile: openwifi/);
    expect(dSp.info.description).toMatch(/Wire profile: spec/);
    const del = (d: any) => Object.keys(d.paths['/api/v1/device/{serialNumber}'].delete.responses);
    expect(del(dOw)).toContain('200');
    expect(del(dOw)).not.toContain('204');
    expect(del(dSp)).toContain('204');
    const latency = (d: any) => resolveRef(d, d.paths['/api/v1/device/{serialNumber}/ping'].post.responses['200'].content['application/json'].schema)!.properties.latency.type;
    expect([latency(dOw), latency(dSp)]).toEqual(['string', 'number']);
  });
});
