import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { runReplay } from '../../../src/runtime/replay.js';
import { createRecorder } from '../../../src/links/record/recording-link.js';
import { readRecording, type RecordLine } from '../../../src/links/replay/read-recording.js';
import { wallClock } from '../../../src/protocol/clock.js';
import { Store } from '../../../src/store/duckdb.js';
import { EDGE_AHEAD_MS, edgeTime } from '../../../src/links/nats/nats-link-manager.js';
import { presenceSubject, upSubject } from '../../../src/links/nats/subjects.js';
import { connectFrame, logFrame } from './frames.js';
import { apAgent, startNats, startServeSide, waitFor, type Serve, type TestNats } from './harness.js';

/**
 * serve dates a frame by when the edge took it from the AP (`Airtwin-At`), not when serve gets it:
 * frames come late from JetStream's backlog and from an edge's outage buffer. A time an edge
 * cannot have meant (garbled, far ahead of nats-server, older than any outage) gives way to when
 * nats-server stored the message, and is counted.
 */
describe('the time serve gives a frame from NATS', () => {
  let nats: TestNats;
  let serve: Serve;
  let nc: NatsConnection;
  const serial = 'a0b1c2000070';
  const logAt = (text: string) => serve.events.find((e) => e.type === 'log' && e.serial === serial && e.payload.log === text)?.at;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.drain();
    await serve?.stop();
    await nats?.stop();
  });

  it('keeps the edge time of a frame held for an hour, and replaces one it cannot have meant', async () => {
    const { pub } = apAgent(nc, [serial]);
    const hourAgo = Date.now() - 3_600_000;
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: hourAgo });
    await pub(upSubject(serial), connectFrame(serial), String(hourAgo));
    await pub(upSubject(serial), logFrame(serial, 'held an hour'), String(hourAgo + 1000));
    const before = Date.now();
    await pub(upSubject(serial), logFrame(serial, 'garbled time'), 'yesterday');
    await pub(upSubject(serial), logFrame(serial, 'edge clock a day ahead'), String(Date.now() + 86_400_000));
    await pub(upSubject(serial), logFrame(serial, 'edge clock at 1970'), '5');
    const after = Date.now();
    expect(await waitFor(() => logAt('edge clock at 1970') !== undefined, 15_000)).toBe(true);

    expect(serve.events.find((e) => e.type === 'connected' && e.serial === serial)?.at).toBe(hourAgo);
    expect(logAt('held an hour')).toBe(hourAgo + 1000);
    for (const text of ['garbled time', 'edge clock a day ahead', 'edge clock at 1970']) {
      expect(logAt(text)).toBeGreaterThanOrEqual(before - 1000);
      expect(logAt(text)).toBeLessThanOrEqual(after + 1000);
    }
    expect(serve.manager.status().redated).toBe(3);

    // A presence with a time it cannot have meant: its disconnect is dated when nats-server stored it.
    await pub(presenceSubject(serial), { event: 'disconnect', edge: 'agent', at: 5, reason: 'socket closed' });
    expect(await waitFor(() => serve.events.some((e) => e.type === 'disconnected' && e.serial === serial), 15_000)).toBe(true);
    expect(serve.events.find((e) => e.type === 'disconnected' && e.serial === serial)?.at).toBeGreaterThanOrEqual(after - 1000);
    expect(serve.manager.status().redated).toBe(4);
  });

  it('bounds what an edge time may claim against when nats-server stored the message', () => {
    const stored = 1_700_000_000_000;
    expect(edgeTime(stored - 3_600_000, stored)).toBe(stored - 3_600_000);
    expect(edgeTime(stored + EDGE_AHEAD_MS, stored)).toBe(stored + EDGE_AHEAD_MS);
    expect(edgeTime(stored + EDGE_AHEAD_MS + 1, stored)).toBeUndefined();
    expect(edgeTime(stored - 8 * 86_400_000, stored)).toBeUndefined();
    expect(edgeTime(Number.NaN, stored)).toBeUndefined();
    expect(edgeTime(0, stored)).toBeUndefined();
  });
});

