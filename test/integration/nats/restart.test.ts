import { headers, type NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectNats, silentLogger } from '../../../src/links/nats/connect.js';
import { HDR_AT, HDR_RESYNC, RESYNC_SUBJECT, ensureStream, presenceSubject, upSubject } from '../../../src/links/nats/subjects.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { connectFrame, logFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type TestNats } from './harness.js';

const logsOf = (events: { type: string; serial: string; payload: unknown }[], serial: string): string[] =>
  events.filter((e) => e.type === 'log' && e.serial === serial).map((e) => (e.payload as { log: string }).log);

describe('durability of the NATS link', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it('loses no frame acknowledged by JetStream across a NATS server restart', async () => {
    const nats: TestNats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const serve = await startServeSide(nats.url);
    cleanups.push(() => serve.stop());
    const ap: NatsConnection = await connectNats({ url: nats.url, name: 'ap-agent', logger: silentLogger });
    cleanups.push(() => ap.close());
    await ensureStream(await jetstreamManager(ap));
    const js = jetstream(ap);
    const serial = 'a0b1c2000010';
    const pub = (subject: string, body: object) => {
      const h = headers();
      h.set(HDR_AT, String(Date.now()));
      return js.publish(subject, JSON.stringify(body), { headers: h, timeout: 1000 });
    };
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: Date.now() });
    await pub(upSubject(serial), connectFrame(serial));
    // Like an edge: announce the session again when serve asks (its link came back) and when our
    // own connection comes back (whichever reconnects last announces).
    const announce = () => {
      const h = headers();
      h.set(HDR_RESYNC, '1');
      ap.publish(presenceSubject(serial), JSON.stringify({ event: 'connect', edge: 'agent', at: Date.now() }));
      ap.publish(upSubject(serial), JSON.stringify(connectFrame(serial)), { headers: h });
    };
    ap.subscribe(RESYNC_SUBJECT, { callback: announce });
    void (async () => { for await (const st of ap.status()) if (st.type === 'reconnect') announce(); })();

    const acked: string[] = [];
    let restart: Promise<void> | undefined;
    let restarted = false;
    let ackedAfterRestart = 0;
    // 40 frames, then the server restarted, and frames on (paced, so they span the outage) until
    // 20 were acknowledged after it came back, however long the restart takes here. Frames that
    // JetStream did not ack are not claimed delivered (a real edge would resend or count them);
    // the others must all arrive.
    for (let i = 0; !(restarted && ackedAfterRestart >= 20) && i < 10_000; i++) {
      if (i === 40) restart = nats.restart().then(() => { restarted = true; });
      const text = `frame ${i}`;
      try {
        await pub(upSubject(serial), logFrame(serial, text));
        acked.push(text);
        if (restarted) ackedAfterRestart++;
      } catch {
        // not acknowledged: the server was going down or not back yet
      }
      if (i >= 40) await new Promise((r) => setTimeout(r, 15));
    }
    await restart;
    expect(acked.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => `frame ${i}`));
    expect(ackedAfterRestart).toBe(20);
    expect(await waitFor(() => acked.every((t) => logsOf(serve.events, serial).includes(t)), 20_000)).toBe(true);
    expect(await waitFor(() => serve.manager.status().link === 'connected', 5_000)).toBe(true);
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    expect(serve.events.filter((e) => e.type === 'protocol-error')).toEqual([]);
  });

  it('ingests frames an AP sent while serve was down, after serve restarts', async () => {
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const edge = await startEdgeSide(nats.url);
    cleanups.push(() => edge.stop());
    const first = await startServeSide(nats.url);
    const serial = 'a0b1c2000011';
    const ap = new WsApClient({ url: `${edge.edge.url}/any/path` });
    cleanups.push(async () => { await ap.close(); });
    await ap.opened;
    ap.send(connectFrame(serial));
    ap.send(logFrame(serial, 'before'));
    expect(await waitFor(() => logsOf(first.events, serial).includes('before'))).toBe(true);
    await first.stop();

    for (let i = 0; i < 5; i++) ap.send(logFrame(serial, `while down ${i}`));
    // The frames are in the stream before the new serve starts.
    expect(await waitFor(() => edge.edge.stats().framesUp >= 7)).toBe(true);
    await edge.nc.flush();
    const downUntil = Date.now();

    const second = await startServeSide(nats.url);
    cleanups.push(() => second.stop());
    const expected = [0, 1, 2, 3, 4].map((i) => `while down ${i}`);
    expect(await waitFor(() => expected.every((t) => logsOf(second.events, serial).includes(t)), 15_000)).toBe(true);
    // The edge re-announced the session: the new actor is online with the AP's connect.
    expect(await waitFor(() => second.fleet.status(serial)?.connected === true)).toBe(true);
    expect(logsOf(second.events, serial)).not.toContain('before');
    // Dated when the edge took them from the AP, while serve was down, not when serve read them.
    for (const e of second.events) if (e.type === 'log' && e.payload.log.startsWith('while down')) expect(e.at).toBeLessThanOrEqual(downUntil);
    expect(second.events.filter((e) => e.type === 'protocol-error')).toEqual([]);
  });
});
