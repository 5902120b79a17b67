/**
 * Issue 33 point 1: a frame NATS refuses (over the server's max_payload) is a counted rejection
 * of that frame, never a crash of the edge; an AP that keeps sending such frames is dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateParams } from '../../../src/protocol/compress.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { startEdgeMetrics, type EdgeMetrics } from '../../../src/links/edge/edge-metrics.js';
import { connectFrame, logFrame } from './frames.js';
import { startEdgeSide, startNats, startServeSide, waitFor, type EdgeSide, type Serve, type TestNats } from './harness.js';

const MAX_PAYLOAD = 64 * 1024;

describe('edge: frames NATS cannot take', () => {
  let nats: TestNats;
  let serve: Serve;
  let edge: EdgeSide;
  let metrics: EdgeMetrics;
  const clients: WsApClient[] = [];
  const ap = async (serial: string) => {
    const c = new WsApClient({ url: `${edge.edge.url}/ws` });
    clients.push(c);
    await c.opened;
    c.send(connectFrame(serial));
    expect(await waitFor(() => serve.fleet.status(serial)?.connected === true)).toBe(true);
    return c;
  };
  const logged = (serial: string, text: string) => serve.events.some((e) => e.type === 'log' && e.serial === serial && JSON.stringify(e.payload).includes(text));

  beforeAll(async () => {
    nats = await startNats({ jetstream: true, maxPayload: MAX_PAYLOAD });
    serve = await startServeSide(nats.url);
    edge = await startEdgeSide(nats.url);
    metrics = await startEdgeMetrics({ edge: edge.edge, port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await metrics?.close();
    for (const c of clients) c.terminate();
    await edge?.stop();
    await serve?.stop();
    await nats?.stop();
  });

  it('refuses a 4 KB compress_64 state that inflates to 3 MiB; the edge and other APs go on', async () => {
    const bomb = 'a0b1c2000101';
    const other = 'a0b1c2000102';
    const a = await ap(bomb);
    const b = await ap(other);
    const params = deflateParams({ serial: bomb, uuid: 1, state: { unit: { blob: 'x'.repeat(3 * 1024 * 1024) } } });
    const frame = JSON.stringify({ jsonrpc: '2.0', method: 'state', params });
    expect(frame.length).toBeLessThan(8 * 1024);
    const before = edge.edge.stats().protocolErrors;
    a.send(frame);
    expect(await waitFor(() => edge.edge.stats().protocolErrors === before + 1)).toBe(true);
    b.send(logFrame(other, 'after the bomb'));
    expect(await waitFor(() => logged(other, 'after the bomb'))).toBe(true);
    a.send(logFrame(bomb, 'the bomber still talks'));
    expect(await waitFor(() => logged(bomb, 'the bomber still talks'))).toBe(true);
  });

  it('counts a plain frame over max_payload as a publish failure; repeated, the AP is dropped', async () => {
    const big = 'a0b1c2000103';
    const other = 'a0b1c2000104';
    const a = await ap(big);
    const b = await ap(other);
    const huge = JSON.stringify(logFrame(big, 'y'.repeat(MAX_PAYLOAD * 2)));
    expect(huge.length).toBeLessThan(512_000);
    a.send(huge);
    expect(await waitFor(() => edge.edge.stats().publishFailures === 1)).toBe(true);
    a.send(logFrame(big, 'one refusal is not fatal'));
    expect(await waitFor(() => logged(big, 'one refusal is not fatal'))).toBe(true);
    for (let i = 0; i < 20; i++) a.send(huge);
    const { code } = await a.closed;
    expect(code).toBe(4002);
    expect(edge.edge.stats().publishFailures).toBeGreaterThanOrEqual(10);
    b.send(logFrame(other, 'unaffected'));
    expect(await waitFor(() => logged(other, 'unaffected'))).toBe(true);
  });

  it('shows the refusals on the edge\'s /metrics, with process metrics and the NATS link state', async () => {
    const res = await fetch(`${metrics.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1));
    expect(value('airtwin_edge_publish_failures_total')).toBe(edge.edge.stats().publishFailures);
    expect(value('airtwin_edge_publish_failures_total')).toBeGreaterThanOrEqual(10);
    expect(value('airtwin_edge_frames_dropped_total{reason="publish_failed"}')).toBe(edge.edge.stats().publishFailures);
    expect(value('airtwin_edge_malformed_frames_total')).toBe(edge.edge.stats().protocolErrors);
    expect(value('airtwin_edge_protocol_error_disconnects_total')).toBe(1);
    expect(value('airtwin_edge_nats_connected')).toBe(1);
    expect(value('airtwin_edge_frames_in_total')).toBeGreaterThan(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect((await fetch(`${metrics.url}/health`)).status).toBe(200);
  });
});