/**
 * serve --record: a frame that reaches serve late (here an edge's outage buffer, flushed after
 * another edge's live frames were recorded) cannot have its own time as `t` (a recording never
 * goes backwards), so its line says when it happened in `at`, and a replay dates it so.
 */
describe('serve --record of frames that come late', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-late-record-'));
  const file = join(dir, 'serve.ndjson');
  const live = 'a0b1c2000071';
  const held = 'a0b1c2000072';
  let nats: TestNats;
  let serve: Serve;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.drain();
    await serve?.stop();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes them at the running t with their own time in at, and a replay into DuckDB dates each row as serve did', async () => {
    const recorder = createRecorder({ path: file, clock: wallClock });
    serve = await startServeSide(nats.url, undefined, {}, (link) => recorder.wrap(link));
    const logsOf = (serial: string) => serve.events.filter((e) => e.type === 'log' && e.serial === serial);
    // One edge's AP, live.
    const a = apAgent(nc, [live]);
    await a.pub(presenceSubject(live), { event: 'connect', edge: 'edge-a', at: Date.now() });
    await a.pub(upSubject(live), connectFrame(live));
    await a.pub(upSubject(live), logFrame(live, 'live'));
    expect(await waitFor(() => logsOf(live).length === 1, 15_000)).toBe(true);
    // The other edge's AP, from its outage buffer: a session that began ten minutes ago.
    const b = apAgent(nc, [held]);
    const began = Date.now() - 600_000;
    await b.pub(presenceSubject(held), { event: 'connect', edge: 'edge-b', at: began });
    await b.pub(upSubject(held), connectFrame(held), String(began));
    for (const m of [1, 2, 3]) await b.pub(upSubject(held), logFrame(held, `held ${m}`), String(began + m * 60_000));
    expect(await waitFor(() => logsOf(held).length === 3, 15_000)).toBe(true);
    // Last heard from when its last frame was sent, not when serve read it.
    expect(serve.fleet.status(held)?.lastContact).toBe(Math.floor((began + 180_000) / 1000));
    await serve.stop();
    await recorder.close();

    const recs: RecordLine[] = [];
    for await (const item of readRecording(file)) {
      expect(item.ok).toBe(true);
      if (item.ok) recs.push(item.rec);
    }
    const liveLog = recs.find((r) => r.kind === 'up' && r.serial === live && r.frame.method === 'log')!;
    const heldLines = recs.filter((r) => r.serial === held);
    expect(heldLines.map((r) => r.kind)).toEqual(['connect', 'up', 'up', 'up', 'up']);
    for (const r of heldLines) {
      expect(r.t).toBeGreaterThanOrEqual(liveLog.t);
      expect(r.kind !== 'down' && r.at).toBeLessThan(liveLog.t);
    }
    expect(heldLines.map((r) => (r.kind !== 'down' ? r.at : undefined))).toEqual([began, began, began + 60_000, began + 120_000, began + 180_000]);
    expect(liveLog.kind === 'up' && liveLog.at).toBeUndefined();

    const replayed = await runReplay({ file, dataDir: join(dir, 'replayed'), speed: 'max', keepTime: true }, { out: new PassThrough().resume() });
    expect(replayed.summary).toMatchObject({ rejectedCount: 0, devices: 2 });
    const store = await Store.open(join(dir, 'replayed'));
    try {
      const rows = await store.query<{ serial: string; log: string; recorded: number }>('SELECT serial, log, recorded::BIGINT::DOUBLE AS recorded FROM device_logs ORDER BY serial, log');
      const liveRows = [...logsOf(live), ...logsOf(held)].map((e) => ({ serial: e.serial, log: (e.payload as { log: string }).log, recorded: (e.payload as { recorded: number }).recorded }));
      expect(rows).toEqual(liveRows);
      expect(rows.filter((r) => r.serial === held).map((r) => r.recorded)).toEqual([1, 2, 3].map((m) => Math.floor((began + m * 60_000) / 1000)));
    } finally {
      await store.close();
    }
  });
});
