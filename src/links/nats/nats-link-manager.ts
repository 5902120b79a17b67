/**
 * The NATS side of `airtwin serve --nats URL`: one durable JetStream consumer over the stream of
 * `.up` frames and presence, one NatsLink per serial seen there, handed to `onDevice` (the
 * composition root wires it to `fleet.attach`). Frames are acknowledged in cycles, cumulatively:
 * every ACK_EVERY frames or ACK_INTERVAL_MS (ack-cycle.ts), the manager waits for `persisted()` (serve: the
 * ingest pipeline has written everything the actors emitted so far) and then acks the newest
 * frame taken before that wait. So a frame is acknowledged only once its rows are in DuckDB, and
 * frames captured while serve was down, or not stored when it died, are delivered after a
 * restart (at least once: a crash between the write and the ack repeats up to one cycle).
 * NATS outages are ridden out by nats.js reconnects.
 *
 *   const nats = await NatsLinkManager.start({ url, logger, onDevice: (l) => fleet.attach(l), persisted: () => ingest.flush() });
 *   app.get('/health', () => nats.status());
 */
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { wallClock, type Clock } from '../../protocol/clock.js';
import { DEFAULT_FRAME_BUDGET, FrameBudget, type FrameBudgetLimits } from '../../protocol/frame-budget.js';
import { isObject, type UpFrame } from '../../protocol/frame.js';
import { stateSourceText } from '../../protocol/json-source.js';
import { isSerial } from '../../protocol/serial.js';
import { connectNats, type LinkLogger, type NatsStatus } from './connect.js';
import { AckCycle } from './ack-cycle.js';
import { EdgeLiveness } from './liveness.js';
import { NatsLink } from './nats-link.js';
import {
  DEFAULT_DURABLE, EDGE_ALIVE_SUBJECT, HDR_AT, HDR_MALFORMED, HDR_RESYNC, RESYNC_SUBJECT,
  STREAM, STREAM_SUBJECTS, ensureConsumer, ensureStream, isEdgeAlive, isPresence, parseSubject, subjectMatches, type Filtering, type StreamLimits,
} from './subjects.js';

export interface NatsLinkManagerOptions {
  /** Comma-separated server URLs (a cluster); ignored when `nc` is given. */
  url?: string;
  /** An open connection to use instead (tests, shared connections); not closed by the manager. */
  nc?: NatsConnection;
  logger: LinkLogger;
  onDevice: (link: NatsLink) => void;
  /** The process clock: dates what happens to the links (default wall time). */
  clock?: Clock;
  /**
   * The manager's own timers: edge deadlines and ack cycles (default wall time). Edges beat in
   * wall time, and a virtual process clock may race or stand still; tests pass a VirtualClock.
   */
  wall?: Clock;
  /** Durable consumer name; workers that split a fleet use one durable each (default airtwin-serve). */
  durable?: string;
  /**
   * The worker's part of the fleet, e.g. ['ucentral.a0b1c2300047.*'] (subjects.ts filterProblem
   * says what is valid); default the whole stream. Applied by nats-server where it can, else here.
   */
  filterSubjects?: string[];
  stream?: StreamLimits;
  /** Connection name shown by the server (default airtwin-serve). */
  name?: string;
  /**
   * Resolves once everything the devices emitted so far is stored (serve: `ingest.flush`).
   * Without it a frame is acknowledged as soon as its actor took it.
   */
  persisted?: () => Promise<void>;
  /**
   * What one AP may send, judged by when its edge took each frame (`Airtwin-At`), so a backlog
   * read at once after a restart is judged at the rate it was sent. Default DEFAULT_FRAME_BUDGET.
   */
  budget?: FrameBudgetLimits;
}

export interface NatsLinkStatus {
  link: NatsStatus;
  server: string;
  durable: string;
  /** The subjects this worker takes (the stream's when no filter was given). */
  filter: string[];
  /** Who applies the filter: 'client' means nats-server refused it and this worker skips the rest. */
  filtering: Filtering;
  devices: number;
  connectedDevices: number;
  frames: number;
  malformed: number;
  presence: number;
  /** Messages on unknown subjects or with invalid serials, acknowledged and skipped. */
  skipped: number;
  /** Messages outside the filter, acknowledged and skipped (filtering 'client' only). */
  outside: number;
  /** Messages acknowledged (cumulatively), and taken but not yet acknowledged. */
  acked: number;
  unacked: number;
  /**
   * Edges beating now, and edges whose APs were taken offline because they stopped (or, announced
   * in the stream as beating, never beat while they held APs).
   */
  edges: number;
  edgesLost: number;
  /**
   * Frames and presence whose edge time (`Airtwin-At`, presence `at`) was missing or implausible
   * (see edgeTime): dated when nats-server stored them instead.
   */
  redated: number;
  /** Frames dropped for being over their AP's budget, and APs disconnected for staying over it. */
  rateLimited: number;
  offenders: number;
}

