/**
 * The NATS side of `airtwin serve --nats URL`: one durable JetStream consumer over the stream of
 * `.up` frames and presence, one NatsLink per serial seen there, handed to `onDevice` (the
 * composition root wires it to `fleet.attach`). A frame is acknowledged only after its link's
 * listeners took it, so frames captured while serve was down, or not yet ingested when it
 * stopped, are delivered after a restart. NATS outages are ridden out by nats.js reconnects.
 *
 *   const nats = await NatsLinkManager.start({ url, logger, onDevice: (link) => fleet.attach(link) });
 *   app.get('/health', () => nats.status());
 */
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import { wallClock, type Clock } from '../../protocol/clock.js';
import { isObject, type UpFrame } from '../../protocol/frame.js';
import { isSerial } from '../../protocol/serial.js';
import { connectNats, type LinkLogger, type NatsStatus } from './connect.js';
import { NatsLink } from './nats-link.js';
import { DEFAULT_DURABLE, HDR_AT, HDR_MALFORMED, HDR_RESYNC, RESYNC_SUBJECT, STREAM, ensureConsumer, ensureStream, isPresence, parseSubject, type StreamLimits } from './subjects.js';

export interface NatsLinkManagerOptions {
  /** Comma-separated server URLs (a cluster); ignored when `nc` is given. */
  url?: string;
  /** An open connection to use instead (tests, shared connections); not closed by the manager. */
  nc?: NatsConnection;
  logger: LinkLogger;
  onDevice: (link: NatsLink) => void;
  clock?: Clock;
  /** Durable consumer name; workers that split a fleet use one durable each (default airtwin-serve). */
  durable?: string;
  /** e.g. ['ucentral.*.up', 'ucentral.*.presence'] narrowed to a partition's serial prefix. */
  filterSubjects?: string[];
  stream?: StreamLimits;
  /** Connection name shown by the server (default airtwin-serve). */
  name?: string;
}

export interface NatsLinkStatus {
  link: NatsStatus;
  server: string;
  durable: string;
  devices: number;
  connectedDevices: number;
  frames: number;
  malformed: number;
  presence: number;
  /** Messages on unknown subjects or with invalid serials, acknowledged and skipped. */
  skipped: number;
}

export class NatsLinkManager {
  private readonly links = new Map<string, NatsLink>();
  private linkStatus: NatsStatus = 'connected';
  private messages?: ConsumerMessages;
  private readonly counts = { frames: 0, malformed: 0, presence: 0, skipped: 0 };
  private readonly durable: string;

  private constructor(private readonly nc: NatsConnection, private readonly opts: NatsLinkManagerOptions, private readonly ownsConnection: boolean) {
    this.durable = opts.durable ?? DEFAULT_DURABLE;
  }

  static async start(opts: NatsLinkManagerOptions): Promise<NatsLinkManager> {
    // The connection reports status before the manager exists; the holder bridges that.
    const holder: { manager?: NatsLinkManager } = {};
    const onStatus = (s: NatsStatus): void => holder.manager?.statusChanged(s);
    const nc = opts.nc ?? await connectNats({ url: opts.url ?? 'nats://127.0.0.1:4222', name: opts.name ?? 'airtwin-serve', logger: opts.logger, onStatus });
    const manager = new NatsLinkManager(nc, opts, !opts.nc);
    holder.manager = manager;
    if (opts.nc) void manager.watch();
    await manager.consume();
    return manager;
  }

  status(): NatsLinkStatus {
    let connectedDevices = 0;
    for (const l of this.links.values()) if (l.connected) connectedDevices++;
    return {
      link: this.nc.isClosed() ? 'closed' : this.linkStatus, server: this.nc.getServer(), durable: this.durable,
      devices: this.links.size, connectedDevices, ...this.counts,
    };
  }

  link(serial: string): NatsLink | undefined {
    return this.links.get(serial);
  }

  serials(): string[] {
    return [...this.links.keys()];
  }

  async close(): Promise<void> {
    this.messages?.stop();
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }

  private async ensure(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await ensureStream(jsm, this.opts.stream);
    await ensureConsumer(jsm, this.durable, this.opts.filterSubjects);
  }

  private async consume(): Promise<void> {
    await this.ensure();
    const consumer = await this.nc.jetstream().consumers.get(STREAM, this.durable);
    this.messages = await consumer.consume({ max_messages: 10_000, threshold_messages: 5_000, callback: (m) => this.onMessage(m) });
    // Edges re-announce their sessions: actors of a restarted serve need presence and connect.
    this.nc.publish(RESYNC_SUBJECT, '');
    this.opts.logger.info({ durable: this.durable, stream: STREAM }, 'nats link consuming');
  }

  /** Status of a connection we did not open. */
  private async watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'reconnect') this.statusChanged('connected');
      else if (s.type === 'disconnect' || s.type === 'reconnecting') this.statusChanged('reconnecting');
    }
  }

  /**
   * NATS lost: no frame, presence or command can pass, so every AP is unreachable and its actor
   * goes offline (queueable commands wait in its queue, others are refused as for any offline AP).
   * NATS back: ask the edges to announce their sessions again; the actors come back online.
   */
  private statusChanged(s: NatsStatus): void {
    const was = this.linkStatus;
    this.linkStatus = s;
    if (s === was) return;
    if (this.ownsConnection === false) this.opts.logger.warn({ status: s }, `nats link ${s}`);
    const at = (this.opts.clock ?? wallClock).now();
    if (s === 'reconnecting') for (const l of this.links.values()) l.linkLost(at);
    if (s === 'connected' && was === 'reconnecting') {
      // A server that came back without its store lost stream and consumer: make them again
      // (idempotent; the running pull loop targets the durable by name and picks it up).
      void this.ensure().catch((err: unknown) => this.opts.logger.error({ err: (err as Error).message }, 'nats link: stream or consumer could not be re-created'));
      this.nc.publish(RESYNC_SUBJECT, '');
    }
  }

  private linkFor(serial: string): NatsLink {
    let link = this.links.get(serial);
    if (!link) {
      link = new NatsLink(serial, { nc: this.nc, clock: this.opts.clock ?? wallClock, natsUp: () => this.linkStatus === 'connected' });
      this.links.set(serial, link);
      this.opts.onDevice(link);
    }
    return link;
  }

  private onMessage(m: JsMsg): void {
    const ack = (): void => m.ack();
    const s = parseSubject(m.subject);
    if (!s || s.kind === 'down' || !isSerial(s.serial) || s.serial !== s.serial.toLowerCase()) {
      this.counts.skipped++;
      return ack();
    }
    const link = this.linkFor(s.serial);
    if (s.kind === 'presence') {
      const p = parseJson(m.data);
      if (!isPresence(p)) {
        this.counts.skipped++;
        return ack();
      }
      this.counts.presence++;
      return link.presence(p, ack);
    }
    const at = Number(m.headers?.get(HDR_AT)) || Math.floor(m.info.timestampNanos / 1e6);
    const bytes = m.data.length;
    const malformed = m.headers?.get(HDR_MALFORMED);
    if (malformed) {
      this.counts.malformed++;
      return link.malformed(malformed, bytes, at, ack);
    }
    const frame = parseJson(m.data);
    if (!isObject(frame) || frame.jsonrpc !== '2.0') {
      this.counts.malformed++;
      return link.malformed('not a JSON-RPC 2.0 object', bytes, at, ack);
    }
    this.counts.frames++;
    link.frame(frame as unknown as UpFrame, bytes, at, ack, m.headers?.get(HDR_RESYNC) === '1');
  }
}

function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}
