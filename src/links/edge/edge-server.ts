/**
 * `airtwin edge`: the uCentral device websocket (docs/upstream.md#device-sessions) in front of
 * NATS. TLS with mandatory client certificates when cert/key/clientCa are given, plain ws
 * otherwise (lab mode, logged as a warning). Any URL path is accepted. The edge keeps no fleet
 * state: each socket maps to `ucentral.<serial>.*` subjects, so edges scale out behind a load
 * balancer and serve workers never need to know which edge holds an AP.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { hostname } from 'node:os';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import { WebSocketServer, type WebSocket } from 'ws';
import { wallClock, type Clock } from '../../protocol/clock.js';
import { MAX_INFLATED_BYTES } from '../../protocol/compress.js';
import type { LinkLogger } from '../nats/connect.js';
import type { RecorderTap } from '../record/recording-link.js';
import { EDGE_HEARTBEAT_MS, RESYNC_SUBJECT, ensureStream } from '../nats/subjects.js';
import { startHeartbeat } from '../nats/liveness.js';
import { DEFAULT_EDGE_LIMITS, EdgeSession, type EdgeCounters, type EdgeLimits, type SessionContext } from './edge-session.js';
import { OutageBuffer, type OutageCounters } from './outage-buffer.js';
import { DEFAULT_CERTIFICATE_POLICY, admitCertificate, type CertificatePolicy } from './tls-admission.js';

export interface EdgeTls {
  /** PEM server certificate chain and key. */
  cert: string | Buffer;
  key: string | Buffer;
  /** PEM CA(s) that issue device certificates; a device must present one of theirs. */
  clientCa: string | Buffer;
}

export interface EdgeOptions {
  port: number;
  host?: string;
  /** An open connection; the edge does not close it. */
  nats: NatsConnection;
  tls?: EdgeTls;
  logger: LinkLogger;
  limits?: Partial<EdgeLimits>;
  certificates?: Partial<CertificatePolicy>;
  /** Edge id in presence messages (default `<hostname>-<random>`). */
  id?: string;
  clock?: Clock;
  /** Create the JetStream stream if missing (default true), so frames are kept before serve first runs. */
  ensureStream?: boolean;
  /** Record every frame both ways and each AP's connect/disconnect (`edge --record`). */
  recorder?: RecorderTap;
  /** How often the edge tells serve it is alive (default EDGE_HEARTBEAT_MS, wall time). */
  heartbeatMs?: number;
}

export interface Edge {
  /** ws://host:port or wss://host:port */
  url: string;
  port: number;
  id: string;
  stats(): EdgeCounters & OutageCounters & { sessions: number; sockets: number };
  /** NATS is connected (not down, reconnecting or closed). */
  natsConnected(): boolean;
  close(): Promise<void>;
}

/**
 * Room in a NATS message for an inflated `compress_64` document: the server's max_payload less
 * what the frame envelope and our headers add, so a document that inflates past what NATS takes
 * is refused as a protocol error before it is published.
 */
function inflateLimit(nc: NatsConnection): number {
  const max = nc.info?.max_payload;
  return max === undefined ? MAX_INFLATED_BYTES : Math.min(MAX_INFLATED_BYTES, Math.max(0, max - 4096));
}

/** The registry every session sees: one live session per serial, the newest winning. */
function sessionRegistry(bySerial: Map<string, EdgeSession>): Pick<SessionContext, 'register' | 'unregister'> {
  return {
    register: (s) => {
      const old = bySerial.get(s.serial!);
      bySerial.set(s.serial!, s);
      // The same AP on a new socket: the old one is dead or a duplicate; keep the newest.
      if (old && old !== s) old.close(4004, 'replaced by a newer connection');
    },
    unregister: (s) => {
      if (bySerial.get(s.serial!) !== s) return false;
      bySerial.delete(s.serial!);
      return true;
    },
  };
}

interface DevicePort {
  server: Server;
  wss: WebSocketServer;
}

/**
 * The device port: websocket upgrades only, a cap on open sockets, an upgrade deadline, and (with
 * TLS) the certificate admission before a session exists. `onSocket` gets each accepted websocket.
 */
