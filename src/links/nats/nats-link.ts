/**
 * NatsLink: the DeviceLink adapter for one real AP behind an edge (docs/ARCHITECTURE.md). Presence
 * drives connected/disconnected, `.up` messages become frame or malformed events, `send()`
 * publishes on `.down`. The manager acknowledges what it fed here once it is stored; frames held
 * for a `connect` (`holding`) keep that ack back until they reach the actor.
 */
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { airtwinError, deviceOffline } from '../../errors.js';
import type { Clock } from '../../protocol/clock.js';
import type { DeviceLink, LinkEvent } from '../../protocol/device-link.js';
import type { DownFrame, UpFrame } from '../../protocol/frame.js';
import type { StateText } from '../../protocol/json-source.js';
import { HDR_CONTROL, HDR_REASON, downSubject, type Presence } from './subjects.js';

/**
 * Events allowed before `connect` (docs/upstream.md#notifications). Kept here, not imported
 * from the actor, because links may not depend on actor internals.
 */
const BEFORE_CONNECT = new Set(['connect', 'crashlog', 'rebootLog', 'ping', 'recovery', 'venue_broadcast']);
/** How long frames wait for a `connect` after serve (re)started mid-session, ms. */
const HOLD_MS = 10_000;
const MAX_HELD = 256;

export interface NatsLinkDeps {
  nc: NatsConnection;
  clock: Clock;
  /** False while NATS is reconnecting: sends fail so the actor keeps queueable commands queued. */
  natsUp(): boolean;
}

export class NatsLink implements DeviceLink {
  private readonly listeners: ((e: LinkEvent) => void)[] = [];
  /** Events that arrived before anyone listened (the fleet attaches synchronously, so rarely used). */
  private readonly early: LinkEvent[] = [];
  /** Frames that need a session, waiting for the `connect` an edge re-sends on resync. */
  private awaitingConnect: LinkEvent[] = [];
  private holdTimer: unknown;
  private current?: { edge: string; session?: number };
  private lastPresence?: Presence;
  private seenConnect = false;
  connected = false;

  constructor(readonly serial: string, private readonly deps: NatsLinkDeps) {}

  /** Frames taken from the stream but not yet handed to the actor (held for a `connect`, or early). */
  get holding(): number {
    return this.awaitingConnect.length + this.early.length;
  }

  subscribe(listener: (event: LinkEvent) => void): () => void {
    this.listeners.push(listener);
    for (const e of this.early.splice(0)) this.dispatch(e);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  send(frame: DownFrame): Promise<void> {
    if (!this.connected) return Promise.reject(deviceOffline(this.serial, frame.method));
    if (!this.deps.natsUp() || this.deps.nc.isClosed()) {
      return Promise.reject(airtwinError('DEVICE_OFFLINE', frame.method, `Device ${this.serial} cannot be reached: the NATS link is down.`));
    }
    this.deps.nc.publish(downSubject(this.serial), JSON.stringify(frame));
    return Promise.resolve();
  }

  /** Ask the edge holding the AP to drop it; the twin sees the AP offline at once. */
  close(reason = 'closed'): Promise<void> {
    if (!this.deps.nc.isClosed()) {
      const h = headers();
      h.set(HDR_CONTROL, 'close');
      h.set(HDR_REASON, reason.slice(0, 200));
      this.deps.nc.publish(downSubject(this.serial), '', { headers: h });
    }
    if (this.connected) this.disconnect(this.deps.clock.now(), reason);
    return Promise.resolve();
  }

  /** A presence message for this serial. */
  presence(p: Presence): void {
    if (p.event === 'connect') {
      const same = this.connected && this.current?.edge === p.edge && this.current.session === p.session;
      this.lastPresence = p;
      // The same session announced again (a resync that raced with another): nothing changed.
      if (same) return;
      this.current = { edge: p.edge, session: p.session };
      this.connected = true;
      this.seenConnect = false;
      this.dispatch({ type: 'connected', at: p.at, ipAddress: p.ipAddress, certificate: p.certificate });
      return;
    }
    // A late disconnect of a socket the AP already replaced (same or another edge) changes nothing.
    const c = this.current;
    const stale = c !== undefined && (c.edge !== p.edge || (p.session !== undefined && c.session !== p.session));
    if (!this.connected || stale) return;
    this.flushHeld();
    this.disconnect(p.at, p.reason ?? `disconnected from edge ${p.edge}`);
  }

  /** The NATS connection dropped: the AP cannot be reached until the edge announces it again. */
  linkLost(at: number): void {
    if (!this.connected) return;
    this.flushHeld();
    this.disconnect(at, 'NATS link lost');
  }

  /** The edge holding the AP stopped beating: it is gone, and the AP cannot be reached through it. */
  edgeLost(edge: string, at: number, reason: string): boolean {
    if (!this.connected || this.current?.edge !== edge) return false;
    this.flushHeld();
    this.disconnect(at, reason);
    return true;
  }

  /** An `.up` frame, already parsed; `stateText`: its state's source text (LinkEvent). */
  frame(frame: UpFrame, bytes: number, at: number, resync = false, stateText?: StateText): void {
    const method = 'method' in frame ? frame.method : undefined;
    // A re-announced connect for a session this serve already has: the actor must not restart it.
    if (resync && method === 'connect' && this.connected && this.seenConnect) return;
    this.ensureConnected(at);
    const event: LinkEvent = { type: 'frame', at, frame, bytes, stateText };
    if (method === 'connect') {
      this.seenConnect = true;
      this.dispatch(event);
      this.flushHeld();
      return;
    }
    // serve restarted while the AP stayed on its edge: the actor is new and needs `connect` first.
    // The edge re-sends it on resync; until then (bounded) frames that need a session wait.
    if (!this.seenConnect && method !== undefined && !BEFORE_CONNECT.has(method) && this.awaitingConnect.length < MAX_HELD) {
      this.awaitingConnect.push(event);
      if (this.holdTimer === undefined) this.holdTimer = this.deps.clock.setTimeout(() => this.flushHeld(), HOLD_MS);
      return;
    }
    this.dispatch(event);
  }

  malformed(reason: string, bytes: number, at: number): void {
    this.ensureConnected(at);
    this.dispatch({ type: 'malformed', at, reason, bytes });
  }

  private ensureConnected(at: number): void {
    if (this.connected) return;
    // A frame proves the AP is on some edge; this happens when serve starts after the AP connected.
    const p = this.lastPresence;
    this.connected = true;
    this.dispatch({ type: 'connected', at, ipAddress: p?.ipAddress, certificate: p?.certificate });
  }

  private disconnect(at: number, reason: string): void {
    this.connected = false;
    this.seenConnect = false;
    this.dispatch({ type: 'disconnected', at, reason });
  }

  private flushHeld(): void {
    if (this.holdTimer !== undefined) this.deps.clock.clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const waiting = this.awaitingConnect;
    this.awaitingConnect = [];
    for (const e of waiting) this.dispatch(e);
  }

  private dispatch(event: LinkEvent): void {
    if (this.listeners.length === 0) {
      this.early.push(event);
      return;
    }
    for (const l of [...this.listeners]) l(event);
  }
}
