import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { EDGE_AHEAD_MS, edgeTime } from '../../../src/links/nats/nats-link-manager.js';
import { presenceSubject, upSubject } from '../../../src/links/nats/subjects.js';
import { connectFrame, logFrame } from './frames.js';
import { apAgent, startNats, startServeSide, waitFor, type Serve, type TestNats } from './harness.js';

/**
 * serve dates a frame by when the edge took it from the AP (`Airtwin-At`), not when serve gets it:
 * frames come late from JetStream's backlog and from an edge's outage buffer. A time an edge
 * cannot have meant (garbled, far ahead of nats-server, older than any outage) gives way to when
 * nats-server stored the message, and is counted.
 */
describe('the time serve gives a frame from NATS', () => {
  let nats: TestNats;
  let serve: Serve;
  let nc: NatsConnection;
  const serial = 'a0b1c2000070';
  const logAt = (text: string) => serve.events.find((e) => e.type === 'log' && e.serial === serial && e.payload.log === text)?.at;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.drain();
    await serve?.stop();
    await nats?.stop();
  });

  it('keeps the edge time of a frame held for an hour, and replaces one it cannot have meant', async () => {
    const { pub } = apAgent(nc, [serial]);
    const hourAgo = Date.now() - 3_600_000;
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: hourAgo });
    await pub(upSubject(serial), connectFrame(serial), String(hourAgo));
    await pub(upSubject(serial), logFrame(serial, 'held an hour'), String(hourAgo + 1000));
    const before = Date.now();
    await pub(upSubject(serial), logFrame(serial, 'garbled time'), 'yesterday');
    await pub(upSubject(serial), logFrame(serial, 'edge clock a day ahead'), String(Date.now() + 86_400_000));
    await pub(upSubject(serial), logFrame(serial, 'edge clock at 1970'), '5');
    const after = Date.now();
    expect(await waitFor(() => logAt('edge clock at 1970') !== undefined, 15_000)).toBe(true);

    expect(serve.events.find((e) => e.type === 'connected' && e.serial === serial)?.at).toBe(hourAgo);
    expect(logAt('held an hour')).toBe(hourAgo + 1000);
    for (const text of ['garbled time', 'edge clock a day ahead', 'edge clock at 1970']) {
      expect(logAt(text)).toBeGreaterThanOrEqual(before - 1000);
      expect(logAt(text)).toBeLessThanOrEqual(after + 1000);
    }
    expect(serve.manager.status().redated).toBe(3);

    // A presence with a time it cannot have meant: its disconnect is dated when nats-server stored it.
    await pub(presenceSubject(serial), { event: 'disconnect', edge: 'agent', at: 5, reason: 'socket closed' });
    expect(await waitFor(() => serve.events.some((e) => e.type === 'disconnected' && e.serial === serial), 15_000)).toBe(true);
    expect(serve.events.find((e) => e.type === 'disconnected' && e.serial === serial)?.at).toBeGreaterThanOrEqual(after - 1000);
    expect(serve.manager.status().redated).toBe(4);
  });

  it('bounds what an edge time may claim against when nats-server stored the message', () => {
    const stored = 1_700_000_000_000;
    expect(edgeTime(stored - 3_600_000, stored)).toBe(stored - 3_600_000);
    expect(edgeTime(stored + EDGE_AHEAD_MS, stored)).toBe(stored + EDGE_AHEAD_MS);
    expect(edgeTime(stored + EDGE_AHEAD_MS + 1, stored)).toBeUndefined();
    expect(edgeTime(stored - 8 * 86_400_000, stored)).toBeUndefined();
    expect(edgeTime(Number.NaN, stored)).toBeUndefined();
    expect(edgeTime(0, stored)).toBeUndefined();
  });
});
