import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame, logFrame, resultFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

describe('a NATS outage between edge and serve', () => {
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  let ap: WsApClient;
  const serial = 'a0b1c2000060';
  const received: string[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    edge = await startEdgeSide(nats.url);
    // An AP that answers every command with success.
    ap = new WsApClient({ url: `${edge.edge.url}/`, onCommand: (f) => { received.push(f.method); ap.send(resultFrame(serial, f.id)); } });
    await ap.opened;
    ap.send(connectFrame(serial));
  });
  afterAll(async () => {
    ap?.terminate();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('takes the APs offline while NATS is down, keeps queueable commands queued and sends them when it is back', async () => {
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    await nats.kill();
    expect(await waitFor(() => serve.manager.status().link === 'reconnecting')).toBe(true);
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === false)).toBe(true);

    const queued = await serve.svc.configure(serial, { configuration: { radios: [] }, uuid: 77 });
    expect(queued.status).toBe('pending');
    await expect(serve.svc.ping(serial)).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });

    await nats.start();
    expect(await waitFor(() => serve.manager.status().link === 'connected', 15_000)).toBe(true);
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true, 15_000)).toBe(true);
    expect(await waitFor(() => serve.store.get(queued.UUID)?.status === 'completed', 15_000)).toBe(true);
    expect(received).toEqual(['configure']);
    expect(ap.isOpen).toBe(true);
  });

  it('keeps what the AP sends while NATS is down and hands it to serve, once NATS is back', async () => {
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true, 15_000)).toBe(true);
    await nats.kill();
    expect(await waitFor(() => serve.manager.status().link === 'reconnecting')).toBe(true);
    const sentFrom = Date.now();
    for (let i = 0; i < 3; i++) ap.send(logFrame(serial, `during outage ${i}`));
    expect(await waitFor(() => edge.edge.stats().held === 3)).toBe(true);
    // nats-server stores them only after it started again, well after this.
    const heldUntil = Date.now();

    await nats.start();
    const outageLogs = () => serve.events.filter((e) => e.type === 'log' && e.payload.log.startsWith('during outage'));
    expect(await waitFor(() => outageLogs().length === 3, 15_000)).toBe(true);
    expect(outageLogs().map((e) => e.type === 'log' && e.payload.log)).toEqual(['during outage 0', 'during outage 1', 'during outage 2']);
    // Dated when the AP sent them (the edge's Airtwin-At), not when serve got them after the outage.
    for (const e of outageLogs()) {
      expect(e.at).toBeGreaterThanOrEqual(sentFrom);
      expect(e.at).toBeLessThanOrEqual(heldUntil);
    }
    expect(edge.edge.stats()).toMatchObject({ held: 0, heldSent: 3, lostInOutage: 0 });
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true, 15_000)).toBe(true);
  });
});
