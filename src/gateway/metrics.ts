/**
 * What serve's `/metrics` shows (docs/metrics.md): devices, links, the ingest pipeline and its
 * backlog, the NATS link's frames (malformed, over budget), and the device actors' events
 * (frames by kind, protocol errors, dropped APs), each read from the counters the parts keep.
 */
import type { Subscription } from 'rxjs';
import type { IngestMetrics } from '../pipelines/metrics.js';
import { counterFrom, gaugeFrom, type Registry } from '../server/prom.js';
import type { GatewayDeps } from './deps.js';

export interface ServeMetricSources {
  ingest(): IngestMetrics;
  links(): Record<string, { state: string; [k: string]: unknown }>;
}

const INGEST_COUNTERS: [keyof IngestMetrics, string, string][] = [
  ['eventsReceived', 'airtwin_ingest_events_received_total', 'Fleet events taken by the ingest pipeline'],
  ['batchesWritten', 'airtwin_ingest_batches_written_total', 'Batches written to DuckDB'],
  ['rowsWritten', 'airtwin_ingest_rows_written_total', 'Rows written to DuckDB'],
  ['failures', 'airtwin_ingest_write_failures_total', 'Failed write attempts (retried)'],
  ['retries', 'airtwin_ingest_retries_total', 'Retried writes'],
  ['rowsRejected', 'airtwin_ingest_rows_rejected_total', 'Rows DuckDB refused after retries'],
  ['oddDocuments', 'airtwin_ingest_odd_documents_total', 'State documents with skipped odd parts'],
  ['unmappable', 'airtwin_ingest_unmappable_total', 'Events that could not become rows'],
  ['rowsDropped', 'airtwin_ingest_rows_dropped_total', 'Rows dropped because the rows held for a full disk reached their bound'],
];

/** NatsLinkStatus fields shown as counters (and gauges: unacked, edges). */
const NATS_COUNTERS: [string, string, string][] = [
  ['frames', 'airtwin_nats_frames_in_total', 'Frames from APs taken from JetStream'],
  ['malformed', 'airtwin_nats_malformed_frames_total', 'Frames from APs that were not valid uCentral frames'],
  ['rateLimited', 'airtwin_nats_rate_limited_frames_total', 'Frames dropped for being over their AP\'s budget'],
  ['offenders', 'airtwin_nats_rate_limit_disconnects_total', 'APs disconnected for staying over their budget'],
  ['presence', 'airtwin_nats_presence_total', 'Connect and disconnect messages from edges'],
  ['skipped', 'airtwin_nats_skipped_total', 'Messages on unknown subjects or with invalid serials'],
  ['acked', 'airtwin_nats_acked_total', 'Messages acknowledged to JetStream once stored'],
  ['redated', 'airtwin_nats_redated_total', 'Frames whose edge time was implausible'],
  ['edgesLost', 'airtwin_nats_edges_lost_total', 'Edges that stopped beating while they held APs'],
];

/** Registers serve's metrics on `registry`; the returned subscription counts device events until unsubscribed. */
export function registerServeMetrics(registry: Registry, deps: Pick<GatewayDeps, 'devices' | 'status' | 'fleet'>, sources: ServeMetricSources): Subscription {
  gaugeFrom(registry, 'airtwin_devices_known', 'Device records', () => deps.devices.size);
  gaugeFrom(registry, 'airtwin_devices_connected', 'Devices with a connected link', () => deps.status.connectionStatistics().connectedDevices);
  gaugeFrom(registry, 'airtwin_link_connected', 'A link adapter\'s connection (1 connected, 0 not)', () =>
    Object.entries(sources.links()).map(([link, l]) => [{ link }, l.state === 'connected' ? 1 : 0]), ['link']);
  gaugeFrom(registry, 'airtwin_ingest_rows_queued', 'Rows received and not yet written (ingest backlog)', () => sources.ingest().rowsQueued);
  gaugeFrom(registry, 'airtwin_ingest_rows_held', 'Rows held in memory until the full disk has room', () => sources.ingest().rowsHeld);
  gaugeFrom(registry, 'airtwin_ingest_disk_full', 'The last ingest write found the disk full (1) or not (0)', () => (sources.ingest().diskFull ? 1 : 0));
  for (const [key, name, help] of INGEST_COUNTERS) counterFrom(registry, name, help, () => sources.ingest()[key] as number);
  counterFrom(registry, 'airtwin_ingest_table_rows_written_total', 'Rows written per table',
    () => Object.entries(sources.ingest().rowsByTable).map(([table, n]) => [{ table }, n]), ['table']);
  const nats = (field: string): number => {
    const v = sources.links().nats?.[field];
    return typeof v === 'number' ? v : 0;
  };
  for (const [field, name, help] of NATS_COUNTERS) counterFrom(registry, name, help, () => nats(field));
  gaugeFrom(registry, 'airtwin_nats_unacked', 'Messages taken and not yet acknowledged', () => nats('unacked'));
  gaugeFrom(registry, 'airtwin_nats_edges', 'Edges beating now', () => nats('edges'));

  const byType = new Map<string, number>();
  const dropped = new Map<string, number>();
  let protocolErrors = 0;
  const sub = deps.fleet.events$.subscribe((e) => {
    byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
    if (e.type === 'protocol-error') protocolErrors++;
    else if (e.type === 'dropped') dropped.set(e.payload.reason, (dropped.get(e.payload.reason) ?? 0) + 1);
  });
  counterFrom(registry, 'airtwin_device_events_total', 'Events of the device actors by type (frames from APs, commands, connects)',
    () => [...byType].map(([type, n]) => [{ type }, n]), ['type']);
  counterFrom(registry, 'airtwin_device_protocol_errors_total', 'Malformed or out-of-protocol frames the device actors counted', () => protocolErrors);
  counterFrom(registry, 'airtwin_devices_dropped_total', 'APs the device actors dropped or refused, by reason',
    () => [...dropped].map(([reason, n]) => [{ reason }, n]), ['reason']);
  return sub;
}
