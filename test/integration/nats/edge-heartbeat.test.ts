import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { VirtualClock } from '../../../simulator/clock.js';
import { EDGE_ALIVE_SUBJECT, isEdgeAlive } from '../../../src/links/nats/subjects.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame } from './frames.js';
import { apAgent, startEdgeSide, startNats, startServeSide, waitFor, type Serve, type TestNats } from './harness.js';

/*
 * serve judges the edges on a VirtualClock (the manager's `wall`), the edges beat every 100 ms of
 * wall time. A test moves serve's time on by one interval only after it saw an edge's next beat
 * on its own connection: nats-server sent serve that beat too, and serve's judge catches up on
 * its socket (a NATS flush) before it calls anyone lost. So a beating edge is never judged lost
 * however slow the machine is, and a silent one is as soon as three intervals pass.
 */
const BEAT_MS = 100;

/** Counts the beats of every edge, as serve receives them. */
async function beatWatcher(url: string) {
  const nc: NatsConnection = await connect({ servers: url });
  const beats = new Map<string, number>();
  nc.subscribe(EDGE_ALIVE_SUBJECT, { callback: (err, m) => {
    const a: unknown = err ? undefined : JSON.parse(m.string());
    if (isEdgeAlive(a)) beats.set(a.edge, (beats.get(a.edge) ?? 0) + 1);
  } });
  await nc.flush();
  return {
    /** Waits for the next beat of `edge`. */
    next: async (edge: string): Promise<boolean> => {
      const seen = beats.get(edge) ?? 0;
      return waitFor(() => (beats.get(edge) ?? 0) > seen, 15_000);
    },
    close: () => nc.close(),
  };
}

describe('serve watches the edges beat', () => {
  let nats: TestNats;
  let serve: Serve;
  let watcher: Awaited<ReturnType<typeof beatWatcher>>;
  const clock = new VirtualClock(Date.now());
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url, undefined, {}, undefined, { wall: clock });
    watcher = await beatWatcher(nats.url);
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await watcher?.close();
    await serve?.stop();
    await nats?.stop();
  });

  /** `beats` intervals of serve's time, each once `edge` beat again. */
  async function beatsPass(edge: string, beats: number): Promise<void> {
    for (let i = 0; i < beats; i++) {
      expect(await watcher.next(edge)).toBe(true);
      clock.increment(BEAT_MS);
    }
  }

  async function apThrough(edgeUrl: string, serial: string): Promise<WsApClient> {
    const ap = new WsApClient({ url: `${edgeUrl}/` });
    cleanups.push(() => ap.terminate());
    await ap.opened;
    ap.send(connectFrame(serial));
    return ap;
  }

  it('takes the APs of an edge that stopped beating offline, and keeps those of a beating edge online', async () => {
    const crashing = await startEdgeSide(nats.url, { heartbeatMs: BEAT_MS });
    const healthy = await startEdgeSide(nats.url, { heartbeatMs: BEAT_MS });
    cleanups.push(() => healthy.stop(), () => crashing.stop());
    await apThrough(crashing.edge.url, 'a0b1c2000071');
    await apThrough(healthy.edge.url, 'a0b1c2000072');
    expect(await waitFor(() => serve.fleet.status('a0b1c2000071')?.connected === true && serve.fleet.status('a0b1c2000072')?.connected === true)).toBe(true);
    expect(await waitFor(() => serve.manager.status().edges === 2)).toBe(true);
    // Well past three intervals: beats keep both online.
    for (let i = 0; i < 6; i++) {
      expect(await watcher.next(crashing.edge.id)).toBe(true);
      await beatsPass(healthy.edge.id, 1);
    }
    expect(serve.fleet.status('a0b1c2000071')?.connected).toBe(true);

    // What a kill -9 of the edge process looks like from serve: its NATS connection is gone, no
    // disconnect presence is sent, and its AP sockets are of no use to anyone.
    await crashing.nc.close();
    await beatsPass(healthy.edge.id, 3);
    expect(await waitFor(() => serve.fleet.status('a0b1c2000071')?.connected === false)).toBe(true);
    const gone = serve.events.find((e) => e.serial === 'a0b1c2000071' && e.type === 'disconnected');
    expect(gone?.type === 'disconnected' && gone.payload.reason).toBe(`edge ${crashing.edge.id} stopped answering (no heartbeat for 0.3 s)`);
    await expect(serve.svc.ping('a0b1c2000071')).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    await beatsPass(healthy.edge.id, 6);
    expect(serve.fleet.status('a0b1c2000072')?.connected).toBe(true);
    expect(serve.manager.status()).toMatchObject({ edges: 1, edgesLost: 1 });
    await healthy.stop();
    expect(await waitFor(() => serve.manager.status().edges === 0)).toBe(true);
  });

  it('forgets an edge that closes cleanly without calling it lost', async () => {
    const closing = await startEdgeSide(nats.url, { heartbeatMs: BEAT_MS });
    await apThrough(closing.edge.url, 'a0b1c2000073');
    expect(await waitFor(() => serve.fleet.status('a0b1c2000073')?.connected === true)).toBe(true);
    const before = serve.manager.status();
    await closing.stop();
    expect(await waitFor(() => serve.manager.status().edges === before.edges - 1)).toBe(true);
    expect(await waitFor(() => serve.fleet.status('a0b1c2000073')?.connected === false)).toBe(true);
    const gone = serve.events.find((e) => e.serial === 'a0b1c2000073' && e.type === 'disconnected');
    expect(gone?.type === 'disconnected' && gone.payload.reason).toMatch(/^socket closed \(1001/);
    // Its deadline went with its last beat: nothing is left to judge.
    clock.increment(10 * BEAT_MS);
    expect(serve.manager.status().edgesLost).toBe(before.edgesLost);
  });

  it('gives the edges it knew a fresh deadline after a NATS outage, and calls lost one that never beats again', async () => {
    const { edges: edgesBefore, edgesLost: lostBefore } = serve.manager.status();
    const staying = await startEdgeSide(nats.url, { heartbeatMs: BEAT_MS });
    const dying = await startEdgeSide(nats.url, { heartbeatMs: BEAT_MS });
    cleanups.push(() => staying.stop(), () => dying.stop());
    expect(await waitFor(() => serve.manager.status().edges === edgesBefore + 2)).toBe(true);
    await nats.kill();
    expect(await waitFor(() => serve.manager.status().link === 'reconnecting')).toBe(true);
    // Far longer than three beats: no edge is judged while serve cannot hear any.
    clock.increment(100 * BEAT_MS);
    expect(serve.manager.status()).toMatchObject({ edges: edgesBefore + 2, edgesLost: lostBefore });
    await dying.nc.close();
    await nats.start();
    expect(await waitFor(() => serve.manager.status().link === 'connected', 15_000)).toBe(true);
    // The staying edge beats through its fresh deadline; the dying one never beats again.
    await beatsPass(staying.edge.id, 3);
    expect(await waitFor(() => serve.manager.status().edgesLost === lostBefore + 1)).toBe(true);
    await beatsPass(staying.edge.id, 6);
    expect(serve.manager.status()).toMatchObject({ edges: edgesBefore + 1, edgesLost: lostBefore + 1 });
  }, 60_000);
});

