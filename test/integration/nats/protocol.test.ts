import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateParams } from '../../../src/protocol/compress.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame, logFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const protocolErrors = (serve: Serve, serial: string) => serve.events.filter((e) => e.type === 'protocol-error' && e.serial === serial);

describe('edge frame handling', () => {
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  const clients: WsApClient[] = [];
  const ap = async () => {
    const c = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(c);
    await c.opened;
    return c;
  };

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    edge = await startEdgeSide(nats.url, { limits: { maxPayload: 64 * 1024, idleTimeoutMs: 1500 } });
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('inflates compress_64 params before they reach the actor', async () => {
    const serial = 'a0b1c2000050';
    const c = await ap();
    c.send(connectFrame(serial));
    const state = { uuid: 1, state: { unit: { load: [0.1, 0.2, 0.3], memory: { total: 1000, free: 500 } }, interfaces: [] } };
    c.send({ jsonrpc: '2.0', method: 'state', params: { ...deflateParams({ serial, ...state }) } });
    expect(await waitFor(() => serve.fleet.details(serial)?.lastState !== undefined)).toBe(true);
    expect(serve.fleet.details(serial)?.lastState).toMatchObject({ unit: { load: [0.1, 0.2, 0.3] } });
  });

  it('rejects and counts malformed frames; the actor sees them as protocol errors', async () => {
    const serial = 'a0b1c2000051';
    const c = await ap();
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    const before = edge.edge.stats().protocolErrors;
    c.send('this is not json');
    c.send({ jsonrpc: '2.0', method: 'selfdestruct', params: {} });
    c.send({ jsonrpc: '2.0', method: 'state', params: { compress_64: '!!!not zlib!!!' } });
    expect(await waitFor(() => protocolErrors(serve, serial).length === 3)).toBe(true);
    expect(edge.edge.stats().protocolErrors - before).toBe(3);
    c.send(logFrame(serial, 'still talking'));
    expect(await waitFor(() => serve.events.some((e) => e.type === 'log' && e.serial === serial))).toBe(true);
    expect(serve.fleet.status(serial)?.connected).toBe(true);
  });

  it('drops an AP whose state carries a params.serial that is not hex, as the gateway does', async () => {
    const serial = 'a0b1c2000055';
    const c = await ap();
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    c.send({ jsonrpc: '2.0', method: 'state', params: { serial: 'zz!', uuid: 1, state: { unit: {} } } });
    const { code, reason } = await c.closed;
    expect(code).toBe(4001);
    expect(reason).toContain('params.serial "zz!"');
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === false)).toBe(true);
    expect(serve.events.filter((e) => e.serial === serial && (e.type === 'dropped' || e.type === 'protocol-error' || e.type === 'state')).map((e) => e.type === 'dropped' ? e.payload.reason : e.type))
      .toEqual(['bad-serial']);
  });

  it('ignores and counts a state without params.serial; the AP stays connected, as upstream', async () => {
    const serial = 'a0b1c2000056';
    const c = await ap();
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    c.send({ jsonrpc: '2.0', method: 'state', params: { uuid: 1, state: { unit: { load: [0.1, 0.2, 0.3] } } } });
    c.send(logFrame(serial, 'after the serial-less state'));
    expect(await waitFor(() => serve.events.some((e) => e.type === 'log' && e.serial === serial))).toBe(true);
    // No state event, so nothing for the ingest pipeline to store.
    expect(serve.events.filter((e) => e.serial === serial && (e.type === 'state' || e.type === 'protocol-error' || e.type === 'dropped'))).toEqual([]);
    expect(serve.events.filter((e) => e.type === 'frame-ignored' && e.serial === serial).map((e) => e.payload))
      .toEqual([{ method: 'state', reason: 'state: params.serial is missing', count: 1 }]);
    expect(serve.fleet.details(serial)).toMatchObject({ state: 'online.idle', lastState: undefined, ignoredFrames: 1, status: { connected: true, messageCount: 3 } });
  });

  it('drops an AP after 10 protocol errors', async () => {
    const serial = 'a0b1c2000052';
    const c = await ap();
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    for (let i = 0; i < 12; i++) c.send(`{"garbage": ${i}}`);
    const { code } = await c.closed;
    // The edge counts to 10 and closes (4002); the actor counts too and may ask first (4001).
    expect([4001, 4002]).toContain(code);
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === false)).toBe(true);
    expect(serve.events.some((e) => e.type === 'dropped' && e.serial === serial && e.payload.reason === 'protocol-errors')).toBe(true);
  });

  it('kills the connection on a binary frame and on a frame over the size limit', async () => {
    const bin = await ap();
    bin.sendBinary(Buffer.from([1, 2, 3]));
    expect((await bin.closed).code).toBe(1003);
    const big = await ap();
    big.send(JSON.stringify(logFrame('a0b1c2000053', 'x'.repeat(70 * 1024))));
    expect((await big.closed).code).toBe(1009);
  });

  it('closes an idle AP and takes it offline', async () => {
    const serial = 'a0b1c2000054';
    const c = await ap();
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    const { code } = await c.closed;
    expect(code).toBe(4000);
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === false)).toBe(true);
  });
});
