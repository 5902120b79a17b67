import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame, resultFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

describe('several edges at once', () => {
  let nats: TestNats;
  let serve: Serve;
  let a: EdgeSide;
  let b: EdgeSide;
  const clients: WsApClient[] = [];
  const serial = 'a0b1c2000070';
  const answered: string[] = [];
  const ap = async (edge: EdgeSide, name: string) => {
    const c: WsApClient = new WsApClient({
      url: `${edge.edge.url}/`,
      onCommand: (f) => { answered.push(name); c.send(resultFrame(serial, f.id)); },
    });
    clients.push(c);
    await c.opened;
    c.send(connectFrame(serial));
    return c;
  };

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    a = await startEdgeSide(nats.url);
    b = await startEdgeSide(nats.url);
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    await a?.stop();
    await b?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('follows an AP that reconnects through another edge; the stale socket is closed and its disconnect ignored', async () => {
    const first = await ap(a, 'a');
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    const presenceBefore = serve.manager.status().presence;
    const second = await ap(b, 'b');
    // Edge a sees the AP's new presence and drops its stale socket.
    expect((await first.closed).code).toBe(4004);
    expect(await waitFor(() => a.edge.stats().sessions === 0 && b.edge.stats().sessions === 1)).toBe(true);
    // serve took the new connect and the stale socket's disconnect, and ignored the latter.
    expect(await waitFor(() => serve.manager.status().presence >= presenceBefore + 2)).toBe(true);
    expect(serve.fleet.status(serial)?.connected).toBe(true);

    const { command } = await serve.svc.ping(serial);
    expect(command.status).toBe('completed');
    expect(answered).toEqual(['b']);
    expect(second.isOpen).toBe(true);
  });
});