function createDevicePort(
  opts: EdgeOptions, limits: EdgeLimits, policy: CertificatePolicy, clock: Clock, counters: EdgeCounters,
  onSocket: (ws: WebSocket, req: IncomingMessage, cn: string | undefined) => void,
): DevicePort {
  const server: Server = opts.tls
    ? createHttpsServer({
      cert: opts.tls.cert, key: opts.tls.key, ca: opts.tls.clientCa,
      requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2', handshakeTimeout: limits.handshakeTimeoutMs,
    })
    : createHttpServer();
  // A cap on open sockets (the process has a limited number of descriptors): Node refuses the
  // ones past it at once and says so with 'drop'.
  server.maxConnections = limits.maxConnections;
  server.on('drop', () => { counters.refusedConnections++; });
  // A connection that does not reach the websocket upgrade in time is cut: silent sockets held
  // the port's descriptors for ever. TLS sockets are timed from their handshake, which
  // `handshakeTimeout` bounds before that.
  const upgradeTimers = new WeakMap<Socket, unknown>();
  server.on(opts.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    const timer = clock.setTimeout(() => {
      upgradeTimers.delete(socket);
      counters.handshakeTimeouts++;
      socket.destroy();
    }, limits.handshakeTimeoutMs);
    upgradeTimers.set(socket, timer);
    socket.once('close', () => clock.clearTimeout(timer));
  });
  // Only websocket upgrades are served on the device port.
  server.on('request', (_req, res) => { res.writeHead(426, { connection: 'close' }).end(); });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayload, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const timer = upgradeTimers.get(req.socket);
    if (timer !== undefined) {
      clock.clearTimeout(timer);
      upgradeTimers.delete(req.socket);
    }
    let cn: string | undefined;
    if (opts.tls) {
      const admitted = admitCertificate(req.socket as TLSSocket, policy);
      if (!admitted.ok) {
        opts.logger.warn({ ip: req.socket.remoteAddress, reason: admitted.reason }, 'device refused at TLS');
        socket.destroy();
        return;
      }
      cn = admitted.cn;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => onSocket(ws, req, cn));
  });
  return { server, wss };
}

/**
 * Whichever side reconnects last announces: serve asks on RESYNC_SUBJECT after its reconnect, the
 * edge announces after its own. What the APs sent meanwhile goes first (the outage buffer is
 * released before the announcement), so the announcement names the uuid they run now.
 */
function followNats(nc: NatsConnection, outage: OutageBuffer, bySerial: Map<string, EdgeSession>, logger: LinkLogger): Subscription {
  const resync = nc.subscribe(RESYNC_SUBJECT, { callback: () => {
    logger.info({ sessions: bySerial.size }, 'resync asked: announcing sessions again');
    for (const s of bySerial.values()) s.resync();
  } });
  void (async () => {
    for await (const st of nc.status()) {
      if (st.type === 'disconnect' || st.type === 'reconnecting') outage.hold();
      else if (st.type === 'reconnect') {
        outage.release();
        for (const s of bySerial.values()) s.resync(true);
      }
    }
  })();
  return resync;
}

/** Idle, connect-frame and ping deadlines of every socket, checked often enough to be kept within a third of their length. */
function startSessionTicker(sockets: Set<EdgeSession>, limits: EdgeLimits, clock: Clock, counters: EdgeCounters): ReturnType<typeof setInterval> {
  const tickMs = Math.max(50, Math.min(limits.pingIntervalMs, limits.idleTimeoutMs / 3, limits.handshakeTimeoutMs / 3, 5_000));
  let lastPing = clock.now();
  const timer = setInterval(() => {
    const now = clock.now();
    const ping = now - lastPing >= limits.pingIntervalMs;
    if (ping) lastPing = now;
    for (const s of sockets) {
      if (now - s.lastFrameAt > limits.idleTimeoutMs) s.close(4000, 'idle timeout');
      else if (s.serial === undefined && s.isOpen && now - s.openedAt > limits.handshakeTimeoutMs) {
        counters.handshakeTimeouts++;
        s.close(4000, 'no connect in time');
      } else if (ping) s.tick(now);
    }
  }, tickMs);
  timer.unref();
  return timer;
}

