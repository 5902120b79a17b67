import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../actors/fleet.js';
import { notConfigured } from '../errors.js';
import type { Clock } from '../protocol/clock.js';

/**
 * Telemetry streams (docs/upstream.md#events-and-telemetry).
 * POST /device/{serial}/telemetry registers a stream under its command UUID; websocket clients
 * of `/api/v1/ws_telemetry?uuid=&serialNumber=` subscribe to it and receive each telemetry frame
 * of that device as JSON text. A stream ends at interval 0 (`stop`) or at the end of its
 * lifetime, and its sockets close with a reason. `messagebus` streams publish to the subject
 * `telemetry.<serial>` through the `publish` hook instead.
 */

/** WebSocket close codes used (RFC 6455 §7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, tooSlow: 1013 } as const;

export interface TelemetrySubscriber {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes queued on the socket; a subscriber far behind is closed rather than buffered forever. */
  readonly bufferedAmount?: number;
}

export interface TelemetryStart {
  serial: string;
  /** The telemetry command's UUID: the stream's id in the websocket URI. */
  uuid: string;
  /** Seconds, 1..120. */
  interval: number;
  /** Seconds the stream lives (default 3600). */
  lifetime?: number;
  messagebus?: boolean;
}

/** spec telemetry `status` (the gateway's kafka* fields are messagebus* here, spec §device commands). */
export interface TelemetryStatus {
  running: boolean;
  /** Smallest interval asked by a live stream (several streams share one device stream); 0 when none. */
  interval: number;
  /** Latest expiry (epoch s) of a websocket stream, 0 when none. */
  websocketTimer: number;
  messagebusTimer: number;
  websocketClients: number;
  messagebusClients: number;
  websocketPackets: number;
  messagebusPackets: number;
}

export interface TelemetryRegistryOptions {
  clock: Clock;
  /** The fleet's `events$`; only `telemetry` events are read. */
  events$: Observable<FleetEvent>;
  /** Publishes to the message bus (NATS) when configured; absent: messagebus streams are refused (400). */
  publish?: (subject: string, data: string) => void;
  /**
   * A device keeps sending telemetry nobody wants (its streams ended, or none was started):
   * the composition root should send it `telemetry` with interval 0 (the gateway's "runaway
   * telemetry" stop). Called once per serial until a new stream starts.
   */
  onRunaway?: (serial: string) => void;
  /** Queued bytes after which a slow websocket subscriber is closed (default 8 MiB). */
  maxBufferedBytes?: number;
}

interface Stream {
  serial: string;
  uuid: string;
  interval: number;
  messagebus: boolean;
  expiresAt: number;
  timer: unknown;
  subscribers: Set<TelemetrySubscriber>;
  packets: number;
}

export class TelemetryRegistry {
  private readonly streams = new Map<string, Stream>();
  private readonly runawayReported = new Set<string>();
  private readonly subscription: Subscription;

  constructor(private readonly opts: TelemetryRegistryOptions) {
    this.subscription = opts.events$.subscribe((e) => {
      if (e.type === 'telemetry') this.deliver(e.serial, e.at, e.payload.data, e.payload.adhoc);
    });
  }

  /** Whether `messagebus` streams can run (a publish hook is configured). */
  get messagebusConfigured(): boolean {
    return this.opts.publish !== undefined;
  }

  /** Throws NOT_CONFIGURED (400) for a messagebus stream without NATS. Call before sending the command. */
  check(req: { messagebus?: boolean }): void {
    if (req.messagebus && !this.opts.publish) {
      throw notConfigured('messagebus', 'messagebus telemetry needs a message bus: start the service with --nats <url>, or set messagebus to false for websocket telemetry.');
    }
  }

  /** Registers a stream (after the telemetry command was accepted); returns its expiry (epoch ms). */
  start(req: TelemetryStart): { uuid: string; serial: string; expiresAt: number } {
    this.check(req);
    this.end(req.uuid, CLOSE.normal, 'telemetry stream replaced');
    const lifetimeMs = Math.max(1, req.lifetime ?? 3600) * 1000;
    const stream: Stream = {
      serial: req.serial, uuid: req.uuid, interval: req.interval, messagebus: req.messagebus === true,
      expiresAt: this.opts.clock.now() + lifetimeMs, timer: undefined, subscribers: new Set(), packets: 0,
    };
    stream.timer = this.opts.clock.setTimeout(() => {
      stream.timer = undefined;
      this.end(stream.uuid, CLOSE.normal, `telemetry lifetime of ${lifetimeMs / 1000} s ended`);
    }, lifetimeMs);
    this.streams.set(req.uuid, stream);
    this.runawayReported.delete(req.serial);
    return { uuid: req.uuid, serial: req.serial, expiresAt: stream.expiresAt };
  }

