/**
 * One AP socket on the edge: checks frames, learns the serial, publishes `.up` and presence,
 * writes `.down` frames back, counts protocol errors and drops an abusive AP. It holds only what
 * the socket itself needs (serial, certificate, the last connect frame for a resync), so any
 * number of edges can serve a fleet.
 */
import { headers, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import type { WebSocket } from 'ws';
import { normalizeSerial } from '../../protocol/serial.js';
import type { LinkLogger } from '../nats/connect.js';
import type { RecorderTap } from '../record/recording-link.js';
import { HDR_AT, HDR_CONTROL, HDR_MALFORMED, HDR_REASON, HDR_RESYNC, downSubject, presenceSubject, upSubject, type Certificate, type Presence } from '../nats/subjects.js';
import { checkFrame } from './frame-check.js';
import { DEFAULT_FRAME_BUDGET, FrameBudget, type FrameBudgetLimits } from '../../protocol/frame-budget.js';
import type { UpFrame } from '../../protocol/frame.js';
import { certificateVerdict, type CertificatePolicy } from './tls-admission.js';

export interface EdgeLimits {
  /** Largest websocket message, bytes (gateway: 512,000). */
  maxPayload: number;
  /** Protocol errors after which the AP is dropped (gateway: 10). */
  maxProtocolErrors: number;
  /** No frame from the AP for this long: the socket is closed (gateway session timeout 600 s). */
  idleTimeoutMs: number;
  /** Websocket ping period; a socket that did not answer the previous ping is terminated. */
  pingIntervalMs: number;
  /** Bytes of AP frames held while NATS is down (outage-buffer.ts); later ones are lost, counted. */
  outageMaxBytes: number;
  /** What one AP may send per second; over it frames are dropped, a persistent offender is cut. */
  budget: FrameBudgetLimits;
  /**
   * From the TCP connection to the websocket upgrade (TLS included), and from the upgrade to the
   * AP's first valid frame naming its serial: a socket slower than this is closed.
   */
  handshakeTimeoutMs: number;
  /** Open connections the device port takes; more are refused at once (counted). */
  maxConnections: number;
}

export const DEFAULT_EDGE_LIMITS: EdgeLimits = {
  maxPayload: 512_000, maxProtocolErrors: 10, idleTimeoutMs: 600_000, pingIntervalMs: 30_000, outageMaxBytes: 64 * 1024 * 1024,
  budget: DEFAULT_FRAME_BUDGET, handshakeTimeoutMs: 30_000, maxConnections: 15_000,
};

export interface EdgeCounters {
  framesUp: number;
  framesDown: number;
  protocolErrors: number;
  droppedForErrors: number;
  /** Frames dropped for being over their AP's budget (`limits.budget`). */
  rateLimited: number;
  /** APs disconnected for staying over their budget. */
  droppedForRate: number;
  /** Connections closed for not completing TLS + upgrade, or not naming their serial, within `handshakeTimeoutMs`. */
  handshakeTimeouts: number;
  /** Connections refused because `maxConnections` were open. */
  refusedConnections: number;
}

export interface SessionContext {
  edgeId: string;
  /** The edge's heartbeat interval, which its presence announces (Presence.beatMs). */
  beatMs: number;
  nc: NatsConnection;
  /** Publishes toward serve: straight to NATS, or held while NATS is down; false when NATS refused it. */
  publish(subject: string, data: string | Uint8Array, headers?: MsgHdrs, always?: boolean): boolean;
  /** The most a `compress_64` document may inflate to: what NATS takes in one message. */
  maxInflatedBytes(): number;
  logger: LinkLogger;
  limits: EdgeLimits;
  policy: CertificatePolicy;
  counters: EdgeCounters;
  now(): number;
  /** `edge --record`: every frame as it crossed this edge, both ways, and each AP's connect and disconnect. */
  tap?: RecorderTap;
  /** Called once the serial is known; returns the session this one replaces, if any. */
  register(session: EdgeSession): void;
  /** True when `session` was the serial's current one (not replaced by a newer socket). */
  unregister(session: EdgeSession): boolean;
}

export class EdgeSession {
  serial?: string;
  certificate: Certificate;
  /** When the websocket opened (clock ms). */
  readonly openedAt: number;
  protocolErrors = 0;
  lastFrameAt: number;
  alive = true;
  private connectText?: string;
  /** The uuid `connectText` names. */
  private connectUuid?: number;
  private lastAnnounce = 0;
  private down?: Subscription;
  private presence?: Subscription;
  private closed = false;
  private readonly budget: FrameBudget;
  private overBudget = false;
  /** Disconnected for its budget: what is still in flight is dropped without another word. */
  private cut = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
    readonly ipAddress: string,
    readonly id: number,
    /** CN of a verified client certificate; undefined in plain-ws lab mode. */
    private readonly cn?: string,
  ) {
    this.certificate = cn ? 'VALID_CERTIFICATE' : 'NO_CERTIFICATE';
    this.lastFrameAt = ctx.now();
    this.openedAt = this.lastFrameAt;
    this.budget = new FrameBudget(ctx.limits.budget, { now: () => ctx.now() });
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => { this.alive = true; });
    ws.on('close', (code, reason) => this.onClose(`socket closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`));
    ws.on('error', (err) => ctx.logger.warn({ ip: ipAddress, serial: this.serial, err: err.message }, 'ap socket error'));
  }

  /** Keepalive and idle check, called by the edge's timer. */
  tick(now: number): void {
    if (now - this.lastFrameAt > this.ctx.limits.idleTimeoutMs) return this.close(4000, 'idle timeout');
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  /** The websocket is open (not closing or closed). */
  get isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason.slice(0, 120));
    else this.ws.terminate();
  }

  terminate(): void {
    this.ws.terminate();
  }

  /**
   * Announce this session again (serve restarted and lost its actors). `afterOutage`: our own
   * NATS reconnect, which always announces: an announcement made before the outage told a serve
   * that has since marked the AP offline.
   */
  resync(afterOutage = false): void {
    if (!this.serial || this.closed) return;
    // serve's ask and our own NATS reconnect often come together: one announcement is enough.
    const now = this.ctx.now();
    if (!afterOutage && now - this.lastAnnounce < 2000) return;
    this.lastAnnounce = now;
    this.publishPresence('connect');
    if (this.connectText) this.publishUp(this.connectText, undefined, true);
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    // A binary frame ends the connection (docs/upstream.md#device-sessions).
    if (isBinary) return this.close(1003, 'binary frames are not accepted');
    this.lastFrameAt = this.ctx.now();
    if (!this.withinBudget(data.length)) return;
    const text = data.toString('utf8');
    const check = checkFrame(text, this.ctx.maxInflatedBytes());
    if (!check.ok) {
      if (check.ignored) return this.ctx.logger.debug?.({ serial: this.serial }, check.reason);
      return this.protocolError(check.reason, text, check.object === true);
    }
    if (!this.serial) {
      const serial = this.serialFor(check.serial, check.isConnect);
      if (!serial) return this.protocolError('no valid serial before connect', text, true);
      if (!this.open(serial)) return;
    } else if (check.isConnect && check.serial !== undefined && safeSerial(check.serial) !== this.serial) {
      return this.protocolError(`connect serial ${check.serial} differs from session serial ${this.serial}`, text, true);
    }
    if (check.isConnect) {
      this.connectText = check.text;
      this.connectUuid = reportedUuid(check.frame);
    } else if (this.connectText !== undefined) this.followUuid(check.frame);
    // Unchanged frames go on as the bytes that came in: no second UTF-8 encoding.
    if (!this.publishUp(check.text === text ? data : check.text)) {
      const size = Buffer.byteLength(check.text);
      return this.protocolError(`frame of ${size} bytes refused by NATS (max_payload ${this.ctx.nc.info?.max_payload ?? '?'})`, text, true);
    }
    // As the AP sent it (compress_64 too: the device actor inflates it, as it does on every link).
    this.ctx.tap?.up(this.serial!, text, this.lastFrameAt);
  }

  /**
   * Keeps the connect frame a resync announces at the configuration the AP runs now: a state or
   * healthcheck names its uuid. Were it to announce the uuid of the connect, then after a
   * configure every NATS reconnect or serve restart would make the AP look out of date and serve
   * would push its stored configuration to it again.
   */
  private followUuid(frame: UpFrame): void {
    if (!('method' in frame) || (frame.method !== 'state' && frame.method !== 'healthcheck')) return;
    const uuid = reportedUuid(frame);
    if (uuid === undefined || uuid === 0 || uuid === this.connectUuid) return;
    try {
      const connect = JSON.parse(this.connectText!) as { params: Record<string, unknown> };
      connect.params.uuid = uuid;
      this.connectText = JSON.stringify(connect);
      this.connectUuid = uuid;
    } catch {
      // The connect text was checked when it came: it parses.
    }
  }

  /** The session's serial: the connect serial; before connect, the certificate CN (TLS) or the frame's serial (lab). */
  private serialFor(frameSerial: string | undefined, isConnect: boolean): string | undefined {
    if (isConnect) return safeSerial(frameSerial);
    return safeSerial(this.cn) ?? safeSerial(frameSerial);
  }

  private open(serial: string): boolean {
    if (this.cn) {
      this.certificate = certificateVerdict(this.cn, serial, this.ctx.policy);
      if (this.certificate === 'MISMATCH_SERIAL' && !this.ctx.policy.allowMismatch) {
        this.ctx.logger.warn({ serial, cn: this.cn }, 'certificate CN does not match the serial: refused');
        this.close(4003, 'serial mismatch');
        return false;
      }
    }
    this.serial = serial;
    this.ctx.register(this);
    this.down = this.ctx.nc.subscribe(downSubject(serial), { callback: (err, msg) => {
      if (err) return;
      if (msg.headers?.get(HDR_CONTROL) === 'close') {
        this.ctx.logger.info({ serial, reason: msg.headers.get(HDR_REASON) }, 'dropping ap as asked by serve');
        return this.close(4001, msg.headers.get(HDR_REASON) || 'closed by serve');
      }
      if (this.ws.readyState !== this.ws.OPEN) return;
      this.ctx.counters.framesDown++;
      const text = msg.string();
      this.ctx.tap?.down(serial, text, this.ctx.now());
      this.ws.send(text);
    } });
    // The AP showing up on another socket (another edge, or a new one here) means this one is stale:
    // close it, so a command on `.down` is written to one socket only.
    this.presence = this.ctx.nc.subscribe(presenceSubject(serial), { callback: (err, msg) => {
      if (err) return;
      let p: Partial<Presence> | undefined;
      try { p = JSON.parse(msg.string()) as Partial<Presence>; } catch { return; }
      if (p?.event === 'connect' && (p.edge !== this.ctx.edgeId || p.session !== this.id)) this.close(4004, 'connected again elsewhere');
    } });
    this.publishPresence('connect');
    this.ctx.tap?.connect(serial, this.ctx.now());
    this.ctx.logger.info({ serial, ip: this.ipAddress, certificate: this.certificate }, 'ap connected');
    return true;
  }

  /** False when the frame is over the AP's budget: dropped, counted, and a persistent offender cut. */
  private withinBudget(size: number): boolean {
    const verdict = this.budget.admit(size, this.lastFrameAt);
    if (verdict === 'ok') {
      this.overBudget = false;
      return true;
    }
    this.ctx.counters.rateLimited++;
    if (verdict === 'offender') {
      if (!this.cut) {
        this.cut = true;
        this.ctx.counters.droppedForRate++;
        this.ctx.logger.warn({ serial: this.serial, ip: this.ipAddress, limits: this.ctx.limits.budget }, 'ap stayed over its frame budget: disconnected');
        this.close(4005, 'over its frame budget');
      }
      return false;
    }
    // Once per stretch over budget, not once per frame: a flood must not flood the log too.
    if (!this.overBudget) this.ctx.logger.warn({ serial: this.serial, ip: this.ipAddress, limits: this.ctx.limits.budget }, 'ap over its frame budget: frames dropped');
    this.overBudget = true;
    return false;
  }

  /** `object`: the text is a JSON object, which the recorder may write as it came. */
  private protocolError(reason: string, text: string, object: boolean): void {
    this.protocolErrors++;
    this.ctx.counters.protocolErrors++;
    // The actor counts it too (its protocol-error events), so the twin shows what the AP did.
    if (this.serial) this.publishUp(text.slice(0, 4096), reason);
    // A JSON object is recorded whole, so an actor reading the recording meets it as this one did. Other text
    // is not: the recorder pastes a frame's text into its line as it is, and text such as
    // `{"a":1},"serial":"<another AP>","frame":{...}` made a valid line for another AP.
    if (this.serial && object) this.ctx.tap?.up(this.serial, text, this.lastFrameAt);
    this.ctx.logger.warn({ serial: this.serial, ip: this.ipAddress, reason, count: this.protocolErrors }, 'protocol error');
    // Once: frames still in flight after the close count as errors, not as more disconnects.
    if (this.protocolErrors === this.ctx.limits.maxProtocolErrors) {
      this.ctx.counters.droppedForErrors++;
      this.close(4002, `${this.protocolErrors} protocol errors`);
    }
  }

  private publishUp(text: string | Uint8Array, malformed?: string, resync = false): boolean {
    const h = headers();
    h.set(HDR_AT, String(this.ctx.now()));
    if (resync) h.set(HDR_RESYNC, '1');
    if (malformed) h.set(HDR_MALFORMED, malformed.slice(0, 200));
    if (!this.ctx.publish(upSubject(this.serial!), text, h)) return false;
    if (!malformed) this.ctx.counters.framesUp++;
    return true;
  }

  private publishPresence(event: 'connect' | 'disconnect', reason?: string): void {
    const p: Presence = { event, edge: this.ctx.edgeId, beatMs: this.ctx.beatMs, session: this.id, at: this.ctx.now(), ipAddress: this.ipAddress, certificate: this.certificate };
    if (reason) p.reason = reason;
    this.ctx.publish(presenceSubject(this.serial!), JSON.stringify(p), undefined, true);
  }

  private onClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.down?.unsubscribe();
    this.presence?.unsubscribe();
    if (this.serial) {
      this.publishPresence('disconnect', reason);
      // A socket replaced by the AP's newer one closes after that one connected: recording its
      // disconnect would leave the AP offline in the recording while the live one is connected.
      if (this.ctx.unregister(this)) this.ctx.tap?.disconnect(this.serial, this.ctx.now());
      this.ctx.logger.info({ serial: this.serial, reason }, 'ap disconnected');
    }
  }
}

function safeSerial(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  try {
    return normalizeSerial(s);
  } catch {
    return undefined;
  }
}

/** The configuration uuid a connect, state or healthcheck names (`params.uuid`). */
function reportedUuid(frame: UpFrame): number | undefined {
  const params = 'params' in frame ? (frame.params as { uuid?: unknown } | undefined) : undefined;
  return typeof params?.uuid === 'number' && Number.isInteger(params.uuid) ? params.uuid : undefined;
}
