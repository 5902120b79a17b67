import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../../../src/config/load.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';
import { rawRequest, type RawAnswer } from '../../helpers/raw-http.js';

const auth = `Authorization: Bearer ${ADMIN_TOKEN}\r\n`;

/** (Read until the server closes: `rawRequest(..., 2)`.) A 408 with the envelope and then a close, or (nothing received yet to answer) a plain close. */
function timedOut(a: RawAnswer): void {
  expect(a.end, a.text).not.toBe('open');
  if (a.text === '') return;
  expect(a.status, a.text).toBe(408);
  expect(a.body).toMatchObject({ ErrorCode: 408, ErrorDetails: 'request' });
}

/** Resolves once the server closed `socket` (or a generous wait passed: then false). */
function closedByServer(socket: net.Socket, waitMs = 20_000): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe.each(['spec', 'openwifi'] as const)('timeouts of both API listeners on the %s wire (#33 point 8)', (wire) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ wire, headersTimeout: 1, requestTimeout: 2, keepAliveTimeout: 1, connectionTimeout: 4 });
  });
  afterAll(async () => s?.close());

  const urls = () => [s.running.gatewayUrl, s.running.rrmUrl];

  it('closes a connection that never sends a request', async () => {
    for (const url of urls()) timedOut(await rawRequest(url, () => undefined, 2));
  });

  it('answers 408 to headers that never complete', async () => {
    for (const url of urls()) {
      const a = await rawRequest(url, 'GET /api/v1/devices HTTP/1.1\r\nHost: x\r\n', 2);
      expect(a.status, a.text).toBe(408);
      timedOut(a);
    }
  });

  it('the uploader takes the same limits: 408 with the envelope for headers that never complete, a closed silent connection', async () => {
    const a = await rawRequest(s.running.uploaderUrl, 'POST /v1/upload/00000000-0000-0000-0000-000000000000 HTTP/1.1\r\nHost: x\r\n', 2);
    expect(a.status, a.text).toBe(408);
    timedOut(a);
    timedOut(await rawRequest(s.running.uploaderUrl, () => undefined, 2));
  });

  it('answers 408 (or closes) when a body never completes', async () => {
    for (const url of urls()) {
      timedOut(await rawRequest(url, `POST /api/v1/device/aabbccdd0008 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"serialNumber"`, 2));
    }
  });

  it('closes an idle keep-alive connection after answering', async () => {
    for (const url of urls()) {
      const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
      const answered = new Promise<string>((resolve) => socket.once('data', (d) => resolve(d.toString())));
      socket.write('GET /api/v1/devices HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await answered).toMatch(/^HTTP\/1\.1 \d{3} /);
      expect(await closedByServer(socket)).toBe(true);
    }
  });
});

describe('the connection cap (#33 point 8)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ maxConnections: 2 });
  });
  afterAll(async () => s?.close());

  it('closes connections past the cap on each listener and takes new ones once others close', async () => {
    for (const [url, server] of [[s.running.gatewayUrl, s.running.gateway.server], [s.running.rrmUrl, s.running.rrm.server]] as const) {
      const port = Number(new URL(url).port);
      // The server's side of each accepted connection: it counts one from its 'connection' event
      // until that socket's 'close'.
      const accepted: net.Socket[] = [];
      const onConnection = (socket: net.Socket) => accepted.push(socket);
      server.on('connection', onConnection);
      const open = await Promise.all([0, 1].map(() => new Promise<net.Socket>((resolve) => {
        const c = net.connect(port, '127.0.0.1', () => resolve(c));
      })));
      // Once the server counts both, a third is refused.
      while (accepted.length < 2) await once(server, 'connection');
      server.off('connection', onConnection);
      const count = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
      expect(await count()).toBe(2);
      const third = await rawRequest(url, 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(third.end).not.toBe('open');
      expect(third.text).toBe('');
      // Once the server saw them close, a request goes through again.
      const closed = accepted.map((socket) => (socket.closed ? Promise.resolve() : once(socket, 'close')));
      for (const c of open) c.destroy();
      await Promise.all(closed);
      const status = (await rawRequest(url, 'GET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status;
      expect(status).toBe(200);
    }
  });
});

describe('timeout settings', () => {
  it('come from flags and env vars, with defaults', () => {
    const d = loadServeConfig({ flags: {}, env: {} });
    expect([d.headersTimeout, d.requestTimeout, d.keepAliveTimeout, d.connectionTimeout, d.maxConnections]).toEqual([20, 60, 72, 300, 400]);
    const c = loadServeConfig({ flags: { requestTimeout: '30' }, env: { AIRTWIN_HEADERS_TIMEOUT: '5', AIRTWIN_MAX_CONNECTIONS: '10' } });
    expect([c.headersTimeout, c.requestTimeout, c.maxConnections]).toEqual([5, 30, 10]);
  });
  it('refuse a header timeout longer than the request timeout', () => {
    expect(() => loadServeConfig({ flags: { headersTimeout: '90', requestTimeout: '60' }, env: {} })).toThrow(/--headers-timeout/);
  });
});
