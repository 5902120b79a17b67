import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServiceApp, registerApi } from '../../../src/server/build-app.js';
import { WRITE_ACCESS } from '../../../src/server/roles.js';
import { wireProfile } from '../../../src/server/wire/install.js';
import { ADMIN_TOKEN, expectEnvelope, startTestServer, USER_TOKEN, type Answer, type TestServer } from '../../helpers/server.js';
import { pino } from 'pino';

/** A route key with its path parameters filled in. */
function pathOf(route: string): string {
  return route.replace(':serialNumber', 'aabbccddee99').replace(':commandUUID', '00000000-0000-4000-8000-000000000001')
    .replace(':uuid', '00000000-0000-4000-8000-000000000002').replace(':name', 'roles-test');
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

/** The answers of both services to one write; the one without the route answers 404 without looking at the token. */
async function write(key: string, token: string, body: unknown = {}): Promise<Answer[]> {
  const [method, route] = key.split(' ') as [string, string];
  const init = { token, ...(method === 'DELETE' ? {} : { body }) };
  return Promise.all([s.gw(method, pathOf(route), init), s.rrm(method, pathOf(route), init)]);
}

describe('the roles of writes (src/server/roles.ts)', () => {
  it('is the table docs/roles.md shows', () => {
    const doc = readFileSync(new URL('../../../docs/roles.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([A-Z]+ \S+)` \| (user|admin) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows.sort()).toEqual(Object.entries(WRITE_ACCESS).sort());
  });

  it('refuses every admin write to a user token with 403, before anything else, and lets an admin through', async () => {
    for (const [key, access] of Object.entries(WRITE_ACCESS).filter(([, a]) => a === 'admin')) {
      const asUser = await write(key, USER_TOKEN);
      // 403 from the service that has the route (POST /system: both), 404 from one that has not.
      for (const a of asUser) expect([403, 404], `${key} (${access}) as user`).toContain(a.status);
      expectEnvelope(asUser.find((a) => a.status === 403)!, 403);
      const asAdmin = await write(key, ADMIN_TOKEN);
      expect(asAdmin.filter((a) => a.status === 403), `${key} as admin`).toHaveLength(0);
    }
  });

  it('lets a user token make every user write (whatever else the answer says)', async () => {
    for (const [key] of Object.entries(WRITE_ACCESS).filter(([, a]) => a === 'user')) {
      // A stored script (scriptId) is a user's to run when it lists the role; an inline one is admin (below).
      const asUser = await write(key, USER_TOKEN, key.endsWith('/script') ? { scriptId: 'none-such' } : {});
      expect(asUser.map((a) => a.status), key).not.toContain(403);
      expect(asUser.map((a) => a.status), key).not.toContain(401);
    }
  });

  it('refuses a user an inline script, on its own route and through the generic command', async () => {
    expect((await s.gw('POST', '/device/aabbccddee97', { body: {} })).status).toBe(200);
    const inline = { type: 'shell', script: Buffer.from('reboot').toString('base64') };
    expectEnvelope(await s.gw('POST', '/device/aabbccddee97/script', { token: USER_TOKEN, body: inline }), 403);
    expect((await s.gw('POST', '/device/aabbccddee97/script', { token: ADMIN_TOKEN, body: inline })).status).not.toBe(403);
  });

  it('gives the generic command the role of the method it sends: factory and script are admin', async () => {
    expect((await s.gw('POST', '/device/aabbccddee98', { body: {} })).status).toBe(200);
    for (const command of ['factory', 'script']) {
      expectEnvelope(await s.gw('POST', '/device/aabbccddee98/command', { token: USER_TOKEN, body: { command, payload: {} } }), 403);
      expect((await s.gw('POST', '/device/aabbccddee98/command', { token: ADMIN_TOKEN, body: { command, payload: {} } })).status).not.toBe(403);
    }
    // A reboot of an offline AP: refused by the device (409), not by the role.
    expectEnvelope(await s.gw('POST', '/device/aabbccddee98/command', { token: USER_TOKEN, body: { command: 'reboot', payload: {} } }), 409);
  });

  it('keeps a user from a factory reset, deleting commands and writing default configurations (the records stay)', async () => {
    expect((await s.gw('POST', '/default_configuration/kept', { body: { modelIds: ['*'], configuration: {} } })).status).toBe(200);
    expectEnvelope(await s.gw('PUT', '/default_configuration/kept', { token: USER_TOKEN, body: { description: 'x' } }), 403);
    expectEnvelope(await s.gw('DELETE', '/default_configuration/kept', { token: USER_TOKEN }), 403);
    expect((await s.gw('GET', '/default_configuration/kept', { token: USER_TOKEN })).body.description).toBe('');
    const queued = await s.gw('POST', '/device/aabbccddee98/configure', { token: USER_TOKEN, body: { configuration: {} } });
    expect(queued.body.status).toBe('pending');
    expectEnvelope(await s.gw('DELETE', `/command/${queued.body.UUID}`, { token: USER_TOKEN }), 403);
    expectEnvelope(await s.gw('DELETE', '/commands?serialNumber=aabbccddee98', { token: USER_TOKEN }), 403);
    expect((await s.gw('GET', `/command/${queued.body.UUID}`, { token: USER_TOKEN })).status).toBe(200);
    expectEnvelope(await s.gw('POST', '/device/aabbccddee98/factory', { token: USER_TOKEN, body: {} }), 403);
  });
});

describe('registerApi', () => {
  it('refuses to start a service with a write route the roles table does not list', async () => {
    const app = await buildServiceApp({
      name: 't', version: '0', description: 't', logger: pino({ level: 'silent' }), bodyLimit: 1024, wire: wireProfile('spec'),
      authenticator: { modes: [], verify: async () => ({ subject: 's', role: 'admin' }) },
    });
    const registered = registerApi(app, { modes: [], verify: async () => ({ subject: 's', role: 'admin' }) }, (api) => {
      api.post('/not-in-the-table', async () => ({}));
    });
    await expect(registered).rejects.toThrow(/POST \/not-in-the-table: a write route without a role/);
    await app.close().catch(() => undefined);
  });
});
