import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  // A small body limit so the 413 path needs no megabyte bodies.
  s = await startTestServer({ bodyLimit: 2048 });
});
afterAll(async () => s.close());

describe('errors shared by every route', () => {
  it('answers an unknown route with the 404 envelope, inside and outside /api/v1, with or without a token', async () => {
    const inside = expectEnvelope(await s.gw('GET', '/no/such/route'), 404);
    expect(inside.ErrorDetails).toBe('GET');
    expect(inside.ErrorDescription).toContain('/api/v1/no/such/route');
    expectEnvelope(await s.gw('DELETE', '/nothing', { token: null }), 404);
    const res = await fetch(`${s.running.gatewayUrl}/favicon.ico`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { ErrorCode: number }).ErrorCode).toBe(404);
  });

  it('answers malformed JSON with a 400 envelope naming the body', async () => {
    const e = expectEnvelope(await s.gw('POST', '/device/aabbccddee01', { raw: '{"serialNumber": ' }), 400);
    expect(e.ErrorDetails).toBe('body');
    expect(e.ErrorDescription).toMatch(/JSON/);
    expectEnvelope(await s.gw('POST', '/device/aabbccddee01', { raw: '' }), 400);
  });

  it('answers a body over the configured limit with 413', async () => {
    const e = expectEnvelope(await s.gw('POST', '/device/aabbccddee01', { body: { notes: [{ note: 'x'.repeat(4096) }] } }), 413);
    expect(e.ErrorDescription).toMatch(/2048/);
  });

  it('answers a body that is not JSON with 415', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const e = expectEnvelope(await s.gw('POST', '/device/aabbccddee01', { raw: 'a=b', headers: { 'content-type': type } }), 415);
      expect(e.ErrorDetails).toBe('Content-Type');
    }
  });

  it('never answers with HTML or a stack trace', async () => {
    const a = await s.gw('POST', '/device/aabbccddee01', { raw: '{' });
    expect(a.text).not.toMatch(/<html|at .*\.ts:\d+/i);
  });
});

