import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFailure } from '../../../src/errors.js';
import { jsonDepth } from '../../../src/protocol/json-depth.js';
import { ADMIN_TOKEN, expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';
import { rawRequest, type RawAnswer } from '../../helpers/raw-http.js';

const SERIAL = 'aabbccdd0033';
const SQL = /\b(SELECT|DELETE FROM|INSERT INTO|UPDATE|WHERE)\b/;

const asEnvelope = (a: RawAnswer, status: number) => {
  expect(a.status, a.text).toBe(status);
  expect(a.headers.toLowerCase()).toContain('content-type: application/json');
  expect(a.body).toMatchObject({ ErrorCode: status, ErrorDetails: expect.any(String), ErrorDescription: expect.any(String) });
  return a.body as { ErrorCode: number; ErrorDetails: string; ErrorDescription: string };
};

const auth = `Authorization: Bearer ${ADMIN_TOKEN}\r\n`;

describe.each(['spec', 'openwifi'] as const)('hostile input on the %s wire', (wire) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ wire, bodyLimit: 64 * 1024 });
    expect((await s.gw('POST', `/device/${SERIAL}`, { body: { serialNumber: SERIAL, configuration: {} } })).status).toBe(200);
  });
  afterAll(async () => s?.close());

  describe('out-of-range integers (#33 point 6)', () => {
    const reads = ['/commands', `/device/${SERIAL}/logs`, `/device/${SERIAL}/healthchecks`, `/device/${SERIAL}/statistics`];
    const values = ['9223372036854775808', '1.79e308', '-1', '18446744073709551616'];
    it.each(reads.flatMap((path) => ['startDate', 'endDate', 'offset', 'limit'].map((param) => [path, param] as const)))(
      'GET %s?%s=<out of range> is a 400 naming the parameter, without SQL', async (path, param) => {
        for (const value of values) {
          const sep = path === '/commands' ? `?serialNumber=${SERIAL}&` : '?';
          const a = await s.gw('GET', `${path}${sep}${param}=${value}`);
          const e = expectEnvelope(a, 400);
          expect(e.ErrorDetails).toContain(param);
          expect(a.text).not.toMatch(SQL);
        }
      });
    it.each(reads.flatMap((path) => ['startDate', 'endDate'].map((param) => [path, param] as const)))(
      'DELETE %s?%s=<out of range> is a 400 naming the parameter, without SQL', async (path, param) => {
        for (const value of values) {
          const sep = path === '/commands' ? `?serialNumber=${SERIAL}&` : '?';
          const a = await s.gw('DELETE', `${path}${sep}${param}=${value}`);
          const e = expectEnvelope(a, 400);
          expect(e.ErrorDetails).toContain(param);
          expect(a.text).not.toMatch(SQL);
        }
      });
    it('still takes the largest safe integer', async () => {
      expect((await s.gw('GET', `/commands?limit=${Number.MAX_SAFE_INTEGER}&endDate=${Number.MAX_SAFE_INTEGER}`)).status).toBe(200);
    });
  });

  describe('deep JSON (#33 point 7)', () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    it('refuses a 10,000-level configuration on POST device and configure, and an RRM schedule, with 400', async () => {
      const body = `{"serialNumber":"${SERIAL}","configuration":${deep(10_000)}}`;
      expect(expectEnvelope(await s.gw('POST', `/device/aabbccdd0034`, { raw: body.replace(SERIAL, 'aabbccdd0034') }), 400).ErrorDetails).toBe('body');
      expectEnvelope(await s.gw('PUT', `/device/${SERIAL}`, { raw: body }), 400);
      expectEnvelope(await s.gw('POST', `/device/${SERIAL}/configure`, { raw: body }), 400);
      expectEnvelope(await s.rrm('POST', '/setDeviceNetworkConfig', { raw: `{"schedule":${deep(10_000)}}` }), 400);
      expectEnvelope(await s.rrm('POST', '/setDeviceNetworkConfig', { raw: `{"schedule":{"crons":[${'['.repeat(10_000)}${']'.repeat(10_000)}]}}` }), 400);
    });
    it('refuses a deep configuration sent as JSON text', async () => {
      const a = await s.gw('POST', `/device/${SERIAL}/configure`, { body: { serialNumber: SERIAL, configuration: deep(5_000) } });
      expectEnvelope(a, 400);
    });
    it('takes an ordinary nested configuration', async () => {
      expect((await s.gw('PUT', `/device/${SERIAL}`, { raw: `{"serialNumber":"${SERIAL}","configuration":${deep(20)}}` })).status).toBe(200);
    });
  });

  describe('every error carries the envelope (#33 point 11)', () => {
    it('431 for headers over 16 KB', async () => {
      asEnvelope(await rawRequest(s.running.gatewayUrl, `GET /api/v1/devices HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431);
      asEnvelope(await rawRequest(s.running.rrmUrl, `GET /api/v1/algorithms?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431);
    });
    it('414 for a path parameter over 100 characters', async () => {
      const e = asEnvelope(await rawRequest(s.running.gatewayUrl, `GET /api/v1/device/${'a'.repeat(101)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`), 414);
      expect(e.ErrorDetails).toBe('path');
    });
    it('400 for bad percent-encoding', async () => {
      expect(asEnvelope(await rawRequest(s.running.gatewayUrl, `GET /api/v1/device/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`), 400).ErrorDetails).toBe('path');
      asEnvelope(await rawRequest(s.running.rrmUrl, `GET /api/v1/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 400);
    });
    it('400 for requests Node cannot parse', async () => {
      for (const bad of ['GARBAGE\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /api/v1/devices HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n']) {
        asEnvelope(await rawRequest(s.running.gatewayUrl, bad), 400);
      }
      // A bad chunk after good headers: whichever comes first, the route's answer (no such route:
      // 404) or the parser's 400, it carries the envelope.
      const chunked = await rawRequest(s.running.gatewayUrl, 'POST /api/v1/devices HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
      expect([400, 404]).toContain(chunked.status);
      asEnvelope(chunked, chunked.status);
    });
    it('400 for HTTP/1.1 without Host', async () => {
      expect(asEnvelope(await rawRequest(s.running.gatewayUrl, `GET /api/v1/devices HTTP/1.1\r\nConnection: close\r\n${auth}\r\n`), 400).ErrorDetails).toBe('Host');
    });
    it('OPTIONS without Origin is no error: 204', async () => {
      const a = await rawRequest(s.running.gatewayUrl, 'OPTIONS /api/v1/devices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(a.status).toBe(204);
    });
    it('404, not 500, for a path that climbs out of the docs (#33 point 12)', async () => {
      for (const url of [s.running.gatewayUrl, s.running.rrmUrl]) {
        asEnvelope(await rawRequest(url, 'GET /docs/static/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404);
        asEnvelope(await rawRequest(url, 'GET /docs/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404);
      }
    });
  });

  describe('a body over the limit (#33 point 13)', () => {
    it('is answered 413 that the client reads, without Expect: 100-continue', async () => {
      const body = Buffer.alloc(4 * 1024 * 1024, 0x20);
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${s.running.gatewayUrl}/api/v1/device/${SERIAL}`, {
          method: 'PUT', body, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        });
        expect(res.status).toBe(413);
        expect(await res.json()).toMatchObject({ ErrorCode: 413 });
      }
    });
    it('is answered 413 on a raw socket that keeps sending', async () => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const a = await rawRequest(s.running.gatewayUrl, (socket) => {
        socket.write(`PUT /api/v1/device/${SERIAL} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${64 * chunk.length}\r\n\r\n`);
        let sent = 0;
        const more = () => {
          while (sent < 64 && !socket.destroyed) {
            sent++;
            if (!socket.write(chunk)) return void socket.once('drain', more);
          }
        };
        more();
      });
      asEnvelope(a, 413);
      expect(a.end).not.toBe('reset');
    });
  });
});