/** How far an edge's clock may run ahead of nats-server's, and how long an edge may hold a frame. */
export const EDGE_AHEAD_MS = 60_000;
export const EDGE_HELD_MAX_MS = 7 * 86_400_000;

/**
 * When the edge took a frame from its AP, as the actors date it: its `Airtwin-At`. That time can
 * be well before nats-server stored the message (an edge holds frames through a NATS outage), but
 * not after it beyond clock skew, nor older than any outage an edge rides out; outside those
 * bounds (a broken clock, a garbled header) the time nats-server stored it is used.
 */
export function edgeTime(claimed: number, storedMs: number): number | undefined {
  return Number.isFinite(claimed) && claimed <= storedMs + EDGE_AHEAD_MS && claimed >= storedMs - EDGE_HELD_MAX_MS ? claimed : undefined;
}

export class NatsLinkManager {
  private readonly links = new Map<string, NatsLink>();
  private linkStatus: NatsStatus = 'connected';
  private messages?: ConsumerMessages;
  private readonly counts = { frames: 0, malformed: 0, presence: 0, skipped: 0, outside: 0, acked: 0, redated: 0, rateLimited: 0, offenders: 0 };
  private readonly budgets = new Map<string, FrameBudget>();
  private readonly durable: string;
  private readonly filter: string[];
  private filtering: Filtering = 'none';
  private readonly acks: AckCycle;
  /** Edges that beat (EDGE_ALIVE_SUBJECT), and the judge that declares one gone. */
  private readonly liveness: EdgeLiveness;
  private edgesLost = 0;
  private readonly wall: Clock;
  private alive?: Subscription;

