/**
 * airtwin's own rtty server (the gateway's `rtty.internal`, docs/gateway-api.md#remote-sessions-rtty): APs'
 * rtty clients connect to the device port and register with the session id and token that
 * GET /device/{serial}/rtty sent them; a browser opens `/connect/<id>` on the viewport and its
 * websocket is relayed to the device's terminal. A session that no device and viewer took up
 * within the rtty timeout ends on the injected clock. A device that sends what does not parse is
 * counted and dropped; nothing a peer sends reaches past its own connection.
 */
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { Clock } from '../protocol/clock.js';
import { airtwinError } from '../errors.js';
import { decodeUp, encodeDown, RttyFrameError, RttyFrameReader, RTTY_MAX_PAYLOAD, type RttyDown, type RttyUp } from './frames.js';
import { terminalPage } from './page.js';

export interface RttyLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface InternalRttyOptions {
  clock: Clock;
  /** Seconds a session waits for its device and viewer (the rtty timeout). */
  timeoutS: number;
  /** Sessions open at once; 0 = no limit (upstream `rtty.maxsessions`). */
  maxSessions: number;
  /** Serve's certificate: both ports speak TLS with it; absent: plain TCP and HTTP. */
  https?: { cert: Buffer; key: Buffer };
  logger: RttyLogger;
  /** Device connections at once, registered or not (default 64). */
  maxDevices?: number;
  /** Seconds a device may stay silent (rtty 7.x sends a heartbeat every 5 s; default 30). */
  deviceIdleS?: number;
}

/** What the server counted since it started (GET rtty's refusals are the gateway's). */
export interface RttyCounts {
  sessionsOpened: number; sessionsRefused: number; sessionsExpired: number; sessionsEnded: number;
  devicesRegistered: number; devicesRefused: number; badFrames: number; viewers: number;
}

interface Device {
  socket: Socket;
  reader: RttyFrameReader;
  session?: Session;
  idle?: unknown;
}

interface Session {
  id: string; token: string; serial: string;
  expiry?: unknown;
  device?: Device;
  viewer?: WebSocket;
  sid?: number;
}

const CONNECT_PATH = /^\/connect\/([A-Za-z0-9_-]{1,64})$/;

export class InternalRttyServer {
  private readonly sessions = new Map<string, Session>();
  private readonly devices = new Set<Device>();
  private readonly counts: RttyCounts = {
    sessionsOpened: 0, sessionsRefused: 0, sessionsExpired: 0, sessionsEnded: 0, devicesRegistered: 0, devicesRefused: 0, badFrames: 0, viewers: 0,
  };
  private readonly deviceServer: NetServer;
  private readonly viewServer: HttpServer;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** The ports bound, once listening. */
  ports?: { port: number; viewport: number };

