/** Issue 33 point 15: serve's Prometheus metrics on both ports, and /health on the RRM port. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('GET /metrics (serve)', () => {
  it('has process metrics, devices, the ingest backlog and _total counters', async () => {
    const text = await scrape(s.running.gatewayUrl);
    for (const series of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'airtwin_devices_known', 'airtwin_ingest_rows_queued', 'airtwin_ingest_rows_written_total', 'airtwin_ingest_rows_rejected_total', 'airtwin_device_protocol_errors_total', 'airtwin_nats_rate_limited_frames_total']) {
      expect(value(text, series), series).toBeTypeOf('number');
    }
    expect(text).toContain('# TYPE airtwin_ingest_rows_written_total counter');
    expect(text).toContain('# TYPE airtwin_ingest_rows_queued gauge');
    // Every counter of ours ends in _total.
    const counters = [...text.matchAll(/^# TYPE (airtwin_\S+) counter$/gm)].map((m) => m[1]!);
    expect(counters.length).toBeGreaterThan(10);
    expect(counters.filter((n) => !n.endsWith('_total'))).toEqual([]);
  });

  it('times requests by route template and status, on both ports', async () => {
    expect((await s.gw('GET', '/device/aabbccddee01')).status).toBe(404);
    expect((await s.rrm('GET', '/algorithms')).status).toBe(200);
    const text = await scrape(s.running.gatewayUrl);
    expect(value(text, 'airtwin_http_request_duration_seconds_count{service="gateway",method="GET",route="/api/v1/device/:serialNumber",status_code="404"}')).toBe(1);
    expect(value(text, 'airtwin_http_request_duration_seconds_count{service="rrm",method="GET",route="/api/v1/algorithms",status_code="200"}')).toBe(1);
  });

  it('counts device events by type', async () => {
    const text = await scrape(s.running.gatewayUrl);
    expect(text).toContain('# TYPE airtwin_device_events_total counter');
  });
});

describe('RRM port: /health and /metrics', () => {
  it('answers /health without a token', async () => {
    const res = await fetch(`${s.running.rrmUrl}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; uptime: number };
    expect(body.status).toBe('ok');
    expect(body.uptime).toBeTypeOf('number');
  });

  it('serves the process registry', async () => {
    const text = await scrape(s.running.rrmUrl);
    expect(value(text, 'process_cpu_user_seconds_total')).toBeTypeOf('number');
    expect(value(text, 'airtwin_devices_known')).toBeTypeOf('number');
  });
});
