/**
 * Issue 33 point 8 (the edge): silent connections are cut after the handshake timeout, before and
 * after the websocket upgrade, and the device port takes at most `maxConnections` sockets.
 */
import { createConnection, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame } from './frames.js';
import { startEdgeSide, startNats, waitFor, type EdgeSide, type TestNats } from './harness.js';

const tcp = (port: number) => new Promise<Socket>((resolve, reject) => {
  const s = createConnection({ port, host: '127.0.0.1' }, () => resolve(s));
  s.once('error', reject);
});
const closed = (s: Socket) => new Promise<void>((resolve) => {
  if (s.destroyed) return resolve();
  s.once('close', () => resolve());
});

describe('edge: handshake timeout and connection cap', () => {
  let nats: TestNats;
  let edge: EdgeSide;
  const clients: WsApClient[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    edge = await startEdgeSide(nats.url, { limits: { handshakeTimeoutMs: 300, maxConnections: 4 } });
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    for (const s of sockets) s.destroy();
    await edge?.stop();
    await nats?.stop();
  });

  it('cuts a TCP connection that never sends its upgrade request, and one that sends half of it', async () => {
    const before = edge.edge.stats().handshakeTimeouts;
    const silent = await tcp(edge.edge.port);
    const half = await tcp(edge.edge.port);
    sockets.push(silent, half);
    half.write('GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n');
    silent.on('error', () => undefined);
    half.on('error', () => undefined);
    await Promise.all([closed(silent), closed(half)]);
    expect(edge.edge.stats().handshakeTimeouts - before).toBe(2);
  });

  it('closes a websocket that sends no connect in time, and keeps one that did', async () => {
    const quiet = new WsApClient({ url: `${edge.edge.url}/ws` });
    const talker = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(quiet, talker);
    await Promise.all([quiet.opened, talker.opened]);
    talker.send(connectFrame('a0b1c2000301'));
    const { code, reason } = await quiet.closed;
    expect([code, reason]).toEqual([4000, 'no connect in time']);
    expect(await waitFor(() => edge.edge.stats().sessions === 1)).toBe(true);
    talker.terminate();
    await talker.closed;
  });

  it('refuses connections past maxConnections, counted, and takes new ones when some close', async () => {
    expect(await waitFor(() => edge.edge.stats().sockets === 0)).toBe(true);
    const aps = Array.from({ length: 4 }, () => new WsApClient({ url: `${edge.edge.url}/ws` }));
    clients.push(...aps);
    await Promise.all(aps.map((c) => c.opened));
    aps.forEach((c, i) => c.send(connectFrame(`a0b1c200031${i}`)));
    expect(await waitFor(() => edge.edge.stats().sessions === 4)).toBe(true);
    const before = edge.edge.stats().refusedConnections;
    const fifth = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(fifth);
    await expect(fifth.opened).rejects.toThrow();
    expect(edge.edge.stats().refusedConnections - before).toBe(1);
    aps[0]!.terminate();
    await aps[0]!.closed;
    expect(await waitFor(() => edge.edge.stats().sockets === 3)).toBe(true);
    const sixth = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(sixth);
    await sixth.opened;
    sixth.send(connectFrame('a0b1c2000320'));
    expect(await waitFor(() => edge.edge.stats().sessions === 4)).toBe(true);
  });
});
