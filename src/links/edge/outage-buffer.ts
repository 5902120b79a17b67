/**
 * What the edge publishes while NATS is down. nats.js empties its outgoing buffer at every
 * reconnect attempt, so a frame an AP sent during an outage used to be lost without a trace:
 * the AP had it acknowledged by its socket, serve never saw it. The edge holds those publishes
 * here, in order, up to a byte limit, and sends them when NATS is back, before the sessions are
 * announced again. From the first frame past the limit until NATS is back, frames are counted and
 * logged as lost (presence never is: it is small, and serve needs it to know who left).
 *
 * Not covered: a frame nats.js took in the moment the server went down, before it noticed,
 * is still lost with its outgoing buffer (per-frame JetStream acks would close that gap at the
 * cost of a round trip per frame).
 */
import type { MsgHdrs, NatsConnection } from '@nats-io/nats-core';
import type { LinkLogger } from '../nats/connect.js';

export interface OutageCounters {
  /** Publishes waiting for NATS now. */
  held: number;
  /** Held publishes sent once NATS was back (all outages). */
  heldSent: number;
  /** Frames dropped because the buffer was full, or the edge closed during an outage. */
  lostInOutage: number;
  /** Publishes NATS refused (over the server's max_payload, a closing connection): each frame is dropped, counted. */
  publishFailures: number;
}

interface Held {
  subject: string;
  data: string | Uint8Array;
  headers?: MsgHdrs;
}

export class OutageBuffer {
  private queue: Held[] = [];
  private bytes = 0;
  private holding = false;
  private lostThisOutage = 0;
  readonly counters: OutageCounters = { held: 0, heldSent: 0, lostInOutage: 0, publishFailures: 0 };

  constructor(
    private readonly nc: NatsConnection,
    private readonly maxBytes: number,
    private readonly logger: LinkLogger,
  ) {}

  get isHolding(): boolean {
    return this.holding;
  }

  /**
   * `nc.publish`, or held while NATS is down. `always`: kept past the byte limit (presence).
   * False when NATS refused the message (it throws for a payload over the server's max_payload):
   * the message is dropped and counted, the caller decides what that means for its AP.
   */
  publish(subject: string, data: string | Uint8Array, headers?: MsgHdrs, always = false): boolean {
    if (this.nc.isClosed()) return true;
    if (!this.holding) return this.send(subject, data, headers);
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    const max = this.nc.info?.max_payload;
    if (max !== undefined && size > max) {
      this.counters.publishFailures++;
      return false;
    }
    // Once full, full until NATS is back: the held frames stay one unbroken stretch.
    if (!always && (this.lostThisOutage > 0 || this.bytes + size > this.maxBytes)) {
      if (this.lostThisOutage++ === 0) this.logger.warn({ maxBytes: this.maxBytes }, 'outage buffer full: frames from APs are lost until NATS is back');
      this.counters.lostInOutage++;
      return true;
    }
    this.queue.push({ subject, data, ...(headers ? { headers } : {}) });
    this.bytes += size;
    this.counters.held = this.queue.length;
    return true;
  }

  private send(subject: string, data: string | Uint8Array, headers?: MsgHdrs): boolean {
    try {
      this.nc.publish(subject, data, headers ? { headers } : undefined);
      return true;
    } catch (err) {
      this.counters.publishFailures++;
      this.logger.warn({ subject, err: (err as Error).message }, 'NATS refused a publish: message dropped');
      return false;
    }
  }

  /** NATS went away: hold publishes from now on. */
  hold(): void {
    if (this.holding) return;
    this.holding = true;
    this.lostThisOutage = 0;
    this.logger.warn({ maxBytes: this.maxBytes }, 'NATS is down: holding frames from APs until it is back');
  }

  /** NATS is back: send what was held, in order, then publish directly again. */
  release(): void {
    if (!this.holding) return;
    const queue = this.queue;
    const bytes = this.bytes;
    this.queue = [];
    this.bytes = 0;
    this.holding = false;
    for (const m of queue) this.send(m.subject, m.data, m.headers);
    this.counters.held = 0;
    this.counters.heldSent += queue.length;
    this.logger.info({ frames: queue.length, bytes, lost: this.lostThisOutage }, 'NATS is back: held frames sent');
  }

  /** The edge closes: whatever is still held cannot be sent. */
  discard(): void {
    if (this.queue.length === 0) return;
    this.logger.warn({ frames: this.queue.length, bytes: this.bytes }, 'edge closed while NATS was down: held frames are lost');
    this.counters.lostInOutage += this.queue.length;
    this.queue = [];
    this.bytes = 0;
    this.counters.held = 0;
  }
}
