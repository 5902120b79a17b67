/**
 * Issue 33 point 1: a frame NATS refuses (over the server's max_payload) is a counted rejection
 * of that frame, never a crash of the edge; an AP that keeps sending such frames is dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateParams } from '../../../src/protocol/compress.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame, logFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const MAX_PAYLOAD = 64 * 1024;

describe('edge: frames NATS cannot take', () => {
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  const clients: WsApClient[] = [];
  const ap = async (serial: string) => {
    const c = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(c);
    await c.opened;
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    return c;
  };
  const logged = (serial: string, text: string) => serve.events.some((e) => e.type === 'log' && e.serial === serial && JSON.stringify(e.payload).includes(text));

  beforeAll(async () => {
    nats = await startNats({ jetstream: true, maxPayload: MAX_PAYLOAD });
    serve = await startServeSide(nats.url);
    edge = await startEdgeSide(nats.url);
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('refuses a 4 KB compress_64 state that inflates to 3 MiB; the edge and other APs go on', async () => {
    const bomb = 'a0b1c2000101';
    const other = 'a0b1c2000102';
    const a = await ap(bomb);
    const b = await ap(other);
    const params = deflateParams({ serial: bomb, uuid: 1, state: { unit: { blob: 'x'.repeat(3 * 1024 * 1024) } } });
    const frame = JSON.stringify({ jsonrpc: '2.0', method: 'state', params });
    expect(frame.length).toBeLessThan(8 * 1024);
    const before = edge.edge.stats().protocolErrors;
    a.send(frame);
    expect(await waitFor(() => edge.edge.stats().protocolErrors === before + 1)).toBe(true);
    b.send(logFrame(other, 'after the bomb'));
    expect(await waitFor(() => logged(other, 'after the bomb'))).toBe(true);
    a.send(logFrame(bomb, 'the bomber still talks'));
    expect(await waitFor(() => logged(bomb, 'the bomber still talks'))).toBe(true);
  });

  it('counts a plain frame over max_payload as a publish failure; repeated, the AP is dropped', async () => {
    const big = 'a0b1c2000103';
    const other = 'a0b1c2000104';
    const a = await ap(big);
    const b = await ap(other);
    const huge = JSON.stringify(logFrame(big, 'y'.repeat(MAX_PAYLOAD * 2)));
    expect(huge.length).toBeLessThan(512_000);
    a.send(huge);
    expect(await waitFor(() => edge.edge.stats().publishFailures === 1)).toBe(true);
    a.send(logFrame(big, 'one refusal is not fatal'));
    expect(await waitFor(() => logged(big, 'one refusal is not fatal'))).toBe(true);
    for (let i = 0; i < 20; i++) a.send(huge);
    const { code } = await a.closed;
    expect(code).toBe(4002);
    expect(edge.edge.stats().publishFailures).toBeGreaterThanOrEqual(10);
    b.send(logFrame(other, 'unaffected'));
    expect(await waitFor(() => logged(other, 'unaffected'))).toBe(true);
  });
});