describe('shutdown and store errors (#33 points 6, 11)', () => {
  it('a request that arrives while the service shuts down gets 503 with the envelope', async () => {
    const s = await startTestServer();
    const gateway = s.running.gateway.server;
    const arrived = new Promise((resolve) => gateway.once('request', resolve));
    let closing: Promise<void> | undefined;
    // A request in flight (its body not complete) keeps the connection open through the close.
    const body = `{"serialNumber":"${SERIAL}"}`;
    const answer = rawRequest(s.running.gatewayUrl, (socket) => {
      socket.write(`POST /api/v1/device/${SERIAL} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      // Once the gateway has the request, close; once it stopped listening, the rest and a second request behind it.
      void arrived.then(async () => {
        closing = s.close();
        await waitFor(() => !gateway.listening);
        socket.write(`${body.slice(5)}GET /api/v1/devices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`);
      });
    }, 2);
    const a = await answer;
    await closing;
    const second = a.text.slice(a.text.indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(JSON.parse(second.split('\r\n\r\n')[1]!)).toMatchObject({ ErrorCode: 503, ErrorDetails: 'GET' });
  });

  it('a database failure names no SQL', () => {
    const e = storeFailure('SELECT uuid, serial, FROM commands', new Error('Conversion Error'));
    expect(e.details).toBe('database');
    expect(e.message).not.toMatch(SQL);
    expect(String((e.cause as Error).message)).toContain('SELECT');
  });

  it('counts JSON depth outside strings only', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[[{{{{"}]}')).toBe(3);
    expect(jsonDepth('"\\"[[["')).toBe(0);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}
