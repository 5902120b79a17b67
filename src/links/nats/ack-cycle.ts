/**
 * Cumulative acknowledgement of the JetStream consumer's messages, in cycles: every ACK_EVERY
 * messages taken or ACK_INTERVAL_MS of wall time, wait for `persisted()` and then ack the newest
 * message taken before that wait. A message is acknowledged only once what it carried is stored;
 * a failed wait leaves the cycle unacknowledged, and JetStream delivers it again after ack_wait.
 */
import type { JsMsg } from '@nats-io/jetstream';
import type { Clock } from '../../protocol/clock.js';
import type { LinkLogger } from './connect.js';
import { ACK_EVERY, ACK_INTERVAL_MS } from './subjects.js';

export interface AckCycleOptions {
  /** Wall time: a virtual process clock may race or stand still. */
  wall: Clock;
  logger: LinkLogger;
  /** Resolves once everything taken so far is stored; absent: taken means stored. */
  persisted?: () => Promise<void>;
  /** A closed connection cannot ack. */
  isClosed(): boolean;
  /** Frames are held for a `connect` still to come (not stored yet): the ack waits. */
  holding(): boolean;
  /** `n` messages were acknowledged. */
  acked(n: number): void;
}

export class AckCycle {
  /** The newest message taken and not acknowledged, and how many were taken since the last ack. */
  private newest?: JsMsg;
  private unacked = 0;
  /** Messages of the cycle waiting on `persisted()`. */
  private ackingCount = 0;
  private timer?: unknown;
  private acking?: Promise<void>;

  constructor(private readonly opts: AckCycleOptions) {}

  /** Taken and not yet acknowledged, including the cycle in flight. */
  pending(): number {
    return this.unacked + this.ackingCount;
  }

  /** A message was handed to its link: acknowledge it with the next cycle. */
  taken(m: JsMsg): void {
    this.newest = m;
    this.unacked++;
    if (this.unacked >= ACK_EVERY) void this.cycle();
    else if (this.timer === undefined) this.later();
  }

  /**
   * Acknowledges the newest message taken, once `persisted()` says everything before it is stored.
   * One cycle at a time. While a link holds frames for a `connect` that is still to come, the ack
   * waits (those frames are not stored yet), except on close, where nothing more will come.
   */
  async cycle(closing = false): Promise<void> {
    if (this.timer !== undefined) this.opts.wall.clearTimeout(this.timer);
    this.timer = undefined;
    while (this.acking) await this.acking;
    const m = this.newest;
    if (!m) return;
    if (!closing && this.opts.holding()) return this.later();
    const n = this.unacked;
    this.newest = undefined;
    this.unacked = 0;
    this.ackingCount = n;
    this.acking = (async () => {
      try {
        await this.opts.persisted?.();
        if (!this.opts.isClosed()) m.ack();
        this.opts.acked(n);
      } catch (err) {
        // Not acknowledged: JetStream delivers these again after ack_wait (at least once).
        this.opts.logger.error({ err: (err as Error).message, messages: n }, 'nats link: frames could not be acknowledged');
      } finally {
        this.ackingCount = 0;
      }
    })();
    await this.acking;
    this.acking = undefined;
  }

  /** The next cycle in ACK_INTERVAL_MS of wall time. */
  private later(): void {
    this.timer = this.opts.wall.setTimeout(() => void this.cycle(), ACK_INTERVAL_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }
}
