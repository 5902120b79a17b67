/**
 * Issue 33 point 9: one AP cannot flood the twin. Over its budget its frames are dropped and
 * counted, at the edge and in serve; an AP that stays over it is disconnected; other APs go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { VirtualClock } from '../../../simulator/clock.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { downSubject, ensureStream, presenceSubject, upSubject, HDR_CONTROL } from '../../../src/links/nats/subjects.js';
import { connectFrame, logFrame } from './frames.js';
import { apAgent, startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const logsOf = (serve: Serve, serial: string) => serve.events.flatMap((e) => (e.type === 'log' && e.serial === serial ? [String(e.payload.log)] : []));

describe('per-AP frame budget at the edge', () => {
  const clock = new VirtualClock(Date.now());
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  const clients: WsApClient[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    // serve without a budget: what it gets is what the edge let through.
    serve = await startServeSide(nats.url, undefined, {}, (l) => l, { budget: { framesPerS: 0, bytesPerS: 0, burstS: 1, strikes: 0 } });
    // The budget runs on the edge's clock: the test moves it a second at a time (and beats
    // rarely, so serve's wall clock does not miss them meanwhile).
    edge = await startEdgeSide(nats.url, { clock, heartbeatMs: 3_600_000, limits: { budget: { framesPerS: 20, bytesPerS: 0, burstS: 1, strikes: 2 } } });
  });
  afterAll(async () => {
    for (const c of clients) c.terminate();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('drops and counts a flood, disconnects the flooder, and every frame of a quiet AP arrives', async () => {
    const flooder = 'a0b1c2000201';
    const quiet = 'a0b1c2000202';
    const a = new WsApClient({ url: `${edge.edge.url}/ws` });
    const b = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(a, b);
    await Promise.all([a.opened, b.opened]);
    a.send(connectFrame(flooder));
    b.send(connectFrame(quiet));
    expect(await waitFor(() => serve.fleet.status(flooder)?.connected === true && serve.fleet.status(quiet)?.connected === true)).toBe(true);

    let closed: { code: number; reason: string } | undefined;
    void a.closed.then((c) => { closed = c; });
    let sent = 0;
    let quietSent = 0;
    // One second of the edge's clock a round: 200 frames from the flooder (ten times its budget)
    // and one log from the quiet AP, all taken by the edge before its clock moves on.
    let seconds = 0;
    while (edge.edge.stats().droppedForRate === 0 && seconds < 10) {
      for (let i = 0; i < 200; i++) a.send(logFrame(flooder, `flood ${sent++}`));
      b.send(logFrame(quiet, `quiet ${quietSent++}`));
      const taken = 2 + sent + quietSent;
      expect(await waitFor(() => edge.edge.stats().droppedForRate > 0 || edge.edge.stats().framesUp + edge.edge.stats().rateLimited >= taken)).toBe(true);
      seconds++;
      clock.increment(1000);
    }
    // Cut in its second second over budget (strikes: 2).
    expect(seconds).toBe(2);
    expect(await waitFor(() => closed !== undefined)).toBe(true);
    expect(closed).toEqual({ code: 4005, reason: 'over its frame budget' });
    const stats = edge.edge.stats();
    expect(stats.droppedForRate).toBe(1);
    expect(stats.rateLimited).toBeGreaterThanOrEqual(180);
    expect(await waitFor(() => serve.fleet.status(flooder)?.connected === false)).toBe(true);
    // What the edge let through is at most the burst plus the rate over the second it ran.
    expect(logsOf(serve, flooder).length).toBeLessThanOrEqual(20 + 20);
    b.send(logFrame(quiet, 'last'));
    expect(await waitFor(() => logsOf(serve, quiet).includes('last'))).toBe(true);
    expect(logsOf(serve, quiet)).toEqual([...Array.from({ length: quietSent }, (_, i) => `quiet ${i}`), 'last']);
    expect(serve.fleet.status(quiet)?.connected).toBe(true);
  });
});

describe('per-AP frame budget in serve (frames over NATS)', () => {
  let nats: TestNats;
  let serve: Serve;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    nc = await connect({ servers: nats.url });
    await ensureStream(await jetstreamManager(nc));
    serve = await startServeSide(nats.url, undefined, {}, (l) => l, { budget: { framesPerS: 10, bytesPerS: 0, burstS: 1, strikes: 3 } });
  });
  afterAll(async () => {
    await serve?.stop();
    await nc?.drain();
    await nats?.stop();
  });

  it('judges frames by when the edge took them: drops what is over, cuts a persistent offender', async () => {
    const flooder = 'a0b1c2000211';
    const quiet = 'a0b1c2000212';
    const { pub } = apAgent(nc, []);
    const closes: string[] = [];
    nc.subscribe(downSubject(flooder), { callback: (_e, m) => { if (m.headers?.get(HDR_CONTROL) === 'close') closes.push(flooder); } });
    const t0 = Date.now() - 30_000;
    for (const s of [flooder, quiet]) {
      await pub(presenceSubject(s), { event: 'connect', edge: 'agent', at: t0 });
      await pub(upSubject(s), connectFrame(s), String(t0));
    }
    // Second 1: 30 frames in one millisecond; the bucket (10) refilled since the connect.
    for (let i = 0; i < 30; i++) await pub(upSubject(flooder), logFrame(flooder, `s1 ${i}`), String(t0 + 1000));
    await pub(upSubject(quiet), logFrame(quiet, 'quiet 1'), String(t0 + 1000));
    expect(await waitFor(() => logsOf(serve, quiet).includes('quiet 1'))).toBe(true);
    expect(logsOf(serve, flooder)).toHaveLength(10);
    expect(serve.manager.status().rateLimited).toBe(20);
    expect(serve.fleet.status(flooder)?.connected).toBe(true);
    // Seconds 2 and 3 over budget too: the third second in a row disconnects it.
    for (const second of [2, 3]) {
      for (let i = 0; i < 30; i++) await pub(upSubject(flooder), logFrame(flooder, `s${second} ${i}`), String(t0 + second * 1000));
    }
    await pub(upSubject(quiet), logFrame(quiet, 'quiet 2'), String(t0 + 3000));
    expect(await waitFor(() => logsOf(serve, quiet).includes('quiet 2'))).toBe(true);
    expect(await waitFor(() => closes.length === 1)).toBe(true);
    expect(serve.manager.status().offenders).toBe(1);
    expect(serve.fleet.status(flooder)?.connected).toBe(false);
    expect(serve.fleet.status(quiet)?.connected).toBe(true);
  });
});
