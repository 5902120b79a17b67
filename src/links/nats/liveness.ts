/**
 * Liveness of the publishers that hold APs on NATS (an edge, `simulate --nats`), both sides:
 *
 * - `startHeartbeat`: the publisher beats on EDGE_ALIVE_SUBJECT every `intervalMs`.
 * - `EdgeLiveness`: serve's judge. An edge that misses EDGE_MISSED_BEATS beats is lost and the
 *   APs it held go offline; while NATS is down nobody is judged, and once it is back every known
 *   edge gets a fresh deadline.
 *
 * Both run on an injected `Clock`, so tests drive them on a VirtualClock. Core NATS carries the
 * beats, not the stream: a late beat means nothing.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { Clock } from '../../protocol/clock.js';
import { EDGE_ALIVE_SUBJECT, EDGE_MISSED_BEATS, type EdgeAlive } from './subjects.js';

export interface HeartbeatOptions {
  nc: NatsConnection;
  /** The id the publisher's presence carries (`Presence.edge`). */
  edge: string;
  intervalMs: number;
  /** APs held now. */
  sessions(): number;
  /** Times the beats and dates them (wall time in production: serve judges by its own wall time). */
  clock: Clock;
  /** No beat while this says so (an edge holding frames through an outage: a beat is about now). */
  paused?(): boolean;
}

export interface Heartbeat {
  /** The last beat, marked `stopping`: the publisher closes cleanly and its APs' disconnects follow. */
  stop(): void;
}

/** A wall timer must not keep a process alive that has nothing else to do. */
function unref(id: unknown): void {
  (id as { unref?: () => void } | undefined)?.unref?.();
}

/** Beats at once and every `intervalMs`, until `stop()`. */
export function startHeartbeat(o: HeartbeatOptions): Heartbeat {
  let stopped = false;
  let timer: unknown;
  const beat = (stopping = false): void => {
    if (o.paused?.() || o.nc.isClosed()) return;
    const alive: EdgeAlive = { edge: o.edge, at: o.clock.now(), intervalMs: o.intervalMs, sessions: o.sessions(), ...(stopping ? { stopping } : {}) };
    try {
      o.nc.publish(EDGE_ALIVE_SUBJECT, JSON.stringify(alive));
    } catch {
      // A connection closing under the timer: the next beat, or none, says what is true.
    }
  };
  const next = (): void => {
    timer = o.clock.setTimeout(() => {
      if (stopped) return;
      beat();
      next();
    }, o.intervalMs);
    unref(timer);
  };
  beat();
  next();
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      o.clock.clearTimeout(timer);
      beat(true);
    },
  };
}

/** What the judge needs from the world around it. */
export interface LivenessPort {
  clock: Clock;
  /**
   * Resolves once every beat that reached this process before the call has been handled (serve:
   * a NATS flush, whose answer comes after whatever the server sent before it). A process busy
   * past a deadline runs its timers before it reads its socket, where the next beat may wait.
   */
  caughtUp(): Promise<void>;
  /** An edge missed its beats: take offline the APs it holds. `heard`: it beat since this serve started. */
  lost(edge: string, silentMs: number, heard: boolean): void;
}

interface Known {
  intervalMs: number;
  /** It beat (rather than only being announced by a connect in the stream). */
  heard: boolean;
  timer?: unknown;
  /** The deadline running now; a judgement that finds another one here was overtaken. */
  deadline?: object;
}

/**
 * serve's judge of the edges. Every beat gives its edge EDGE_MISSED_BEATS of its intervals to
 * beat again; when that passes, the judge first catches up on what is waiting to be read, and
 * only an edge whose deadline is still the same then is lost.
 */
export class EdgeLiveness {
  private readonly edges = new Map<string, Known>();
  private down = false;
  private closed = false;

  constructor(private readonly port: LivenessPort) {}

  /** Edges that beat since this serve started and are not lost or stopped. */
  heard(): number {
    let n = 0;
    for (const e of this.edges.values()) if (e.heard) n++;
    return n;
  }

  /** An edge beat. */
  beat(edge: string, intervalMs: number): void {
    this.arm(edge, intervalMs, true);
  }

  /**
   * A connect from an edge that says it beats every `beatMs`, which this serve has not heard beat:
   * it gets the same deadline as one that just beat, so an edge that died before serve started is
   * judged too. An edge already known keeps its deadline: a connect is not a beat.
   */
  announced(edge: string, beatMs: unknown): void {
    if (this.edges.has(edge) || this.down || this.closed) return;
    if (typeof beatMs === 'number' && Number.isFinite(beatMs) && beatMs > 0) this.arm(edge, beatMs, false);
  }

  /** An edge closed cleanly: its APs' disconnect presence says the rest. */
  stopped(edge: string): void {
    const e = this.edges.get(edge);
    if (e) this.port.clock.clearTimeout(e.timer);
    this.edges.delete(edge);
  }

  /** NATS lost: no beat can come, so no edge is judged until `up()`. */
  linkDown(): void {
    this.down = true;
    for (const e of this.edges.values()) this.disarm(e);
  }

  /** NATS back: every known edge gets a fresh deadline; one that died meanwhile never beats again. */
  linkUp(): void {
    if (!this.down) return;
    this.down = false;
    for (const [edge, e] of this.edges) this.arm(edge, e.intervalMs, false);
  }

  close(): void {
    this.closed = true;
    for (const e of this.edges.values()) this.disarm(e);
  }

  private disarm(e: Known): void {
    this.port.clock.clearTimeout(e.timer);
    e.timer = undefined;
    e.deadline = undefined;
  }

  private arm(edge: string, intervalMs: number, heard: boolean): void {
    if (this.closed) return;
    const known = this.edges.get(edge);
    if (known) this.disarm(known);
    const e: Known = { intervalMs, heard: heard || known?.heard === true };
    this.edges.set(edge, e);
    if (this.down) return;
    const deadline = {};
    e.deadline = deadline;
    e.timer = this.port.clock.setTimeout(() => void this.judge(edge, deadline), intervalMs * EDGE_MISSED_BEATS);
    unref(e.timer);
  }

  private async judge(edge: string, deadline: object): Promise<void> {
    try {
      await this.port.caughtUp();
    } catch {
      // NATS went down meanwhile (linkUp re-arms), or it is closing.
    }
    const e = this.edges.get(edge);
    if (this.down || this.closed || e?.deadline !== deadline) return;
    this.edges.delete(edge);
    this.port.lost(edge, e.intervalMs * EDGE_MISSED_BEATS, e.heard);
  }
}
