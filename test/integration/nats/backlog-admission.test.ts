import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureStream, presenceSubject, upSubject } from '../../../src/links/nats/subjects.js';
import { connectFrame, logFrame } from './frames.js';
import { apAgent, startNats, startServeSide, waitFor, type Serve, type TestNats } from './harness.js';

/**
 * A serve that does not know an AP yet asks its admission hook (auto-provisioning writes the
 * device record: it takes a while). When the AP's whole session waits in the stream (the first
 * serve of a deployment, a fresh data dir), everything after the connect arrives during that
 * wait, the disconnect included.
 */
describe('a session of an unknown AP that arrives at once from the stream', () => {
  let nats: TestNats;
  let serve: Serve | undefined;
  let nc: NatsConnection;
  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    nc = await connect({ servers: nats.url });
    await ensureStream(await jetstreamManager(nc));
  });
  afterAll(async () => {
    await serve?.stop();
    await nc?.drain();
    await nats?.stop();
  });

  it('plays all of it, its disconnect and the next session in order, once the AP is admitted', async () => {
    const serial = 'a0b1c2000091';
    const { pub } = apAgent(nc, []);
    const t0 = Date.now() - 60_000;
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: t0 });
    await pub(upSubject(serial), connectFrame(serial), String(t0));
    const n = 300;
    for (let i = 0; i < n; i++) await pub(upSubject(serial), logFrame(serial, `log ${i}`), String(t0 + i));
    await pub(presenceSubject(serial), { event: 'disconnect', edge: 'agent', at: t0 + n, reason: 'socket closed' });
    // A second session of the same AP, in the same backlog.
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: t0 + n + 1 });
    await pub(upSubject(serial), connectFrame(serial), String(t0 + n + 1));
    await pub(upSubject(serial), logFrame(serial, 'second session'), String(t0 + n + 2));

    const admitted: string[] = [];
    serve = await startServeSide(nats.url, undefined, {
      isKnownDevice: (s) => admitted.includes(s),
      autoProvision: { onUnknownDevice: async (s) => { await new Promise((r) => setTimeout(r, 50)); admitted.push(s); return 'accept'; } },
    });
    const s = serve;
    const logs = () => s.events.flatMap((e) => (e.type === 'log' && e.serial === serial ? [e.payload.log] : []));
    expect(await waitFor(() => logs().includes('second session'), 15_000)).toBe(true);
    expect(logs()).toEqual([...Array.from({ length: n }, (_, i) => `log ${i}`), 'second session']);
    const lifecycle = s.events.filter((e) => e.serial === serial && (e.type === 'connected' || e.type === 'disconnected')).map((e) => e.type);
    expect(lifecycle).toEqual(['connected', 'disconnected', 'connected']);
    expect(s.events.filter((e) => e.serial === serial && (e.type === 'protocol-error' || e.type === 'dropped'))).toEqual([]);
    expect(s.fleet.status(serial)?.connected).toBe(true);
  });
});