describe('an edge that died before serve started', () => {
  let nats: TestNats;
  let serve: Serve | undefined;
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await serve?.stop();
    await nats?.stop();
  });

  it('takes the APs its frames in the stream bring online offline, and never judges a publisher that does not beat', async () => {
    const dead = await startEdgeSide(nats.url, { heartbeatMs: 100 });
    cleanups.push(() => dead.stop());
    const ap = new WsApClient({ url: `${dead.edge.url}/` });
    cleanups.push(() => ap.terminate());
    await ap.opened;
    ap.send(connectFrame('a0b1c2000081'));
    expect(await waitFor(() => dead.edge.stats().framesUp >= 1)).toBe(true);
    await dead.nc.flush();
    // Killed: no disconnect presence, no last beat. Its presence and connect wait in the stream.
    await dead.nc.close();
    // An AP-side agent that does not beat (its presence names no beatMs).
    const agentNc = await connect({ servers: nats.url });
    cleanups.push(() => agentNc.drain());
    await apAgent(agentNc, ['a0b1c2000082']).session('a0b1c2000082');

    const clock = new VirtualClock(Date.now());
    serve = await startServeSide(nats.url, undefined, {}, undefined, { wall: clock });
    const s = serve;
    expect(await waitFor(() => s.events.some((e) => e.serial === 'a0b1c2000081' && e.type === 'connected'), 10_000)).toBe(true);
    expect(await waitFor(() => s.fleet.status('a0b1c2000082')?.connected === true, 10_000)).toBe(true);
    // Its connect announced it beats every 100 ms: three of those pass on serve's clock.
    clock.increment(300);
    expect(await waitFor(() => s.fleet.status('a0b1c2000081')?.connected === false)).toBe(true);
    const gone = s.events.find((e) => e.serial === 'a0b1c2000081' && e.type === 'disconnected');
    expect(gone?.type === 'disconnected' && gone.payload.reason).toBe(`edge ${dead.edge.id} stopped answering (no heartbeat for 0.3 s)`);
    expect(s.manager.status()).toMatchObject({ edges: 0, edgesLost: 1 });
    // The agent announced no beat, so nothing judges it, however long.
    clock.increment(60_000);
    expect(s.fleet.status('a0b1c2000082')?.connected).toBe(true);
    expect(s.manager.status()).toMatchObject({ edges: 0, edgesLost: 1 });
  });
});

describe('on wall time (smoke)', () => {
  let nats: TestNats;
  let serve: Serve | undefined;
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await serve?.stop();
    await nats?.stop();
  });

  it('takes the AP of a killed edge offline with the real clocks on both sides', async () => {
    serve = await startServeSide(nats.url);
    const s = serve;
    const edge = await startEdgeSide(nats.url, { heartbeatMs: 200 });
    cleanups.push(() => edge.stop());
    const ap = new WsApClient({ url: `${edge.edge.url}/` });
    cleanups.push(() => ap.terminate());
    await ap.opened;
    ap.send(connectFrame('a0b1c2000091'));
    expect(await waitFor(() => s.fleet.status('a0b1c2000091')?.connected === true)).toBe(true);
    await edge.nc.close();
    // Wide bounds: the deadline is 0.6 s, a loaded machine may take far longer to get there.
    expect(await waitFor(() => s.fleet.status('a0b1c2000091')?.connected === false, 30_000)).toBe(true);
    expect(s.manager.status().edgesLost).toBe(1);
  }, 60_000);
});
