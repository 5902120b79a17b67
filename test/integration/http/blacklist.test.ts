import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const OK = (op: string) => ({ Operation: op, Details: 'Command completed.', Code: 0 });

describe('POST /api/v1/blacklist/:serial', () => {
  it('lists a serial with created and author set by the server, ignoring them in the body', async () => {
    const a = await s.gw('POST', '/blacklist/AA:BB:CC:00:00:01', { body: { reason: 'stolen', created: 1, author: 'mallory' } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(OK('POST'));
    const got = await s.gw('GET', '/blacklist/aabbcc000001');
    expect(got.status).toBe(200);
    expect(got.body.serialNumber).toBe('aabbcc000001');
    expect(got.body.reason).toBe('stolen');
    expect(got.body.author).toMatch(/^token:/);
    expect(got.body.author).not.toBe('mallory');
    expect(got.body.created).toBeGreaterThan(1_000_000_000);
  });

  it('accepts a body serial equal to the path serial and no body at all', async () => {
    expect((await s.gw('POST', '/blacklist/aabbcc000002', { body: { serialNumber: 'AA-BB-CC-00-00-02', reason: 'x' } })).status).toBe(200);
    expect((await s.gw('POST', '/blacklist/aabbcc000003', { body: {} })).status).toBe(200);
    expect((await s.gw('GET', '/blacklist/aabbcc000003')).body.reason).toBe('');
  });

  it('answers 409 when the serial is listed already', async () => {
    const e = expectEnvelope(await s.gw('POST', '/blacklist/aabbcc000001', { body: { reason: 'again' } }), 409);
    expect(e.ErrorDetails).toBe('serialNumber');
  });

  it.each([
    ['a malformed path serial', '/blacklist/nothex', { reason: 'x' }, 'serialNumber'],
    ['a body serial that differs from the path', '/blacklist/aabbcc000009', { serialNumber: 'aabbcc000008' }, 'serialNumber'],
    ['a malformed body serial', '/blacklist/aabbcc000009', { serialNumber: 'zz' }, 'body.serialNumber'],
    ['a reason of the wrong type', '/blacklist/aabbcc000009', { reason: { why: 1 } }, 'body.reason'],
  ])('answers 400 for %s', async (_what, path, body, field) => {
    const e = expectEnvelope(await s.gw('POST', path, { body }), 400);
    expect(e.ErrorDetails).toBe(field);
  });

  it('answers 400 for malformed JSON, 413 for a huge body, 415 for a non-JSON body', async () => {
    expectEnvelope(await s.gw('POST', '/blacklist/aabbcc000009', { raw: '{"reason":' }), 400);
    expectEnvelope(await s.gw('POST', '/blacklist/aabbcc000009', { raw: JSON.stringify({ reason: 'x'.repeat(2 * 1024 * 1024) }) }), 413);
    expectEnvelope(await s.gw('POST', '/blacklist/aabbcc000009', { raw: 'reason=x', headers: { 'content-type': 'text/plain' } }), 415);
    expectEnvelope(await s.gw('GET', '/blacklist/aabbcc000009'), 404);
  });

  it('needs the admin role (403 with a user token) and a token (401)', async () => {
    expectEnvelope(await s.gw('POST', '/blacklist/aabbcc000009', { body: {}, token: USER_TOKEN }), 403);
    const e = await s.gw('POST', '/blacklist/aabbcc000009', { body: {}, token: null });
    expectEnvelope(e, 401);
    expect(e.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('GET /api/v1/blacklist', () => {
  it('lists entries ordered by serial with offset and limit', async () => {
    const all = await s.gw('GET', '/blacklist', { token: USER_TOKEN });
    expect(all.status).toBe(200);
    expect(all.body.devices.map((e: { serialNumber: string }) => e.serialNumber)).toEqual(['aabbcc000001', 'aabbcc000002', 'aabbcc000003']);
    const page = (await s.gw('GET', '/blacklist?offset=2&limit=1')).body.devices;
    expect(page.map((e: { serialNumber: string }) => e.serialNumber)).toEqual(['aabbcc000002']);
    expect((await s.gw('GET', '/blacklist?offset=4')).body.devices).toEqual([]);
  });
  it('filters on serial, reason or author, case-insensitively', async () => {
    expect((await s.gw('GET', '/blacklist?filter=STOLEN')).body.devices.map((e: { serialNumber: string }) => e.serialNumber)).toEqual(['aabbcc000001']);
    expect((await s.gw('GET', '/blacklist?filter=000003')).body.devices).toHaveLength(1);
    expect((await s.gw('GET', '/blacklist?filter=token')).body.devices).toHaveLength(3);
    expect((await s.gw('GET', '/blacklist?filter=zzz')).body.devices).toEqual([]);
  });
  it('counts with countOnly=true, after the filter', async () => {
    expect((await s.gw('GET', '/blacklist?countOnly=true')).body).toEqual({ count: 3 });
    expect((await s.gw('GET', '/blacklist?countOnly=true&filter=stolen')).body).toEqual({ count: 1 });
  });
  it('answers 400 for a negative offset and an unknown parameter', async () => {
    expectEnvelope(await s.gw('GET', '/blacklist?offset=-2'), 400);
    expectEnvelope(await s.gw('GET', '/blacklist?limit=x'), 400);
  });
});

describe('GET /api/v1/blacklist/:serial', () => {
  it('answers 404 for a serial that is not listed and 400 for a malformed one', async () => {
    expectEnvelope(await s.gw('GET', '/blacklist/ffffffffffff'), 404);
    expectEnvelope(await s.gw('GET', '/blacklist/123'), 400);
  });
});

describe('PUT /api/v1/blacklist/:serial', () => {
  it('changes the reason and keeps created and author', async () => {
    const before = (await s.gw('GET', '/blacklist/aabbcc000001')).body;
    const a = await s.gw('PUT', '/blacklist/aabbcc000001', { body: { reason: 'found again', author: 'x', created: 3 } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(OK('PUT'));
    expect((await s.gw('GET', '/blacklist/aabbcc000001')).body).toEqual({ ...before, reason: 'found again' });
  });
  it('answers 404 for a serial that is not listed (upstream answers 400)', async () => {
    expectEnvelope(await s.gw('PUT', '/blacklist/ffffffffffff', { body: { reason: 'x' } }), 404);
  });
  it('answers 400 for a mismatched body serial and 403 for a user token', async () => {
    expectEnvelope(await s.gw('PUT', '/blacklist/aabbcc000001', { body: { serialNumber: 'aabbcc000002' } }), 400);
    expectEnvelope(await s.gw('PUT', '/blacklist/aabbcc000001', { body: { reason: 'y' }, token: USER_TOKEN }), 403);
  });
});

describe('DELETE /api/v1/blacklist/:serial', () => {
  it('needs the admin role', async () => {
    expectEnvelope(await s.gw('DELETE', '/blacklist/aabbcc000003', { token: USER_TOKEN }), 403);
  });
  it('removes with 204, then 404', async () => {
    const a = await s.gw('DELETE', '/blacklist/aabbcc000003');
    expect(a.status).toBe(204);
    expect(a.text).toBe('');
    expectEnvelope(await s.gw('DELETE', '/blacklist/aabbcc000003'), 404);
    expectEnvelope(await s.gw('GET', '/blacklist/aabbcc000003'), 404);
  });
});

describe('blackListed in device records', () => {
  it('is true for a listed serial and false once removed', async () => {
    expect((await s.gw('POST', '/device/aabbcc000002', { body: {} })).status).toBe(200);
    expect((await s.gw('GET', '/device/aabbcc000002')).body.blackListed).toBe(true);
    const listed = (await s.gw('GET', '/devices')).body.devices.find((d: { serialNumber: string }) => d.serialNumber === 'aabbcc000002');
    expect(listed.blackListed).toBe(true);
    await s.gw('DELETE', '/blacklist/aabbcc000002');
    expect((await s.gw('GET', '/device/aabbcc000002')).body.blackListed).toBe(false);
    await s.gw('POST', '/blacklist/aabbcc000002', { body: { reason: 'back' } });
  });
});

describe('blacklist across a restart', () => {
  it('finds the entries again and still flags the device', async () => {
    const before = (await s.gw('GET', '/blacklist')).body;
    await s.restart();
    expect((await s.gw('GET', '/blacklist')).body).toEqual(before);
    expect((await s.gw('GET', '/device/aabbcc000002')).body.blackListed).toBe(true);
  });
});
