import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { Fleet, type FleetEvent } from '../../../actors/fleet.js';
import { connectNats, silentLogger } from '../../../src/links/nats/connect.js';
import { NatsLinkManager } from '../../../src/links/nats/nats-link-manager.js';
import { ACK_INTERVAL_MS, DEFAULT_DURABLE, STREAM, ensureStream, upSubject } from '../../../src/links/nats/subjects.js';
import { wallClock, type Clock } from '../../../src/protocol/clock.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { logFrame } from './frames.js';
import { apAgent, startNats, waitFor, type TestNats } from './harness.js';

/**
 * Acknowledgement semantics of serve's NATS link: a frame is acknowledged (cumulatively) only
 * once `persisted()` says what it became is stored, so a serve that dies before that gets the
 * frame again from JetStream after a restart, and one that closed cleanly does not.
 */
describe('NATS link acknowledgements', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });
  const serial = 'a0b1c2000020';
  const logsOf = (events: FleetEvent[]) => events.filter((e) => e.type === 'log').map((e) => (e.payload as { log: string }).log);

  async function publisher(nats: TestNats) {
    const nc = await connectNats({ url: nats.url, name: 'ap-agent', logger: silentLogger });
    cleanups.push(() => nc.close());
    await ensureStream(await jetstreamManager(nc));
    const agent = apAgent(nc, [serial]);
    return { nc, pub: agent.pub, session: () => agent.session(serial) };
  }

  /** A serve side on its own connection, so a test can cut it without a clean close (a crash). */
  async function serveSide(nats: TestNats, persisted?: () => Promise<void>, wall?: Clock) {
    const nc: NatsConnection = await connectNats({ url: nats.url, name: 'serve', logger: silentLogger });
    const fleet = new Fleet({ clock: wallClock, newId: randomUUID });
    const events: FleetEvent[] = [];
    fleet.events$.subscribe((e) => events.push(e));
    const manager = await NatsLinkManager.start({ nc, logger: silentLogger, onDevice: (l) => fleet.attach(l), persisted, ...(wall ? { wall } : {}) });
    let ended = false;
    const stop = async () => {
      if (ended) return;
      ended = true;
      await manager.close();
      fleet.stopAll();
      await nc.close();
    };
    cleanups.push(stop);
    return { nc, fleet, events, manager, stop, crash: async () => {
      ended = true;
      await nc.close();
      await manager.close();
      fleet.stopAll();
    } };
  }

  it('acks nothing until persisted() resolves: a serve that dies first gets its frames again', async () => {
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const ap = await publisher(nats);
    await ap.session();
    const never = new Promise<void>(() => undefined);
    let asked = 0;
    const wall = new VirtualClock(Date.now());
    const first = await serveSide(nats, () => { asked++; return never; }, wall);
    for (let i = 0; i < 3; i++) await ap.pub(upSubject(serial), logFrame(serial, `log ${i}`));
    expect(await waitFor(() => logsOf(first.events).length === 3)).toBe(true);
    // Past the ack interval: the cycle is waiting on persisted(), so nothing is acknowledged.
    wall.increment(ACK_INTERVAL_MS);
    expect(asked).toBe(1);
    expect(first.manager.status().acked).toBe(0);
    expect(first.manager.status().unacked).toBeGreaterThanOrEqual(5);
    await first.crash();

    const second = await serveSide(nats, () => Promise.resolve());
    expect(await waitFor(() => logsOf(second.events).length === 3)).toBe(true);
    expect(logsOf(second.events)).toEqual(['log 0', 'log 1', 'log 2']);
    expect(await waitFor(() => second.manager.status().acked >= 5 && second.manager.status().unacked === 0, 5000)).toBe(true);
  });

  it('a serve that closed cleanly acknowledged everything: the next one gets only new frames', async () => {
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const ap = await publisher(nats);
    await ap.session();
    let persistedCalls = 0;
    const first = await serveSide(nats, async () => { persistedCalls++; });
    for (let i = 0; i < 3; i++) await ap.pub(upSubject(serial), logFrame(serial, `old ${i}`));
    expect(await waitFor(() => logsOf(first.events).length === 3)).toBe(true);
    await first.stop();
    expect(persistedCalls).toBeGreaterThan(0);
    expect(first.manager.status().acked).toBeGreaterThanOrEqual(5);
    expect(first.manager.status().unacked).toBe(0);

    await ap.pub(upSubject(serial), logFrame(serial, 'new'));
    const second = await serveSide(nats);
    expect(await waitFor(() => logsOf(second.events).includes('new'))).toBe(true);
    expect(logsOf(second.events)).toEqual(['new']);
  });

  it('makes a durable with per-message acks again from its ack floor, skipping only what it acked', async () => {
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const ap = await publisher(nats);
    await ap.session();
    for (let i = 0; i < 4; i++) await ap.pub(upSubject(serial), logFrame(serial, `log ${i}`));
    // An older serve: explicit acks, and it acknowledged the session and the first two logs.
    const jsm = await jetstreamManager(ap.nc);
    await jsm.consumers.add(STREAM, { durable_name: DEFAULT_DURABLE, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    const old = await jetstream(ap.nc).consumers.get(STREAM, DEFAULT_DURABLE);
    const batch = await old.fetch({ max_messages: 4, expires: 2000 });
    for await (const m of batch) await m.ackAck(); // confirmed by the server before its info is read
    expect((await jsm.consumers.info(STREAM, DEFAULT_DURABLE)).ack_floor.stream_seq).toBe(4);

    const serve = await serveSide(nats, () => Promise.resolve());
    expect(await waitFor(() => logsOf(serve.events).length === 2)).toBe(true);
    expect(logsOf(serve.events)).toEqual(['log 2', 'log 3']);
    expect((await jsm.consumers.info(STREAM, DEFAULT_DURABLE)).config.ack_policy).toBe(AckPolicy.All);
  });
});
