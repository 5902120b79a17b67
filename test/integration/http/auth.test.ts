import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

function expect401(a: { status: number; headers: Headers; body: unknown; text: string }) {
  expectEnvelope(a, 401);
  expect(a.headers.get('www-authenticate')).toMatch(/^Bearer/);
}

describe('static tokens', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.close());

  it('accepts a configured token and answers 401 without, with a malformed or an unknown one', async () => {
    expect((await s.gw('GET', '/devices')).status).toBe(200);
    expect401(await s.gw('GET', '/devices', { token: null }));
    expect401(await s.gw('GET', '/devices', { token: null, headers: { authorization: 'Basic abc' } }));
    expect401(await s.gw('GET', '/devices', { token: 'not-a-token-at-all' }));
    expect401(await s.rrm('GET', '/system?command=info', { token: null }));
  });

  it('gives a token without a role no admin rights', async () => {
    await s.gw('POST', '/device/aabbccddee10', { body: {} });
    expectEnvelope(await s.gw('DELETE', '/device/aabbccddee10', { token: USER_TOKEN }), 403);
    expect((await s.gw('GET', '/device/aabbccddee10', { token: USER_TOKEN })).status).toBe(200);
    expect((await s.gw('DELETE', '/device/aabbccddee10', { token: ADMIN_TOKEN })).status).toBe(204);
  });
});

describe('generated token', () => {
  it('creates a token file when nothing is configured, and keeps it across restarts', async () => {
    const s = await startTestServer({ apiTokens: [] });
    try {
      const token = s.running.generatedToken!;
      expect(token.length).toBeGreaterThanOrEqual(16);
      expect(readFileSync(join(s.dataDir, 'api-token'), 'utf8').trim()).toBe(token);
      expect((await s.gw('GET', '/devices', { token })).status).toBe(200);
      expect401(await s.gw('GET', '/devices', { token: ADMIN_TOKEN }));
      await s.restart();
      expect(s.running.generatedToken).toBe(token);
    } finally {
      await s.close();
    }
  });
});

describe('JWT HS256', () => {
  const secret = 'a-test-secret-of-sufficient-length';
  let s: TestServer;
  const sign = (claims: Record<string, unknown>, exp: string | number = '1h', key = secret) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('alice@example.com').setIssuedAt().setExpirationTime(exp).sign(new TextEncoder().encode(key));
  beforeAll(async () => {
    s = await startTestServer({ apiTokens: [], jwtSecret: secret });
  });
  afterAll(async () => s.close());

  it('accepts a valid token and takes the role from its claim', async () => {
    await s.gw('POST', '/device/aabbccddee20', { body: {}, token: await sign({ role: 'user' }) });
    expectEnvelope(await s.gw('DELETE', '/device/aabbccddee20', { token: await sign({}) }), 403);
    expect((await s.gw('DELETE', '/device/aabbccddee20', { token: await sign({ role: 'admin' }) })).status).toBe(204);
  });

  it('answers 401 for a token without an expiry, which would be good for ever', async () => {
    const forever = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject('alice@example.com').setIssuedAt()
      .sign(new TextEncoder().encode(secret));
    const e = expectEnvelope(await s.gw('GET', '/devices', { token: forever }), 401);
    expect(e.ErrorDescription).toMatch(/exp/);
  });

  it('answers 401 for an expired token or a wrong signature', async () => {
    expect401(await s.gw('GET', '/devices', { token: await sign({}, Math.floor(Date.now() / 1000) - 60) }));
    expect401(await s.gw('GET', '/devices', { token: await sign({}, '1h', 'another-secret-of-sufficient-len') }));
  });
});

describe('JWT RS256', () => {
  it('verifies with the configured public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-rsa-'));
    const pub = join(dir, 'pub.pem');
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const key = await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');
    const s = await startTestServer({ apiTokens: [], jwtPublicKey: pub });
    try {
      const token = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1h').sign(key);
      expect((await s.gw('GET', '/devices', { token })).status).toBe(200);
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const forged = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1h')
        .sign(await importPKCS8(other.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'));
      expect401(await s.gw('GET', '/devices', { token: forged }));
    } finally {
      await s.close();
    }
  });
});

describe('security service', () => {
  let security: Server;
  let url: string;
  let calls = 0;
  beforeAll(async () => {
    // A stand-in for an OpenWiFi security service on a real socket: validateToken answers per token.
    security = createServer((req, res) => {
      calls += 1;
      const token = new URL(req.url!, 'http://x').searchParams.get('token');
      const now = Math.floor(Date.now() / 1000);
      const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (token === 'good-admin') return answer(200, { tokenInfo: { access_token: token, created: now, expires_in: 3600 }, userInfo: { email: 'root@example.com', userRole: 'root' } });
      if (token === 'good-csr') return answer(200, { tokenInfo: { created: now, expires_in: 3600 }, userInfo: { email: 'csr@example.com', userRole: 'csr' } });
      if (token === 'old') return answer(200, { tokenInfo: { created: now - 7200, expires_in: 3600 }, userInfo: { email: 'x@example.com', userRole: 'root' } });
      return answer(403, { ErrorCode: 8 });
    });
    await new Promise<void>((r) => security.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(security.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => security.close(() => r())));

  it('accepts tokens the service validates, caches them, and maps roles', async () => {
    const s = await startTestServer({ apiTokens: [], securityUrl: url });
    try {
      const before = calls;
      expect((await s.gw('GET', '/devices', { token: 'good-admin' })).status).toBe(200);
      expect((await s.gw('GET', '/devices', { token: 'good-admin' })).status).toBe(200);
      expect(calls - before).toBe(1);
      await s.gw('POST', '/device/aabbccddee30', { body: {}, token: 'good-admin' });
      expectEnvelope(await s.gw('DELETE', '/device/aabbccddee30', { token: 'good-csr' }), 403);
      expect((await s.gw('DELETE', '/device/aabbccddee30', { token: 'good-admin' })).status).toBe(204);
      expect401(await s.gw('GET', '/devices', { token: 'bad' }));
      expect401(await s.gw('GET', '/devices', { token: 'old' }));
    } finally {
      await s.close();
    }
  });

  it('answers 503 when the service cannot be reached', async () => {
    const s = await startTestServer({ apiTokens: [], securityUrl: 'http://127.0.0.1:1' });
    try {
      expectEnvelope(await s.gw('GET', '/devices', { token: 'whatever' }), 503);
    } finally {
      await s.close();
    }
  });
});