async function ensureCapture(nc: NatsConnection, logger: LinkLogger): Promise<void> {
  try {
    await ensureStream(await jetstreamManager(nc));
  } catch (err) {
    // Live frames still flow over core NATS; only the capture for a restarting serve is missing.
    logger.warn({ err: (err as Error).message }, 'JetStream unavailable: frames are not kept while serve is down (run nats-server with -js)');
  }
}

export async function createEdge(opts: EdgeOptions): Promise<Edge> {
  const clock = opts.clock ?? wallClock;
  const limits: EdgeLimits = { ...DEFAULT_EDGE_LIMITS, ...opts.limits };
  const policy: CertificatePolicy = { ...DEFAULT_CERTIFICATE_POLICY, ...opts.certificates };
  const id = opts.id ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
  const heartbeatMs = opts.heartbeatMs ?? EDGE_HEARTBEAT_MS;
  const { logger, nats: nc } = opts;
  if (opts.ensureStream !== false) await ensureCapture(nc, logger);

  const counters: EdgeCounters = {
    framesUp: 0, framesDown: 0, protocolErrors: 0, droppedForErrors: 0, rateLimited: 0, droppedForRate: 0, handshakeTimeouts: 0, refusedConnections: 0,
  };
  const bySerial = new Map<string, EdgeSession>();
  const sockets = new Set<EdgeSession>();
  let nextSession = 1;
  const outage = new OutageBuffer(nc, limits.outageMaxBytes, logger);
  const ctx: SessionContext = {
    edgeId: id, beatMs: heartbeatMs, nc, logger, publish: (subject, data, h, always) => outage.publish(subject, data, h, always), limits,
    maxInflatedBytes: () => inflateLimit(nc), policy, counters, now: () => clock.now(), tap: opts.recorder, ...sessionRegistry(bySerial),
  };
  const { server, wss } = createDevicePort(opts, limits, policy, clock, counters, (ws, req, cn) => {
    const ip = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const session = new EdgeSession(ws, ctx, ip, nextSession++, cn);
    sockets.add(session);
    ws.on('close', () => sockets.delete(session));
  });
  const resync = followNats(nc, outage, bySerial, logger);
  const timer = startSessionTicker(sockets, limits, clock, counters);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  // Once the port is bound: an edge that failed to start must not look alive. No beat while
  // frames are held through an outage.
  const heartbeat = startHeartbeat({ nc, edge: id, intervalMs: heartbeatMs, sessions: () => bySerial.size, clock, paused: () => outage.isHolding });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const url = `${opts.tls ? 'wss' : 'ws'}://${opts.host ?? '127.0.0.1'}:${port}`;
  if (!opts.tls) logger.warn({ url }, 'edge without TLS (lab mode): devices are not authenticated; use --tls-cert/--tls-key/--client-ca in production');
  logger.info({ url, edge: id }, 'edge listening');

  return {
    url, port, id,
    stats: () => ({ ...counters, ...outage.counters, sessions: bySerial.size, sockets: sockets.size }),
    natsConnected: () => !outage.isHolding && !nc.isClosed(),
    close: async () => {
      clearInterval(timer);
      resync.unsubscribe();
      await closeSockets(sockets, server, wss);
      heartbeat.stop();
      // Disconnect presence of the closed sockets must reach NATS before the caller closes it.
      if (outage.isHolding) outage.discard();
      else if (!nc.isClosed()) await nc.flush().catch(() => undefined);
    },
  };
}

/** Close handshakes get a bounded wait (40 x 50 ms); what is left is cut, then the port closes. */
async function closeSockets(sockets: Set<EdgeSession>, server: Server, wss: WebSocketServer): Promise<void> {
  for (const s of sockets) s.close(1001, 'edge shutting down');
  for (let i = 0; i < 40 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
  for (const s of sockets) s.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  server.closeAllConnections?.();
  await new Promise<void>((r) => server.close(() => r()));
}