  /**
   * Interval 0: ends the device's streams (only `uuid` when given) and closes their sockets.
   * Returns how many streams ended.
   */
  stop(serial: string, uuid?: string): number {
    let ended = 0;
    for (const s of [...this.streams.values()]) {
      if (s.serial !== serial || (uuid !== undefined && s.uuid !== uuid)) continue;
      this.end(s.uuid, CLOSE.normal, 'telemetry stopped (interval 0)');
      ended++;
    }
    return ended;
  }

  /** Whether a live websocket stream has this (uuid, serial) pair. */
  has(serial: string, uuid: string): boolean {
    const s = this.streams.get(uuid);
    return s !== undefined && s.serial === serial && !s.messagebus;
  }

  /** Adds a subscriber to a live websocket stream; returns its unsubscribe, or undefined when there is no such stream. */
  subscribe(serial: string, uuid: string, subscriber: TelemetrySubscriber): (() => void) | undefined {
    if (!this.has(serial, uuid)) return undefined;
    const s = this.streams.get(uuid)!;
    s.subscribers.add(subscriber);
    return () => s.subscribers.delete(subscriber);
  }

  status(serial: string): TelemetryStatus {
    const st: TelemetryStatus = {
      running: false, interval: 0, websocketTimer: 0, messagebusTimer: 0,
      websocketClients: 0, messagebusClients: 0, websocketPackets: 0, messagebusPackets: 0,
    };
    for (const s of this.streams.values()) {
      if (s.serial !== serial) continue;
      st.running = true;
      st.interval = st.interval === 0 ? s.interval : Math.min(st.interval, s.interval);
      const expiry = Math.floor(s.expiresAt / 1000);
      if (s.messagebus) {
        st.messagebusTimer = Math.max(st.messagebusTimer, expiry);
        st.messagebusClients++;
        st.messagebusPackets += s.packets;
      } else {
        st.websocketTimer = Math.max(st.websocketTimer, expiry);
        st.websocketClients += s.subscribers.size;
        st.websocketPackets += s.packets;
      }
    }
    return st;
  }

  /** Ends every stream (service shutdown) and stops listening to the fleet. */
  close(): void {
    this.subscription.unsubscribe();
    for (const uuid of [...this.streams.keys()]) this.end(uuid, CLOSE.goingAway, 'the service is shutting down');
  }

  private end(uuid: string, code: number, reason: string): void {
    const s = this.streams.get(uuid);
    if (!s) return;
    this.streams.delete(uuid);
    if (s.timer !== undefined) this.opts.clock.clearTimeout(s.timer);
    for (const sub of s.subscribers) sub.close(code, reason);
    s.subscribers.clear();
  }

  /** As the gateway: `timestamp` (epoch s) is added to the frame's data. */
  private deliver(serial: string, at: number, data: Record<string, unknown>, adhoc: boolean): void {
    let text: string | undefined;
    const frame = () => (text ??= JSON.stringify({ ...data, timestamp: Math.floor(at / 1000) }));
    // Ad-hoc frames go to the bus whoever listens, and only there (as the gateway); never runaway.
    if (adhoc) {
      this.opts.publish?.(`telemetry.${serial}`, frame());
      return;
    }
    let wanted = false;
    let bus = false;
    for (const s of this.streams.values()) {
      if (s.serial !== serial || at >= s.expiresAt) continue; // an expired stream's timer ends it
      wanted = true;
      s.packets++;
      if (s.messagebus) bus = true;
      else for (const sub of [...s.subscribers]) this.send(s, sub, frame());
    }
    // Several messagebus streams of one device share the subject: publish once.
    if (bus) this.opts.publish?.(`telemetry.${serial}`, frame());
    if (!wanted && !this.runawayReported.has(serial)) {
      this.runawayReported.add(serial);
      this.opts.onRunaway?.(serial);
    }
  }

  private send(s: Stream, sub: TelemetrySubscriber, text: string): void {
    if ((sub.bufferedAmount ?? 0) > (this.opts.maxBufferedBytes ?? 8 * 1024 * 1024)) {
      s.subscribers.delete(sub);
      sub.close(CLOSE.tooSlow, 'subscriber too slow: telemetry frames are piling up');
      return;
    }
    sub.send(text);
  }
}

/**
 * The websocket URI a POST telemetry answers with: `base` is the gateway's public URL
 * (`http(s)://host:port`), turned into `ws(s)://`.
 */
export function telemetryUri(base: string, serial: string, uuid: string): string {
  const ws = base.replace(/^http/, 'ws').replace(/\/+$/, '');
  return `${ws}/api/v1/ws_telemetry?uuid=${encodeURIComponent(uuid)}&serialNumber=${encodeURIComponent(serial)}`;
}
