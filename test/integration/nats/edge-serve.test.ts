import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../simulator/clock.js';
import { startSimulateLoad, type LoadRun } from '../../../src/runtime/simulate-load.js';
import { wallClock, type Clock } from '../../../src/protocol/clock.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { HDR_AT, HDR_RESYNC, RESYNC_SUBJECT, upSubject } from '../../../src/links/nats/subjects.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const LAB = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];

describe('edge + NATS + serve with simulated APs over websockets', () => {
  let nats: TestNats;
  let edge: EdgeSide;
  let serve: Serve;
  let load: LoadRun;
  // The edge's wall time, which the test moves on past the edge's limit on announcements.
  let ahead = 0;
  const edgeClock: Clock = { ...wallClock, now: () => wallClock.now() + ahead };

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    edge = await startEdgeSide(nats.url, { clock: edgeClock });
    load = await startSimulateLoad({ scenario: 'lab', edge: edge.edge.url, speed: 10 });
  });
  afterAll(async () => {
    await load?.stop();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('brings every lab AP online through the edge and ingests its reports', async () => {
    const online = () => LAB.every((s) => serve.fleet.details(s)?.state.startsWith('online') && serve.fleet.details(s)?.lastState);
    expect(await waitFor(online, 20_000)).toBe(true);
    for (const s of LAB) {
      expect(serve.fleet.status(s)).toMatchObject({ connected: true, verifiedCertificate: 'NO_CERTIFICATE', ipAddress: '127.0.0.1' });
      expect(serve.fleet.details(s)?.capabilities).toBeDefined();
    }
    expect(serve.events.filter((e) => e.type === 'protocol-error')).toEqual([]);
    expect(serve.manager.status()).toMatchObject({ link: 'connected', devices: 3, connectedDevices: 3 });
    expect(edge.edge.stats()).toMatchObject({ sessions: 3, protocolErrors: 0 });
  });

  it('runs ping, wifiscan and configure through .down and back', async () => {
    const s = LAB[0]!;
    const { result, command } = await serve.svc.ping(s);
    expect(command.status).toBe('completed');
    expect(result.serialNumber).toBe(s);

    const scan = await serve.svc.wifiscan(s, {});
    expect(scan.status).toBe('completed');
    expect(serve.events.some((e) => e.type === 'wifiscan-result' && e.serial === s && e.payload.source === 'command')).toBe(true);

    const uuid = serve.fleet.status(s)!.UUID + 100;
    const cfg = await serve.svc.configure(s, { configuration: { radios: [{ band: '5G', channel: 44, 'channel-width': 20, 'tx-power': 15 }] }, uuid });
    expect(cfg).toMatchObject({ status: 'completed', errorCode: 0 });
    // The AP runs the new configuration: a later state reports its uuid.
    expect(await waitFor(() => serve.fleet.status(s)!.UUID === uuid, 15_000)).toBe(true);
    expect(edge.edge.stats().framesDown).toBeGreaterThanOrEqual(3);

    // A resync (serve restarted, NATS reconnected) announces the configuration the AP runs now:
    // with the uuid of its first connect, serve took it for out of date and pushed the stored
    // configuration to it again.
    const announced: number[] = [];
    const sub = edge.nc.subscribe(upSubject(s), { callback: (err, msg) => {
      if (err || msg.headers?.get(HDR_RESYNC) !== '1') return;
      const f = JSON.parse(msg.string()) as { method?: string; params?: { uuid?: number } };
      if (f.method === 'connect') announced.push(f.params!.uuid!);
    } });
    try {
      // Two seconds apart from any earlier announcement (the edge announces once per 2 s).
      ahead += 2_100;
      edge.nc.publish(RESYNC_SUBJECT);
      expect(await waitFor(() => announced.length > 0, 10_000)).toBe(true);
      expect(announced).toEqual([uuid]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('takes an AP offline when the simulated venue stops', async () => {
    await load.stop();
    expect(await waitFor(() => LAB.every((s) => serve.fleet.status(s)?.connected === false), 10_000)).toBe(true);
    expect(serve.manager.status().connectedDevices).toBe(0);
    expect(edge.edge.stats().sessions).toBe(0);
  });
});

describe('simulated APs straight onto NATS (an AP-side agent, no edge)', () => {
  let nats: TestNats;
  let serve: Serve;
  let load: LoadRun;
  let watcher: NatsConnection | undefined;
  const stamps: { header: number; seen: number }[] = [];
  // serve judges the publisher's beats on this clock, which only the test moves.
  const serveWall = new VirtualClock(Date.now());
  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url, undefined, {}, undefined, { wall: serveWall });
    // What it publishes, with the time each message reached this subscriber.
    watcher = await connect({ servers: nats.url });
    watcher.subscribe('ucentral.*.up', { callback: (_e, m) => { stamps.push({ header: Number(m.headers?.get(HDR_AT)), seen: Date.now() }); } });
    await watcher.flush();
    load = await startSimulateLoad({ scenario: 'lab', nats: nats.url, speed: 10, heartbeatMs: 250 });
  });
  afterAll(async () => {
    await watcher?.drain();
    await load?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('brings the lab APs online and answers a ping over .down', async () => {
    expect(await waitFor(() => LAB.every((s) => serve.fleet.details(s)?.lastState !== undefined), 20_000)).toBe(true);
    const { command } = await serve.svc.ping(LAB[1]!);
    expect(command.status).toBe('completed');
    expect(load.stats().commands).toBeGreaterThanOrEqual(1);
    // It beats as an edge does, and stamps frames with wall time though its venue runs 10x faster.
    expect(await waitFor(() => serve.manager.status().edges === 1)).toBe(true);
    // An edge stamps with its wall clock; the venue's clock, 10x faster, was seconds ahead by now.
    expect(stamps.length).toBeGreaterThanOrEqual(3);
    for (const st of stamps) expect(st.header).toBeLessThanOrEqual(st.seen);
    expect(serve.manager.status().redated).toBe(0);
    await load.stop();
    expect(await waitFor(() => LAB.every((s) => serve.fleet.status(s)?.connected === false))).toBe(true);
    // Its last beat said it was stopping: forgotten, not lost.
    expect(await waitFor(() => serve.manager.status().edges === 0)).toBe(true);
    serveWall.increment(60_000);
    expect(serve.manager.status().edgesLost).toBe(0);
  });
});
