import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runEdge, type RunningEdge } from '../../../src/runtime/edge.js';
import { until } from '../../helpers/until.js';
import { runReplay, type ReplayResult } from '../../../src/runtime/replay.js';
import { startSimulateLoad, type LoadRun } from '../../../src/runtime/simulate-load.js';
import { silentLogger } from '../../../src/links/nats/connect.js';
import { readRecording, type RecordLine } from '../../../src/links/replay/read-recording.js';
import { Store } from '../../../src/store/duckdb.js';
import { connectFrame } from './frames.js';
import { startNats, startServeSide, waitFor, type Serve, type TestNats } from './harness.js';

const LAB = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];
const RAW_AP = 'a0b1c20000ee';
const MOVING_AP = 'a0b1c20000ef';
const FORGED_AP = 'a0b1c2000099';
const FORGED = `{"jsonrpc":"2.0"},"serial":"${FORGED_AP}","frame":{"jsonrpc":"2.0","method":"log","params":{"serial":"${FORGED_AP}","log":"forged","severity":1}}`;

const opened = async (url: string): Promise<WebSocket> => {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return ws;
};
const closed = (ws: WebSocket) => new Promise((r) => ws.once('close', r));

/** Frames the edge took from its APs so far, well formed or not. */
const taken = (edge: RunningEdge): number => edge.edge.stats().framesUp + edge.edge.stats().protocolErrors;

/** An AP on a bare websocket: sends `texts` in order after a connect frame, then closes once the edge took them. */
async function rawAp(edge: RunningEdge, texts: string[]): Promise<void> {
  const before = taken(edge);
  const ws = await opened(edge.edge.url);
  for (const t of [JSON.stringify(connectFrame(RAW_AP)), ...texts]) ws.send(t);
  await until('the edge took the frames', async () => taken(edge) - before, (n) => n >= texts.length + 1, 30_000);
  ws.close();
  await closed(ws);
}

/** An AP that connects again on a new socket while its old one is still open (the edge drops the old). */
async function reconnectingAp(edge: RunningEdge): Promise<void> {
  const url = edge.edge.url;
  const before = taken(edge);
  const first = await opened(url);
  first.send(JSON.stringify(connectFrame(MOVING_AP)));
  await until('the first connect taken', async () => taken(edge) - before, (n) => n >= 1, 30_000);
  const second = await opened(url);
  const firstClosed = closed(first);
  second.send(JSON.stringify(connectFrame(MOVING_AP, 2)));
  await firstClosed;
  await until('the second connect taken', async () => taken(edge) - before, (n) => n >= 2, 30_000);
  second.close();
  await closed(second);
}