  constructor(private readonly opts: InternalRttyOptions) {
    const onDevice = (socket: Socket) => this.acceptDevice(socket);
    this.deviceServer = opts.https ? createTlsServer({ cert: opts.https.cert, key: opts.https.key }, onDevice) : createNetServer(onDevice);
    const onRequest = (req: IncomingMessage, res: ServerResponse) => this.serveView(req, res);
    this.viewServer = opts.https ? createHttpsServer({ cert: opts.https.cert, key: opts.https.key }, onRequest) : createHttpServer(onRequest);
    this.viewServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgradeView(req, socket, head));
    this.deviceServer.on('tlsClientError', () => undefined);
    this.viewServer.maxConnections = 256;
  }

  /** Binds both ports (0 = a free one) and answers the ports bound. */
  async listen(devicePort: number, viewport: number, host: string): Promise<{ port: number; viewport: number }> {
    const bind = (server: NetServer | HttpServer, port: number) => new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
    const port = await bind(this.deviceServer, devicePort);
    try {
      this.ports = { port, viewport: await bind(this.viewServer, viewport) };
      return this.ports;
    } catch (e) {
      await new Promise<void>((resolve) => this.deviceServer.close(() => resolve()));
      throw e;
    }
  }

  /** A session GET rtty is about to send an AP to; false when --rtty-max-sessions are open. */
  open(s: { id: string; token: string; serial: string }): boolean {
    if (this.opts.maxSessions > 0 && this.sessions.size >= this.opts.maxSessions) {
      this.counts.sessionsRefused++;
      return false;
    }
    const session: Session = { id: s.id, token: s.token, serial: s.serial };
    session.expiry = this.opts.clock.setTimeout(() => this.expire(session), this.opts.timeoutS * 1000);
    this.sessions.set(s.id, session);
    this.counts.sessionsOpened++;
    return true;
  }

  /** Ends a session (its command failed, or it is done). */
  end(id: string): void {
    const s = this.sessions.get(id);
    if (s) this.finish(s);
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  stats(): RttyCounts & { sessions: number; devices: number } {
    return { ...this.counts, sessions: this.sessions.size, devices: this.devices.size };
  }

  /** Ends every session and connection and stops listening. Safe to call twice. */
  async close(): Promise<void> {
    for (const s of [...this.sessions.values()]) this.finish(s);
    for (const d of [...this.devices]) this.dropDevice(d);
    for (const ws of this.wss.clients) ws.terminate();
    this.viewServer.closeAllConnections();
    const stop = (server: NetServer | HttpServer) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    await Promise.all([stop(this.deviceServer), stop(this.viewServer)]);
    this.wss.close();
  }

  private expire(s: Session): void {
    s.expiry = undefined;
    if (this.sessions.get(s.id) !== s) return;
    this.counts.sessionsExpired++;
    this.opts.logger.info({ id: s.id, serial: s.serial }, 'rtty session expired before its device and viewer met');
    s.viewer?.send(JSON.stringify({ type: 'expired' }));
    this.finish(s);
  }

  private finish(s: Session): void {
    if (this.sessions.get(s.id) !== s) return;
    this.sessions.delete(s.id);
    this.counts.sessionsEnded++;
    if (s.expiry !== undefined) this.opts.clock.clearTimeout(s.expiry);
    s.expiry = undefined;
    if (s.device) this.dropDevice(s.device);
    if (s.viewer && s.viewer.readyState <= 1) s.viewer.close(1000, 'session ended');
  }

  // ---- device side

  private acceptDevice(socket: Socket): void {
    if (this.devices.size >= (this.opts.maxDevices ?? 64)) {
      this.counts.devicesRefused++;
      socket.destroy();
      return;
    }
    const device: Device = { socket, reader: new RttyFrameReader() };
    this.devices.add(device);
    this.touch(device);
    socket.on('data', (chunk: Buffer) => this.deviceData(device, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.deviceGone(device));
  }

  private touch(device: Device): void {
    if (device.idle !== undefined) this.opts.clock.clearTimeout(device.idle);
    device.idle = this.opts.clock.setTimeout(() => {
      device.idle = undefined;
      this.opts.logger.warn({ serial: device.session?.serial }, 'rtty device silent too long; dropped');
      this.dropDevice(device);
    }, (this.opts.deviceIdleS ?? 30) * 1000);
  }

  private deviceData(device: Device, chunk: Buffer): void {
    if (!this.devices.has(device)) return;
    this.touch(device);
    try {
      for (const frame of device.reader.push(chunk)) {
        this.deviceMessage(device, decodeUp(frame));
        if (!this.devices.has(device)) return;
      }
    } catch (e) {
      if (!(e instanceof RttyFrameError)) throw e;
      this.counts.badFrames++;
      this.opts.logger.warn({ serial: device.session?.serial, why: e.message }, 'rtty device sent a bad frame; dropped');
      this.dropDevice(device);
    }
  }

  private send(device: Device, m: RttyDown): void {
    if (!device.socket.destroyed) device.socket.write(encodeDown(m));
  }

  private deviceMessage(device: Device, m: RttyUp): void {
    const s = device.session;
    if (m.type === 'register') return this.register(device, m);
    if (!s) throw new RttyFrameError(`${m.type} before register`);
    switch (m.type) {
      case 'heartbeat': return this.send(device, { type: 'heartbeat' });
      case 'login':
        if (m.err !== 0) {
          s.viewer?.send(JSON.stringify({ type: 'login', err: m.err }));
          return this.finish(s);
        }
        s.sid = m.sid;
        if (s.expiry !== undefined) this.opts.clock.clearTimeout(s.expiry);
        s.expiry = undefined;
        s.viewer?.send(JSON.stringify({ type: 'login', err: 0 }));
        return;
      case 'termdata':
        if (m.sid === s.sid && s.viewer?.readyState === 1) s.viewer.send(m.data, { binary: true });
        return;
      case 'logout':
        s.viewer?.send(JSON.stringify({ type: 'logout' }));
        return this.finish(s);
      default:
        return;
    }
  }

  private register(device: Device, m: Extract<RttyUp, { type: 'register' }>): void {
    const s = this.sessions.get(m.devid);
    if (device.session || !s || s.token !== m.token || s.device) {
      this.counts.devicesRefused++;
      this.opts.logger.warn({ id: m.devid, description: m.description }, 'rtty device registered for no open session; dropped');
      this.send(device, { type: 'registered', code: 1, message: 'unknown session' });
      this.devices.delete(device);
      if (device.idle !== undefined) this.opts.clock.clearTimeout(device.idle);
      device.idle = undefined;
      device.socket.destroySoon();
      return;
    }
    device.session = s;
    s.device = device;
    this.counts.devicesRegistered++;
    this.send(device, { type: 'registered', code: 0, message: 'OK' });
    if (s.viewer) this.send(device, { type: 'login' });
  }

  private dropDevice(device: Device): void {
    if (!this.devices.delete(device)) return;
    if (device.idle !== undefined) this.opts.clock.clearTimeout(device.idle);
    device.idle = undefined;
    device.socket.destroy();
    const s = device.session;
    if (s && s.device === device) {
      s.device = undefined;
      if (s.sid !== undefined || s.viewer) {
        s.viewer?.send(JSON.stringify({ type: 'logout' }));
        this.finish(s);
      }
    }
  }

  private deviceGone(device: Device): void {
    this.dropDevice(device);
  }

  // ---- viewport

  private sessionOf(url: string | undefined): Session | undefined {
    const path = (url ?? '').split('?')[0]!;
    const id = CONNECT_PATH.exec(path)?.[1];
    return id === undefined ? undefined : this.sessions.get(id);
  }

  private serveView(req: IncomingMessage, res: ServerResponse): void {
    const s = req.method === 'GET' || req.method === 'HEAD' ? this.sessionOf(req.url) : undefined;
    if (!s) {
      const e = airtwinError('NOT_FOUND', 'connect', 'No open rtty session has this id: GET /api/v1/device/{serial}/rtty opens one (it ends after the rtty timeout unless used).');
      const body = JSON.stringify({ ErrorCode: e.status, ErrorDetails: e.details, ErrorDescription: e.message });
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    const page = terminalPage(s.id, s.serial);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page), 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : page);
  }

  private upgradeView(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const s = this.sessionOf(req.url);
    if (!s || s.viewer) {
      socket.end(`HTTP/1.1 ${s ? '409 Conflict' : '404 Not Found'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attachViewer(s, ws));
  }

  private attachViewer(s: Session, ws: WebSocket): void {
    if (this.sessions.get(s.id) !== s || s.viewer) {
      ws.close(1008, 'session gone');
      return;
    }
    s.viewer = ws;
    this.counts.viewers++;
    ws.on('message', (data: RawData, binary: boolean) => this.viewerMessage(s, Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]), binary));
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (s.viewer !== ws) return;
      s.viewer = undefined;
      if (s.device && s.sid !== undefined) this.send(s.device, { type: 'logout', sid: s.sid });
      this.finish(s);
    });
    if (s.device) this.send(s.device, { type: 'login' });
    else ws.send(JSON.stringify({ type: 'waiting' }));
  }

  /** Binary: keystrokes for the device's terminal. Text: `{"type":"winsize","cols","rows"}`. */
  private viewerMessage(s: Session, data: Buffer, binary: boolean): void {
    const device = s.device;
    if (!device || s.sid === undefined) return;
    const sid = s.sid;
    if (binary) {
      for (let at = 0; at < data.length; at += RTTY_MAX_PAYLOAD - 1) this.send(device, { type: 'termdata', sid, data: data.subarray(at, at + RTTY_MAX_PAYLOAD - 1) });
      return;
    }
    let m: unknown;
    try {
      m = JSON.parse(data.toString());
    } catch {
      return;
    }
    const w = m as { type?: unknown; cols?: unknown; rows?: unknown };
    const dim = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0xffff ? v : undefined);
    const cols = dim(w.cols);
    const rows = dim(w.rows);
    if (w.type === 'winsize' && cols !== undefined && rows !== undefined) this.send(device, { type: 'winsize', sid, cols, rows });
  }
}
