import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { makePki, type Pki } from './certs.js';
import { connectFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

describe('edge with TLS client certificates', () => {
  let pki: Pki;
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  let strict: EdgeSide;
  const clients: WsApClient[] = [];

  const ap = (e: EdgeSide, cn: string | undefined, opts: { foreign?: boolean } = {}) => {
    const dev = cn === undefined ? undefined : pki.device(cn, opts);
    const c = new WsApClient({
      url: `${e.edge.url}/`,
      tls: dev ? { cert: dev.cert, key: dev.key, ca: pki.ca } : { cert: '', key: '', ca: pki.ca },
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    pki = makePki();
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    const tls = { cert: pki.server.cert, key: pki.server.key, clientCa: pki.ca };
    edge = await startEdgeSide(nats.url, { tls });
    strict = await startEdgeSide(nats.url, { tls, allowMismatch: false });
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    await edge?.stop();
    await strict?.stop();
    await serve?.stop();
    await nats?.stop();
    pki?.cleanup();
  });

  it('admits a device whose certificate CN is its serial and records VERIFIED', async () => {
    expect(edge.edge.url).toMatch(/^wss:/);
    const c = ap(edge, 'A0B1C2000020');
    await c.opened;
    c.send(connectFrame('a0b1c2000020'));
    expect(await waitFor(() => serve.fleet.status('a0b1c2000020')?.connected === true)).toBe(true);
    expect(serve.fleet.status('a0b1c2000020')?.verifiedCertificate).toBe('VERIFIED');
  });

  it('treats a CN that differs only in the 2 low bits as VERIFIED (mismatch depth)', async () => {
    const c = ap(edge, 'a0b1c2000023');
    await c.opened;
    c.send(connectFrame('a0b1c2000021'));
    expect(await waitFor(() => serve.fleet.status('a0b1c2000021')?.connected === true)).toBe(true);
    expect(serve.fleet.status('a0b1c2000021')?.verifiedCertificate).toBe('VERIFIED');
  });

  it('keeps a device whose connect serial differs from its CN and records MISMATCH_SERIAL', async () => {
    const c = ap(edge, 'a0b1c2000099');
    await c.opened;
    c.send(connectFrame('a0b1c2000030'));
    expect(await waitFor(() => serve.fleet.status('a0b1c2000030')?.connected === true)).toBe(true);
    expect(serve.fleet.status('a0b1c2000030')?.verifiedCertificate).toBe('MISMATCH_SERIAL');
  });

  it('closes a mismatching device when mismatches are not allowed', async () => {
    const c = ap(strict, 'a0b1c2000098');
    await c.opened;
    c.send(connectFrame('a0b1c2000031'));
    expect((await c.closed).code).toBe(4003);
    expect(serve.fleet.status('a0b1c2000031')?.connected ?? false).toBe(false);
  });

  it('refuses a device without a certificate, with a foreign CA, or with a CN that is not a serial', async () => {
    for (const c of [ap(edge, undefined), ap(edge, 'a0b1c2000040', { foreign: true }), ap(edge, 'not-a-serial')]) {
      await expect(c.opened).rejects.toBeDefined();
    }
    expect(edge.edge.stats().sockets).toBe(3);
  });
});