describe('authentication', () => {
  it.each([
    ['no token', undefined],
    ['a malformed header', 'Token abc'],
    ['a Bearer header without a token', 'Bearer '],
    ['a wrong token', 'Bearer not-a-known-token'],
  ])('answers 401 with WWW-Authenticate: Bearer for %s', async (_what, authorization) => {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const res = await fetch(`${s.running.gatewayUrl}/api/v1/devices`, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = await res.json();
    expect(body).toMatchObject({ ErrorCode: 401, ErrorDetails: 'Authorization' });
  });

  it('answers 401 on the RRM service too', async () => {
    const a = await s.rrm('GET', '/system?command=info', { token: null });
    expectEnvelope(a, 401);
    expect(a.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('lets a user token read', async () => {
    expect((await s.gw('GET', '/devices', { token: USER_TOKEN })).status).toBe(200);
  });
});

describe('documentation', () => {
  it('serves /docs and /openapi.json without a token on both services', async () => {
    for (const call of [s.gw, s.rrm]) {
      const docs = await call('GET', '/docs', { token: null });
      expect(docs.status).toBe(200);
      expect(docs.text).toMatch(/swagger|openapi/i);
      const api = await call('GET', '/openapi.json', { token: null });
      expect(api.status).toBe(200);
      expect(api.body.openapi).toMatch(/^3\./);
    }
  });

  it('lists the gateway paths with bearer security', async () => {
    const doc = (await s.gw('GET', '/openapi.json', { token: null })).body;
    for (const path of ['/api/v1/devices', '/api/v1/device/{serialNumber}', '/api/v1/default_configurations', '/api/v1/default_configuration/{name}',
      '/api/v1/blacklist', '/api/v1/blacklist/{serialNumber}', '/api/v1/radiusProxyConfig', '/api/v1/deviceDashboard', '/api/v1/ouis',
      '/api/v1/iptocountry', '/api/v1/system']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas).toHaveProperty('ErrorEnvelope');
  });
});

describe('HTTP plumbing', () => {
  it('answers a CORS preflight without a token', async () => {
    const res = await fetch(`${s.running.gatewayUrl}/api/v1/devices`, {
      method: 'OPTIONS',
      headers: { origin: 'https://ui.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.example.com');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/GET/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
  });

  it('adds CORS headers to an ordinary answer', async () => {
    const a = await s.gw('GET', '/devices', { headers: { origin: 'https://ui.example.com' } });
    expect(a.headers.get('access-control-allow-origin')).toBe('https://ui.example.com');
  });

  it('gzips a large answer when asked', async () => {
    const macs = Array.from({ length: 200 }, (_, i) => `903cb3${i.toString(16).padStart(6, '0')}`).join(',');
    const a = await s.gw('GET', `/ouis?macList=${macs}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(a.status).toBe(200);
    expect(a.headers.get('content-encoding')).toBe('gzip');
    expect(a.body.tagList).toHaveLength(200);
    const plain = await s.gw('GET', `/ouis?macList=${macs}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
  });

  it('echoes x-request-id, and makes one up when none is sent', async () => {
    const a = await s.gw('GET', '/devices', { headers: { 'x-request-id': 'trace-42' } });
    expect(a.headers.get('x-request-id')).toBe('trace-42');
    const e = await s.gw('GET', '/nope', { headers: { 'x-request-id': 'trace-43' } });
    expect(e.headers.get('x-request-id')).toBe('trace-43');
    expect((await s.gw('GET', '/devices')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('GET /api/v1/system', () => {
  it('answers command=info with the SystemInfo fields', async () => {
    const a = await s.gw('GET', '/system?command=info', { token: USER_TOKEN });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ version: expect.any(String), uptime: expect.any(Number), start: expect.any(Number), os: expect.any(String), processors: expect.any(Number), hostname: expect.any(String), certificates: [] });
    expect(a.body.start).toBeGreaterThan(1_000_000_000);
    expect(a.body.processors).toBeGreaterThan(0);
  });
  it('answers command=resources with memory figures', async () => {
    const a = await s.gw('GET', '/system?command=resources');
    expect(a.status).toBe(200);
    expect(a.body.currRealMem).toBeGreaterThan(0);
    expect(Object.keys(a.body)).toEqual(expect.arrayContaining(['numberOfFileDescriptors', 'currRealMem', 'peakRealMem', 'currVirtMem', 'peakVirtMem']));
  });
  it('answers 400 for an unknown or missing command', async () => {
    expectEnvelope(await s.gw('GET', '/system?command=reboot'), 400);
    expectEnvelope(await s.gw('GET', '/system'), 400);
  });
  it('works on the RRM service as well', async () => {
    expect((await s.rrm('GET', '/system?command=info')).body.version).toEqual(expect.any(String));
  });
});

describe('POST /api/v1/system', () => {
  it('sets log levels per subsystem and answers the taglist', async () => {
    const a = await s.gw('POST', '/system', { body: { command: 'setloglevel', subsystems: [{ tag: 'gateway', value: 'debug' }] } });
    expect(a.status).toBe(200);
    expect(a.body.taglist).toEqual(expect.arrayContaining([{ tag: 'gateway', value: 'debug' }]));
    const levels = (await s.gw('POST', '/system', { body: { command: 'getloglevels' } })).body.tagList;
    expect(levels).toEqual(expect.arrayContaining([{ tag: 'gateway', value: 'debug' }, { tag: 'rrm', value: 'silent' }]));
  });
  it("sets every subsystem with tag 'all'", async () => {
    const a = await s.gw('POST', '/system', { body: { command: 'SetLogLevel', subsystems: [{ tag: 'all', value: 'warn' }] } });
    expect(a.body.taglist.every((t: { value: string }) => t.value === 'warn')).toBe(true);
  });
  it('lists level names and subsystem names', async () => {
    expect((await s.gw('POST', '/system', { body: { command: 'getloglevelnames' } })).body.list).toEqual(expect.arrayContaining(['debug', 'info', 'error']));
    expect((await s.gw('POST', '/system', { body: { command: 'getsubsystemnames' } })).body.list).toEqual(expect.arrayContaining(['gateway', 'rrm']));
  });
  it.each([
    ['an unknown command', { command: 'reload' }, 'command'],
    ['setloglevel without subsystems', { command: 'setloglevel' }, 'subsystems'],
    ['an unknown subsystem', { command: 'setloglevel', subsystems: [{ tag: 'kernel', value: 'debug' }] }, 'subsystems[0].tag'],
    ['an unknown level', { command: 'setloglevel', subsystems: [{ tag: 'gateway', value: 'loud' }] }, 'subsystems[0].value'],
    ['a missing command', {}, 'body.command'],
  ])('answers 400 for %s', async (_what, body, field) => {
    expect(expectEnvelope(await s.gw('POST', '/system', { body }), 400).ErrorDetails).toBe(field);
  });
  it('needs the admin role', async () => {
    expectEnvelope(await s.gw('POST', '/system', { body: { command: 'getloglevels' }, token: USER_TOKEN }), 403);
    expectEnvelope(await s.rrm('POST', '/system', { body: { command: 'getloglevels' }, token: USER_TOKEN }), 403);
  });
});
