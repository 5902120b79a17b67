/**
 * Issue 33 point 9: one AP cannot flood the twin. Over its budget its frames are dropped and
 * counted, at the edge and in serve; an AP that stays over it is disconnected; other APs go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { downSubject, ensureStream, presenceSubject, upSubject, HDR_CONTROL } from '../../../src/links/nats/subjects.js';
import { connectFrame, logFrame } from './frames.js';
import { apAgent, startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const logsOf = (serve: Serve, serial: string) => serve.events.flatMap((e) => (e.type === 'log' && e.serial === serial ? [String(e.payload.log)] : []));

describe('per-AP frame budget at the edge', () => {
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  const clients: WsApClient[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    // serve without a budget: what it gets is what the edge let through.
    serve = await startServeSide(nats.url, undefined, {}, (l) => l, { budget: { framesPerS: 0, bytesPerS: 0, burstS: 1, strikes: 0 } });
    edge = await startEdgeSide(nats.url, { limits: { budget: { framesPerS: 20, bytesPerS: 0, burstS: 1, strikes: 2 } } });
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
    // Until the flooder is cut (bounded: 60 s of wall time): 200 frames per 10 ms round from it,
    // one log every 100 ms from the quiet AP.
    for (let round = 0; closed === undefined && round < 6000; round++) {
      for (let i = 0; i < 200; i++) a.send(logFrame(flooder, `flood ${sent++}`));
      if (round % 10 === 0) b.send(logFrame(quiet, `quiet ${quietSent++}`));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(closed).toEqual({ code: 4005, reason: 'over its frame budget' });
    const stats = edge.edge.stats();
    expect(stats.droppedForRate).toBe(1);
    expect(stats.rateLimited).toBeGreaterThan(sent / 2);
    expect(await waitFor(() => serve.fleet.status(flooder)?.connected === false)).toBe(true);
    // What the edge let through is at most the burst plus the rate over the time it ran.
    expect(logsOf(serve, flooder).length).toBeLessThan(sent - stats.rateLimited + 1);
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
