/**
 * `airtwin edge`: the uCentral device websocket in front of NATS (src/links/edge). The lead wires
 * it in src/cli/ with these flags:
 *
 *   --port <n>          device port (default 15002)
 *   --host <addr>       listen address (default 0.0.0.0: APs are on the network)
 *   --nats <url[,url]>  NATS server(s) (default nats://127.0.0.1:4222)
 *   --tls-cert <file>   server certificate (PEM); with --tls-key and --client-ca: TLS + client certs
 *   --tls-key <file>    its key
 *   --client-ca <file>  CA(s) that issue device certificates (PEM)
 *   --no-allow-mismatch refuse a device whose connect serial differs from its certificate CN
 *   --simulator-id <cn> accept simulator certificates (CN 53494d...) with this id
 *   --idle-timeout <s>  drop an AP silent for this long (default 600)
 *   --handshake-timeout <s> TLS + websocket upgrade, and then the connect frame, each within this (default 30)
 *   --max-connections <n> open sockets on the device port; more are refused (default 15000)
 *   --max-frame-bytes <n> largest websocket frame (default 512000)
 *   --outage-max-bytes <n> AP frames held while NATS is down (default 64 MiB)
 *   --ap-max-frames-per-s <n>, --ap-max-bytes-per-s <n>, --ap-offender-seconds <s>
 *                       what one AP may send (src/protocol/frame-budget.ts; env AIRTWIN_AP_*)
 *   --record <file>     record every frame both ways and each AP's connect/disconnect (NDJSON)
 *   --record-max-bytes <n> rotate the recording past this size (FILE, FILE.1, ...)
 *   --metrics-port <n>  Prometheus metrics at http://host:n/metrics (cli default 15010; none when not given here)
 *   --upload-target <url> relay AP file uploads (POST /v1/upload/<uuid>) to serve's uploader at this URL
 *   --upload-port <n>   port of that relay (default 16003; TLS with --tls-cert/--tls-key when given)
 *   --log-level <lvl>
 *
 * Partial TLS flags are a configuration error (exit 2 in src/cli/): a half-configured device port
 * would silently run without authentication.
 */
import { readFileSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/nats-core';
import { pino, type LevelWithSilent } from 'pino';
import { ConfigError, checkRecordFile } from '../config/flags.js';
import { createEdge, type Edge } from '../links/edge/edge-server.js';
import type { EdgeLimits } from '../links/edge/edge-session.js';
import { startEdgeMetrics, type EdgeMetrics } from '../links/edge/edge-metrics.js';
import { createUploadRelay, type UploadRelay } from '../links/edge/upload-relay.js';
import { connectNats, type LinkLogger } from '../links/nats/connect.js';
import { closeRecorder, createRecorder, type Recorder } from '../links/record/recording-link.js';
import { wallClock } from '../protocol/clock.js';
import { DEFAULT_FRAME_BUDGET, type FrameBudgetLimits } from '../protocol/frame-budget.js';

export interface EdgeCommandOptions {
  port?: number;
  host?: string;
  nats?: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  allowMismatch?: boolean;
  simulatorId?: string;
  idleTimeoutS?: number;
  handshakeTimeoutS?: number;
  maxConnections?: number;
  maxFrameBytes?: number;
  /** Bytes of AP frames held while NATS is down (default 64 MiB). */
  outageMaxBytes?: number;
  /** What one AP may send (default DEFAULT_FRAME_BUDGET). */
  budget?: Partial<FrameBudgetLimits>;
  /** Serve /metrics and /health on this port (0: a free one); none when undefined. */
  metricsPort?: number;
  logLevel?: LevelWithSilent;
  /** Record every frame as it crossed this edge (docs/record-replay.md#the-recording-format). */
  record?: string;
  recordMaxBytes?: number;
  /** serve's uploader, to relay APs' file uploads to (upload-relay.ts); without it there is no relay. */
  uploadTarget?: string;
  /** Port of the upload relay (default 16003). */
  uploadPort?: number;
  /** Tests pass their own logger; default pino to stdout, or to this stream. */
  logger?: LinkLogger;
  logDestination?: NodeJS.WritableStream;
}

export interface RunningEdge {
  edge: Edge;
  nc: NatsConnection;
  /** With `record`: lines, bytes and files written so far. */
  recorder?: Recorder;
  /** With `metricsPort`: the metrics listener. */
  metrics?: EdgeMetrics;
  /** With `uploadTarget`: the relay APs upload files to. */
  uploadRelay?: UploadRelay;
  /** Close the port, announce disconnects, drain NATS. Safe to call twice. */
  close(): Promise<void>;
}

/** Each TLS flag's file, read; all three or none (a half-configured device port would run unauthenticated). */
function readTls(opts: EdgeCommandOptions): { cert: Buffer; key: Buffer; clientCa: Buffer } | undefined {
  const tlsFlags = [opts.tlsCert, opts.tlsKey, opts.clientCa].filter((f) => f !== undefined).length;
  if (tlsFlags !== 0 && tlsFlags !== 3) throw new ConfigError('--tls-cert, --tls-key and --client-ca go together (TLS with client certificates)');
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new ConfigError(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  return tlsFlags === 3
    ? { cert: read('--tls-cert', opts.tlsCert!), key: read('--tls-key', opts.tlsKey!), clientCa: read('--client-ca', opts.clientCa!) }
    : undefined;
}

function edgeLogger(opts: EdgeCommandOptions): LinkLogger {
  const level = opts.logLevel ?? 'info';
  return opts.logger
    ?? (opts.logDestination ? pino({ level }, opts.logDestination as pino.DestinationStream) : pino({ level })).child({ subsystem: 'edge' });
}

async function connectEdgeNats(opts: EdgeCommandOptions, logger: LinkLogger): Promise<NatsConnection> {
  const natsUrl = opts.nats ?? 'nats://127.0.0.1:4222';
  try {
    return await connectNats({ url: natsUrl, name: 'airtwin-edge', logger });
  } catch (e) {
    // One line and exit 2, as `serve --nats` says it: a configuration error, not a crash.
    throw new ConfigError(`--nats: cannot connect to ${natsUrl} (${(e as Error).message})`);
  }
}

/** A failed write stops the recording, never the edge: the APs' traffic goes on to NATS. */
function edgeRecorder(opts: EdgeCommandOptions, logger: LinkLogger): Recorder | undefined {
  return opts.record
    ? createRecorder({
      path: opts.record, maxBytes: opts.recordMaxBytes, clock: wallClock, openLater: true,
      onError: (err) => logger.error({ err: err.message }, 'recording stopped'),
      onDropped: (droppedLines) => logger.warn({ file: opts.record, droppedLines }, 'recording is behind the disk; lines dropped'),
    })
    : undefined;
}

function edgeLimits(opts: EdgeCommandOptions): Partial<EdgeLimits> {
  return {
    ...(opts.idleTimeoutS !== undefined ? { idleTimeoutMs: opts.idleTimeoutS * 1000 } : {}),
    ...(opts.handshakeTimeoutS !== undefined ? { handshakeTimeoutMs: opts.handshakeTimeoutS * 1000 } : {}),
    ...(opts.maxConnections !== undefined ? { maxConnections: opts.maxConnections } : {}),
    ...(opts.maxFrameBytes !== undefined ? { maxPayload: opts.maxFrameBytes } : {}),
    ...(opts.outageMaxBytes !== undefined ? { outageMaxBytes: opts.outageMaxBytes } : {}),
    budget: { ...DEFAULT_FRAME_BUDGET, ...opts.budget },
  };
}

/**
 * Start one listener. On failure everything started before it is closed, newest first (`undo`
 * holds them in start order), and a taken port becomes a ConfigError naming the flag.
 */
async function startOrUndo<T>(start: () => Promise<T>, undo: (() => Promise<void> | undefined)[], port: number | undefined, flag: string): Promise<T> {
  try {
    return await start();
  } catch (e) {
    for (const close of [...undo].reverse()) await close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new ConfigError(`port in use: ${port} (choose another with ${flag})`);
    throw e;
  }
}

export async function runEdge(opts: EdgeCommandOptions): Promise<RunningEdge> {
  if (opts.record !== undefined) checkRecordFile(opts.record, opts.recordMaxBytes);
  const tls = readTls(opts);
  const logger = edgeLogger(opts);
  const host = opts.host ?? '0.0.0.0';
  const nc = await connectEdgeNats(opts, logger);
  const recorder = edgeRecorder(opts, logger);
  const undo: (() => Promise<void> | undefined)[] = [() => nc.close(), () => recorder?.close()];
  const edge = await startOrUndo(() => createEdge({
    port: opts.port ?? 15002, host, nats: nc, tls, logger, recorder: recorder?.tap, limits: edgeLimits(opts),
    certificates: { allowMismatch: opts.allowMismatch ?? true, ...(opts.simulatorId ? { simulatorId: opts.simulatorId } : {}) },
  }), undo, opts.port ?? 15002, '--port');
  undo.push(() => edge.close());
  const metrics = opts.metricsPort === undefined ? undefined
    : await startOrUndo(() => startEdgeMetrics({ edge, port: opts.metricsPort!, host }), undo, opts.metricsPort, '--metrics-port');
  if (metrics) logger.info({ url: `${metrics.url}/metrics` }, 'edge metrics listening');
  undo.push(() => metrics?.close());
  let uploadRelay: UploadRelay | undefined;
  if (opts.uploadTarget) {
    const target = opts.uploadTarget;
    uploadRelay = await startOrUndo(() => createUploadRelay({
      port: opts.uploadPort ?? 16003, host, target, logger, ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
    }), undo, opts.uploadPort ?? 16003, '--upload-port');
    logger.info({ relay: uploadRelay.url, target }, 'relaying file uploads to serve');
  }
  // The file is touched once the port is bound: a failed start left an earlier recording as it was.
  const replaced = recorder?.open();
  if (replaced) logger.warn({ ...replaced }, 'recording replaces an earlier one at its path (give each run its own file to keep them)');
  if (recorder) logger.info({ file: opts.record, maxBytes: opts.recordMaxBytes }, 'recording every frame');
  let closing: Promise<void> | undefined;
  return {
    edge, nc, recorder, metrics, uploadRelay,
    close: () => (closing ??= (async () => {
      await metrics?.close();
      await uploadRelay?.close();
      // The edge first: closing its sockets records each AP's disconnect.
      await edge.close();
      if (recorder) await closeRecorder(recorder, logger);
      await nc.drain().catch(() => undefined);
    })()),
  };
}
