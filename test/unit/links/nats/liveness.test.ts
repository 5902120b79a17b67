import type { NatsConnection } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { EdgeLiveness, startHeartbeat, type LivenessPort } from '../../../../src/links/nats/liveness.js';
import { EDGE_ALIVE_SUBJECT, type EdgeAlive } from '../../../../src/links/nats/subjects.js';
import { VirtualClock } from '../../../../simulator/clock.js';

const T0 = 1_800_000_000_000;

/** A judge on virtual time whose catch-up runs `pending` (beats that were waiting to be read). */
function judge() {
  const clock = new VirtualClock(T0);
  const lost: { edge: string; silentMs: number; heard: boolean; at: number }[] = [];
  let pending: (() => void)[] = [];
  let catchUps = 0;
  let failCatchUp = false;
  const port: LivenessPort = {
    clock,
    caughtUp: async () => {
      catchUps++;
      const waiting = pending;
      pending = [];
      for (const deliver of waiting) deliver();
      if (failCatchUp) throw new Error('connection closed');
    },
    lost: (edge, silentMs, heard) => lost.push({ edge, silentMs, heard, at: clock.now() }),
  };
  const liveness = new EdgeLiveness(port);
  return {
    clock, liveness, lost,
    /** A beat that reached the socket but is not read until the judge catches up. */
    waiting: (deliver: () => void) => pending.push(deliver),
    catchUps: () => catchUps,
    failCatchUp: () => { failCatchUp = true; },
    /** Advance virtual time, then let the judgements it started finish. */
    advance: async (ms: number) => {
      clock.increment(ms);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('EdgeLiveness', () => {
  it('keeps an edge that beats and calls lost one that misses three beats', async () => {
    const j = judge();
    j.liveness.beat('a', 1000);
    j.liveness.beat('b', 1000);
    for (let i = 0; i < 10; i++) {
      await j.advance(1000);
      j.liveness.beat('a', 1000);
    }
    expect(j.lost).toEqual([{ edge: 'b', silentMs: 3000, heard: true, at: T0 + 3000 }]);
    expect(j.liveness.heard()).toBe(1);
  });

  it('reads a beat waiting in its socket before it judges', async () => {
    const j = judge();
    j.liveness.beat('a', 1000);
    // The process was busy past the deadline: the beat sent in time is still unread.
    j.waiting(() => j.liveness.beat('a', 1000));
    await j.advance(3000);
    expect(j.catchUps()).toBe(1);
    expect(j.lost).toEqual([]);
    // The beat it read gave a fresh deadline, which a real silence passes.
    await j.advance(3000);
    expect(j.lost.map((l) => [l.edge, l.at])).toEqual([['a', T0 + 6000]]);
  });

  it('forgets an edge that stopped cleanly', async () => {
    const j = judge();
    j.liveness.beat('a', 1000);
    j.liveness.stopped('a');
    await j.advance(10_000);
    expect(j.lost).toEqual([]);
    expect(j.liveness.heard()).toBe(0);
  });

  it('judges nobody while NATS is down, and gives every known edge a fresh deadline when it is back', async () => {
    const j = judge();
    j.liveness.beat('staying', 1000);
    j.liveness.beat('dying', 1000);
    await j.advance(1000);
    j.liveness.linkDown();
    await j.advance(60_000);
    expect(j.lost).toEqual([]);
    expect(j.liveness.heard()).toBe(2);
    j.liveness.linkUp();
    const back = j.clock.now();
    for (let i = 0; i < 5; i++) {
      await j.advance(1000);
      j.liveness.beat('staying', 1000);
    }
    expect(j.lost).toEqual([{ edge: 'dying', silentMs: 3000, heard: true, at: back + 3000 }]);
  });

  it('drops a judgement that NATS going down overtook while it caught up', async () => {
    const j = judge();
    j.liveness.beat('a', 1000);
    j.waiting(() => j.liveness.linkDown());
    await j.advance(3000);
    expect(j.lost).toEqual([]);
  });

  it('still judges when catching up fails on a connection that is up', async () => {
    const j = judge();
    j.failCatchUp();
    j.liveness.beat('a', 1000);
    await j.advance(3000);
    expect(j.lost.map((l) => l.edge)).toEqual(['a']);
  });

  it('judges an edge only announced by a connect, and leaves the deadline of a known edge alone', async () => {
    const j = judge();
    j.liveness.announced('dead', 100);
    j.liveness.announced('agent', undefined);
    j.liveness.beat('a', 1000);
    await j.advance(300);
    await j.advance(600);
    j.liveness.announced('a', 1000); // a connect is not a beat
    await j.advance(2100);
    expect(j.lost.map((l) => [l.edge, l.heard, l.at])).toEqual([['dead', false, T0 + 300], ['a', true, T0 + 3000]]);
  });

  it('announces nothing while NATS is down and judges nothing after close', async () => {
    const j = judge();
    j.liveness.linkDown();
    j.liveness.announced('x', 100);
    j.liveness.linkUp();
    await j.advance(1000);
    j.liveness.beat('a', 100);
    j.liveness.close();
    await j.advance(1000);
    expect(j.lost).toEqual([]);
  });
});

describe('startHeartbeat', () => {
  function fakeNc() {
    const beats: EdgeAlive[] = [];
    let closed = false;
    const nc = {
      isClosed: () => closed,
      publish: (subject: string, data: string) => { if (subject === EDGE_ALIVE_SUBJECT) beats.push(JSON.parse(data) as EdgeAlive); },
    } as unknown as NatsConnection;
    return { nc, beats, close: () => { closed = true; } };
  }

  it('beats at once and every interval on its clock, not while paused, and once more marked stopping', () => {
    const clock = new VirtualClock(T0);
    const { nc, beats } = fakeNc();
    let paused = false;
    const hb = startHeartbeat({ nc, edge: 'e1', intervalMs: 500, sessions: () => 7, clock, paused: () => paused });
    clock.increment(1000);
    paused = true;
    clock.increment(1000);
    paused = false;
    clock.increment(500);
    hb.stop();
    hb.stop();
    clock.increment(5000);
    expect(beats.map((b) => [b.at - T0, b.stopping ?? false])).toEqual([[0, false], [500, false], [1000, false], [2500, false], [2500, true]]);
    expect(beats[0]).toMatchObject({ edge: 'e1', intervalMs: 500, sessions: 7 });
  });

  it('does not publish on a closed connection', () => {
    const clock = new VirtualClock(T0);
    const { nc, beats, close } = fakeNc();
    startHeartbeat({ nc, edge: 'e1', intervalMs: 500, sessions: () => 0, clock });
    close();
    clock.increment(2000);
    expect(beats).toHaveLength(1);
  });
});
