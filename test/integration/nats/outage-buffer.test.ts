import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { OutageBuffer } from '../../../src/links/edge/outage-buffer.js';
import { connectNats, type LinkLogger } from '../../../src/links/nats/connect.js';
import { startNats, waitFor, type TestNats } from './harness.js';

describe('OutageBuffer (edge frames while NATS is down)', () => {
  let nats: TestNats;
  let pub: NatsConnection;
  let sub: NatsConnection;
  const got: { subject: string; data: string; at?: string }[] = [];
  const logs: string[] = [];
  const logger: LinkLogger = { info: (_o, m) => logs.push(`info ${m}`), warn: (_o, m) => logs.push(`warn ${m}`), error: (_o, m) => logs.push(`error ${m}`) };

  beforeAll(async () => {
    nats = await startNats({ jetstream: false });
    pub = await connectNats({ url: nats.url, name: 'edge', logger });
    sub = await connectNats({ url: nats.url, name: 'serve', logger });
    sub.subscribe('t.>', { callback: (_e, m) => { got.push({ subject: m.subject, data: m.string(), at: m.headers?.get('at') }); } });
    await sub.flush();
  });
  afterAll(async () => {
    await pub?.close();
    await sub?.close();
    await nats?.stop();
  });

  it('publishes straight through, holds in order while held, keeps presence past the limit and counts what it loses', async () => {
    const buf = new OutageBuffer(pub, 13, logger);
    buf.publish('t.up', 'live');
    await pub.flush();
    expect(await waitFor(() => got.length === 1)).toBe(true);

    buf.hold();
    const h = headers();
    h.set('at', '1234');
    buf.publish('t.up', 'held-1', h);
    buf.publish('t.up', new TextEncoder().encode('held-2'));
    // 16 bytes would pass the limit of 13: lost and counted, and so is all that follows, even
    // what would fit, so the held frames have no hole; presence is kept anyway.
    buf.publish('t.up', 'lost');
    buf.publish('t.up', 'x');
    buf.publish('t.presence', '{"event":"disconnect"}', undefined, true);
    expect(buf.counters).toEqual({ held: 3, heldSent: 0, lostInOutage: 2, publishFailures: 0 });
    // Whatever pub sent reached the server, and whatever the server sent sub was read.
    await pub.flush();
    await sub.flush();
    expect(got).toHaveLength(1);

    buf.release();
    buf.publish('t.up', 'after');
    await pub.flush();
    expect(await waitFor(() => got.length === 5)).toBe(true);
    expect(got.map((g) => g.data)).toEqual(['live', 'held-1', 'held-2', '{"event":"disconnect"}', 'after']);
    expect(got[1]!.at).toBe('1234');
    expect(buf.counters).toEqual({ held: 0, heldSent: 3, lostInOutage: 2, publishFailures: 0 });
    expect(logs.filter((l) => l.includes('outage buffer full'))).toHaveLength(1);
    expect(logs).toContain('info NATS is back: held frames sent');
  });

  it('counts what is still held when the edge closes as lost', () => {
    const buf = new OutageBuffer(pub, 1000, logger);
    buf.hold();
    buf.publish('t.up', 'a');
    buf.publish('t.up', 'b');
    buf.discard();
    expect(buf.counters).toEqual({ held: 0, heldSent: 0, lostInOutage: 2, publishFailures: 0 });
    expect(logs).toContain('warn edge closed while NATS was down: held frames are lost');
  });
});