  private constructor(private readonly nc: NatsConnection, private readonly opts: NatsLinkManagerOptions, private readonly ownsConnection: boolean) {
    this.durable = opts.durable ?? DEFAULT_DURABLE;
    this.filter = opts.filterSubjects ?? [];
    this.wall = opts.wall ?? wallClock;
    this.liveness = new EdgeLiveness({
      clock: this.wall,
      caughtUp: () => this.nc.flush(),
      lost: (edge, silentMs, heard) => this.edgeGone(edge, silentMs, heard),
    });
    this.acks = new AckCycle({
      wall: this.wall, logger: opts.logger, persisted: opts.persisted, isClosed: () => this.nc.isClosed(),
      holding: () => this.holding(), acked: (n) => { this.counts.acked += n; },
    });
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
      filter: this.filter.length > 0 ? [...this.filter] : [...STREAM_SUBJECTS], filtering: this.filtering,
      devices: this.links.size, connectedDevices, ...this.counts, unacked: this.acks.pending(),
      edges: this.liveness.heard(), edgesLost: this.edgesLost,
    };
  }

  link(serial: string): NatsLink | undefined {
    return this.links.get(serial);
  }

  serials(): string[] {
    return [...this.links.keys()];
  }

  /** Stops taking messages, acknowledges what was taken once it is persisted, then lets go. */
  async close(): Promise<void> {
    this.messages?.stop();
    this.alive?.unsubscribe();
    this.liveness.close();
    // A connection that is gone cannot ack: JetStream delivers those frames again.
    if (!this.nc.isClosed()) await this.acks.cycle(true);
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }

  /** `takeOver` at start only: then frames a dead predecessor left unacknowledged come again at once. */
  private async ensure(takeOver: boolean): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    await ensureStream(jsm, this.opts.stream);
    const { made, filtering, refused } = await ensureConsumer(jsm, this.durable, this.filter, { takeOver });
    const log = this.opts.logger;
    if (made === 'migrated') log.warn({ durable: this.durable }, 'nats link: consumer made again with cumulative acks, from its ack floor');
    if (made === 'reset') log.warn({ durable: this.durable }, 'nats link: frames a previous serve took but never acknowledged are delivered again');
    if (made === 'refiltered') log.warn({ durable: this.durable, filter: this.filter }, 'nats link: consumer was made for another filter; made again for this one from its ack floor');
    if (filtering === 'client' && this.filtering !== 'client') {
      log.warn({ durable: this.durable, filter: this.filter, server: this.nc.info?.version, refused },
        'nats link: nats-server cannot apply this filter (before 2.10 it takes one subject within ucentral.*.up or ucentral.*.presence, or covering them; several need 2.10): this worker receives the whole stream and skips what is outside the filter');
    }
    this.filtering = filtering;
  }

  private holding(): boolean {
    for (const l of this.links.values()) if (l.holding > 0) return true;
    return false;
  }

  private async consume(): Promise<void> {
    await this.ensure(true);
    const consumer = await jetstream(this.nc).consumers.get(STREAM, this.durable);
    this.messages = await consumer.consume({ max_messages: 10_000, threshold_messages: 5_000, callback: (m) => this.onMessage(m) });
    this.alive = this.nc.subscribe(EDGE_ALIVE_SUBJECT, { callback: (err, m) => {
      if (err) return;
      const a = parseJson(m.string());
      if (!isEdgeAlive(a)) return;
      if (a.stopping) this.liveness.stopped(a.edge);
      else this.liveness.beat(a.edge, a.intervalMs);
    } });
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
    if (s === 'reconnecting') {
      for (const l of this.links.values()) l.linkLost(at);
      this.liveness.linkDown();
    }
    if (s === 'connected' && was === 'reconnecting') {
      // An edge that died meanwhile never beats again, and the APs frames from the stream bring
      // back online through it are taken offline.
      this.liveness.linkUp();
      // A server that came back without its store lost stream and consumer: make them again
      // (idempotent; the running pull loop targets the durable by name and picks it up).
      void this.ensure(false).catch((err: unknown) => this.opts.logger.error({ err: (err as Error).message }, 'nats link: stream or consumer could not be re-created'));
      this.nc.publish(RESYNC_SUBJECT, '');
    }
  }

  /** An edge stopped beating (killed, or cut from NATS): the APs it held cannot be reached. */
  private edgeGone(edge: string, silentMs: number, heard: boolean): void {
    const at = (this.opts.clock ?? wallClock).now();
    const silentS = silentMs / 1000;
    const reason = `edge ${edge} stopped answering (no heartbeat for ${silentS} s)`;
    let aps = 0;
    for (const l of this.links.values()) if (l.edgeLost(edge, at, reason)) aps++;
    // One only known from old presence in the stream that holds no AP now (it stopped cleanly
    // long ago, its disconnects followed): nothing was lost.
    if (!heard && aps === 0) return;
    this.edgesLost++;
    const log = aps > 0 ? this.opts.logger.warn : this.opts.logger.info;
    log.call(this.opts.logger, { edge, aps, silentS }, 'nats link: an edge stopped answering; the APs it held are offline until they connect again');
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
    this.route(m);
    this.acks.taken(m);
  }

  /** The edge's time for a message when it is plausible (edgeTime), else when nats-server stored it, counted. */
  private dated(claimed: number, storedMs: number): number {
    const at = edgeTime(claimed, storedMs);
    if (at !== undefined) return at;
    this.counts.redated++;
    return storedMs;
  }

  /** False when the frame is over its AP's budget: dropped, counted; a persistent offender is disconnected. */
  private withinBudget(link: NatsLink, bytes: number, at: number): boolean {
    let budget = this.budgets.get(link.serial);
    if (!budget) {
      budget = new FrameBudget(this.opts.budget ?? DEFAULT_FRAME_BUDGET, { now: () => at });
      this.budgets.set(link.serial, budget);
    }
    const verdict = budget.admit(bytes, at);
    if (verdict === 'ok') return true;
    this.counts.rateLimited++;
    if (verdict === 'offender' && link.connected) {
      this.counts.offenders++;
      this.opts.logger.warn({ serial: link.serial, limits: this.opts.budget ?? DEFAULT_FRAME_BUDGET }, 'nats link: AP stayed over its frame budget: disconnected');
      void link.close('over its frame budget');
    }
    return false;
  }

  private route(m: JsMsg): void {
    // Checked even when the server filters: cheap, and right whoever applies the filter.
    if (this.filter.length > 0 && !this.filter.some((f) => subjectMatches(f, m.subject))) {
      this.counts.outside++;
      return;
    }
    const s = parseSubject(m.subject);
    if (!s || s.kind === 'down' || !isSerial(s.serial) || s.serial !== s.serial.toLowerCase()) {
      this.counts.skipped++;
      return;
    }
    const link = this.linkFor(s.serial);
    const storedMs = Math.floor(m.info.timestampNanos / 1e6);
    if (s.kind === 'presence') {
      const p = parseJson(utf8(m.data));
      if (!isPresence(p)) {
        this.counts.skipped++;
        return;
      }
      this.counts.presence++;
      // Nothing is judged while NATS is down (the judge ignores an announcement then).
      if (p.event === 'connect') this.liveness.announced(p.edge, p.beatMs);
      p.at = this.dated(p.at, storedMs);
      return link.presence(p);
    }
    const at = this.dated(Number(m.headers?.get(HDR_AT)), storedMs);
    const bytes = m.data.length;
    if (!this.withinBudget(link, bytes, at)) return;
    const malformed = m.headers?.get(HDR_MALFORMED);
    if (malformed) {
      this.counts.malformed++;
      return link.malformed(malformed, bytes, at);
    }
    const text = utf8(m.data);
    const frame = parseJson(text);
    if (!isObject(frame) || frame.jsonrpc !== '2.0') {
      this.counts.malformed++;
      return link.malformed('not a JSON-RPC 2.0 object', bytes, at);
    }
    this.counts.frames++;
    // The state's own text travels with the frame, so ingest does not serialise it again.
    const stateText = frame.method === 'state' ? stateSourceText(frame, text) : undefined;
    link.frame(frame as unknown as UpFrame, bytes, at, m.headers?.get(HDR_RESYNC) === '1', stateText);
  }
}

function utf8(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
