/**
 * The beat of a publisher that holds APs on NATS (an edge, `simulate --nats`) on
 * EDGE_ALIVE_SUBJECT: serve takes the APs of one that misses EDGE_MISSED_BEATS beats offline
 * (NatsLinkManager). Core NATS, not the stream: a late beat means nothing.
 */
import type { NatsConnection } from 'nats';
import { EDGE_ALIVE_SUBJECT, type EdgeAlive } from './subjects.js';

export interface HeartbeatOptions {
  nc: NatsConnection;
  /** The id the publisher's presence carries (`Presence.edge`). */
  edge: string;
  intervalMs: number;
  /** APs held now. */
  sessions(): number;
  /** Wall time: serve judges beats by its own wall clock. */
  now(): number;
  /** No beat while this says so (an edge holding frames through an outage: a beat is about now). */
  paused?(): boolean;
}

export interface Heartbeat {
  /** The last beat, marked `stopping`: the publisher closes cleanly and its APs' disconnects follow. */
  stop(): void;
}

/** Beats at once and every `intervalMs`, until `stop()`. */
export function startHeartbeat(o: HeartbeatOptions): Heartbeat {
  const beat = (stopping = false): void => {
    if (o.paused?.() || o.nc.isClosed()) return;
    const alive: EdgeAlive = { edge: o.edge, at: o.now(), intervalMs: o.intervalMs, sessions: o.sessions(), ...(stopping ? { stopping } : {}) };
    try {
      o.nc.publish(EDGE_ALIVE_SUBJECT, JSON.stringify(alive));
    } catch {
      // A connection closing under the timer: the next beat, or none, says what is true.
    }
  };
  const timer = setInterval(() => beat(), o.intervalMs);
  timer.unref();
  beat();
  let stopped = false;
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      beat(true);
    },
  };
}