describe('edge --record: every frame as it crossed the edge, then replayed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-edge-record-'));
  const file = join(dir, 'edge.ndjson');
  let nats: TestNats;
  let serve: Serve;
  let edge: RunningEdge;
  let load: LoadRun;
  const recs: RecordLine[] = [];
  const closedLogs: object[] = [];
  let rejected = 0;
  let replayed: ReplayResult;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    serve = await startServeSide(nats.url);
    edge = await runEdge({ port: 0, host: '127.0.0.1', nats: nats.url, record: file, logger: { ...silentLogger, info: (o, msg) => { if (msg === 'recording closed') closedLogs.push(o); } } });
    load = await startSimulateLoad({ scenario: 'lab', edge: edge.edge.url, speed: 10 });
    expect(await waitFor(() => LAB.every((s) => serve.fleet.details(s)?.lastState !== undefined), 20_000)).toBe(true);
    // Commands go down through the edge and their results come back up.
    expect((await serve.svc.ping(LAB[0]!)).command.status).toBe('completed');
    expect((await serve.svc.wifiscan(LAB[1]!, {})).status).toBe('completed');
    // An AP that sends one frame that is no JSON, one that is no JSON but would close the
    // recorder's "frame" and add a "serial" and "frame" of another AP if pasted into the line,
    // and one JSON object that is no JSON-RPC.
    await rawAp(edge, ['not json at all', FORGED, '{"jsonrpc":"1.0","method":"state","params":{}}']);
    await reconnectingAp(edge);
    await load.stop();
    expect(await waitFor(() => LAB.every((s) => serve.fleet.status(s)?.connected === false), 10_000)).toBe(true);
    await edge.close();
    for await (const item of readRecording(file)) {
      if (item.ok) recs.push(item.rec);
      else rejected++;
    }
    replayed = await runReplay({ file, dataDir: join(dir, 'replayed'), speed: 'max' }, { out: new PassThrough().resume() });
  }, 60_000);
  afterAll(async () => {
    await load?.stop();
    await edge?.close();
    await serve?.stop();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes whole, ordered lines: each AP connects first and disconnects last', () => {
    expect(rejected).toBe(0);
    const ts = recs.map((r) => r.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    for (const serial of [...LAB, RAW_AP]) {
      const mine = recs.filter((r) => r.serial === serial);
      expect(mine[0]?.kind).toBe('connect');
      expect(mine.at(-1)?.kind).toBe('disconnect');
      expect(mine.filter((r) => r.kind === 'connect')).toHaveLength(1);
      const up = mine.filter((r): r is Extract<RecordLine, { kind: 'up' }> => r.kind === 'up');
      expect(up[0]?.frame.method).toBe('connect');
      if (serial !== RAW_AP) expect(up.some((r) => r.frame.method === 'state')).toBe(true);
    }
  });

  it('records each command going down and its result coming up with the same id', () => {
    const downs = recs.filter((r): r is Extract<RecordLine, { kind: 'down' }> => r.kind === 'down');
    expect(downs.map((d) => [d.serial, d.frame.method])).toEqual(expect.arrayContaining([[LAB[0], 'ping'], [LAB[1], 'wifiscan']]));
    for (const d of downs) {
      const at = recs.indexOf(d);
      const result = recs.slice(at + 1).find((r) => r.kind === 'up' && r.serial === d.serial && r.frame.id === d.frame.id && r.frame.result !== undefined);
      expect(result, `result of ${d.frame.method} ${d.frame.id}`).toBeDefined();
    }
    expect(edge.recorder!.stats()).toMatchObject({ droppedLines: 0, files: [file] });
    // The edge's shutdown logged what the recording holds.
    expect(closedLogs).toEqual([{ lines: recs.length, bytes: edge.recorder!.stats().bytes, droppedLines: 0, files: [file] }]);
  });

  it('records no disconnect for a socket the AP replaced with a newer one, only for the last', () => {
    const kinds = recs.filter((r) => r.serial === MOVING_AP).map((r) => (r.kind === 'up' ? `up:${String(r.frame.method)}` : r.kind));
    expect(kinds).toEqual(['connect', 'up:connect', 'connect', 'up:connect', 'disconnect']);
  });

  it('keeps a frame that fails the edge check when it is a JSON object, and writes no text that is none', () => {
    const raw = recs.filter((r): r is Extract<RecordLine, { kind: 'up' }> => r.kind === 'up' && r.serial === RAW_AP);
    expect(raw.map((r) => r.frame.jsonrpc)).toEqual(['2.0', '1.0']);
    // The edge hands the recorder no text that is not a JSON object (its own counters have the
    // protocol errors): pasted into a line, the forged text made a line of another AP.
    expect(recs.filter((r) => r.serial === FORGED_AP)).toEqual([]);
    expect(edge.recorder!.stats().malformedSkipped).toBe(0);
  });

  it('replays into DuckDB: every recorded command matched, one statistics row per recorded state', async () => {
    expect(replayed.summary).toMatchObject({ rejectedCount: 0, unmatched: [], devices: LAB.length + 2 });
    const states = new Map<string, number>();
    // The JSON-RPC 1.0 "state" is refused by the replayed actor as by the live one: no row.
    for (const r of recs) if (r.kind === 'up' && r.frame.jsonrpc === '2.0' && r.frame.method === 'state') states.set(r.serial, (states.get(r.serial) ?? 0) + 1);
    const store = await Store.open(join(dir, 'replayed'));
    try {
      const rows = await store.query<{ serial: string; n: number }>('SELECT serial, count(*)::INTEGER AS n FROM statistics GROUP BY serial');
      expect(new Map(rows.map((r) => [r.serial, r.n]))).toEqual(states);
      const scans = await store.query<{ n: number }>("SELECT count(*)::INTEGER AS n FROM wifi_scan_entries WHERE serial = $1 AND source = 'command'", [LAB[1]!]);
      expect(scans[0]!.n).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    for (const s of LAB) expect(replayed.devices[s]?.status.connected).toBe(false);
    expect(states.get(RAW_AP)).toBeUndefined();
  });
});
