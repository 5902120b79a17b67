import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * A remote session end to end through serve's own rtty server: GET rtty sends the simulated AP
 * A1 of the `lab` venue there; its rtty client registers; the session's page answers 200 and its
 * websocket carries a command to the AP's shell and the answer back. Once plain, once over TLS
 * with the APIs' certificate (as the real-client runners start serve).
 */

const A1 = 'a0b1c2000001';

interface Http { get(path: string): Promise<{ status: number; type: string; text: string }>; ws(url: string): WebSocket }

async function session(s: TestServer, http: Http, scheme: 'http' | 'https') {
  await until('A1 online', () => http.get(`${s.running.gatewayUrl}/api/v1/device/${A1}/status`), (r) => r.status === 200 && (JSON.parse(r.text) as { connected: boolean }).connected);
  const a = await http.get(`${s.running.gatewayUrl}/api/v1/device/${A1}/rtty`);
  expect(a.status, a.text).toBe(200);
  const rtty = JSON.parse(a.text) as { connectionId: string; viewport: number; server: string };
  await until('A1 registered with the rtty server', async () => s.running.rtty!.stats().devicesRegistered, (n) => n >= 1);

  const base = `${scheme}://127.0.0.1:${rtty.viewport}/connect/${rtty.connectionId}`;
  const page = await http.get(base);
  expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8']);
  expect(page.text).toContain(A1);

  const ws = http.ws(base.replace(/^http/, 'ws'));
  let term = '';
  const text: Record<string, unknown>[] = [];
  ws.on('message', (d: Buffer, binary: boolean) => { if (binary) term += d.toString(); else text.push(JSON.parse(d.toString()) as Record<string, unknown>); });
  await until('login', async () => text, (t) => t.some((m) => m.type === 'login'));
  expect(text).toContainEqual({ type: 'login', err: 0 });
  await until('the prompt', async () => term, (t) => t.includes('root@OpenWrt:~# '));
  ws.send(Buffer.from('uname -a\r'));
  await until('uname', async () => term, (t) => /Linux OpenWrt .* GNU\/Linux/.test(t));
  ws.send(Buffer.from('frobnicate\r'));
  await until('not found', async () => term, (t) => t.includes('sh: frobnicate: not found'));
  ws.send(Buffer.from('exit\r'));
  await until('logout', async () => text, (t) => t.some((m) => m.type === 'logout'));
  expect(s.running.rtty!.has(rtty.connectionId)).toBe(false);
  expect((await http.get(base)).status).toBe(404);
  ws.terminate();
}

describe('remote session through the internal rtty server (plain)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ sim: true, scenario: 'lab', speed: 20, rttyTimeout: 600 });
  }, 60_000);
  afterAll(async () => s?.close());

  it('GET rtty -> the AP registers -> /connect/<id> 200 -> a command through the websocket', async () => {
    const http: Http = {
      get: async (url) => {
        const r = await fetch(url, { headers: { authorization: 'Bearer test-admin-token-0001' } });
        return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
      },
      ws: (url) => new WebSocket(url),
    };
    await session(s, http, 'http');
  }, 60_000);
});

describe('remote session through the internal rtty server (TLS)', () => {
  let s: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-rtty-tls-'));

  beforeAll(async () => {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'),
      '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    s = await startTestServer({ sim: true, scenario: 'lab', speed: 20, rttyTimeout: 600, tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') });
  }, 60_000);
  afterAll(async () => s?.close());

  it('both rtty ports speak TLS with the APIs\' certificate', async () => {
    const ca = readFileSync(join(dir, 'cert.pem'));
    const http: Http = {
      get: (url) => new Promise((resolve, reject) => {
        const req = httpsRequest(new URL(url), { ca, headers: { authorization: 'Bearer test-admin-token-0001' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => { text += c.toString(); });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }));
        });
        req.on('error', reject);
        req.end();
      }),
      ws: (url) => new WebSocket(url, { ca }),
    };
    await session(s, http, 'https');
  }, 60_000);
});
