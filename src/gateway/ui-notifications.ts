import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../actors/fleet.js';
import type { Clock } from '../protocol/clock.js';
import type { DeviceStatusSource } from './device-status-source.js';
import { CLOSE } from './telemetry.js';

/**
 * The OpenWiFi UI's notification socket, `/api/v1/ws` (upstream UI_WebSocketClientServer and
 * UI_GW_WebSocketNotifications): a client authenticates with its first frame (`token:<t>`),
 * then gets the gateway's notifications, live from the fleet's events:
 * 1000 connection statistics (every `statisticsEveryMs` while clients are connected),
 * 4000 device connected, 5000 device disconnected, 6000 new statistics (a state arrived);
 * it may ask `{"command":"serial_number_search","serial_prefix":"a0b1"}` (up to 50 serials),
 * `{"drop-notifications":[6000,...]}` (types it no longer wants) and `{"command":"exit"}`.
 */

/** The notification types a client is told of when it authenticates (ids and names as upstream's). */
export const NOTIFICATION_TYPES = [
  { id: 1000, helper: 'device_connections_statistics' },
  { id: 2000, helper: 'device_configuration_upgrade' },
  { id: 3000, helper: 'device_firmware_upgrade' },
  { id: 4000, helper: 'device_connection' },
  { id: 5000, helper: 'device_disconnection' },
  { id: 6000, helper: 'device_statistics' },
] as const;

export interface UiClient {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes queued on the socket; a client far behind is closed rather than buffered forever. */
  readonly bufferedAmount?: number;
}

/** Upstream's 1000 content: the fleet's connection figures and its total traffic. */
export interface ConnectionFigures {
  numberOfDevices: number;
  averageConnectedTime: number;
  numberOfConnectingDevices: number;
  rx: number;
  tx: number;
}

/** The 1000 content from the fleet: connected and connecting counts, average session age, bytes of the connected APs. */
export function connectionFigures(source: DeviceStatusSource, devices: readonly { serialNumber: string }[]): ConnectionFigures {
  const st = source.connectionStatistics();
  let rx = 0;
  let tx = 0;
  for (const d of devices) {
    const s = source.status(d.serialNumber);
    if (s?.connected) {
      rx += s.rxBytes;
      tx += s.txBytes;
    }
  }
  return {
    numberOfDevices: st.connectedDevices, averageConnectedTime: Math.round(st.averageConnectionTime),
    numberOfConnectingDevices: st.connectingDevices, rx, tx,
  };
}

export interface UiNotificationsOptions {
  clock: Clock;
  /** The fleet's `events$`: connected, disconnected and state events become notifications. */
  events$: Observable<FleetEvent>;
  connectionFigures(): ConnectionFigures;
  /** Every known serial, in order (serial_number_search). */
  serials(): readonly string[];
  /** Period of the 1000 notification (default 30 s, as upstream's garbage collector sends it). */
  statisticsEveryMs?: number;
  /** Queued bytes after which a slow client is closed (default 8 MiB). */
  maxBufferedBytes?: number;
}

interface Member {
  client: UiClient;
  dropped: Set<number>;
}

/** A joined client: hand it the frames it sends; `leave` when its socket closes. */
export interface UiMember {
  message(text: string): void;
  leave(): void;
}

const SEARCH_MAX = 50;

export class UiNotifications {
  private readonly members = new Set<Member>();
  private readonly subscription: Subscription;
  private nextId = 1;
  private timer: unknown;

  constructor(private readonly opts: UiNotificationsOptions) {
    this.subscription = opts.events$.subscribe((e) => {
      if (this.members.size === 0) return;
      const type = e.type === 'connected' ? 4000 : e.type === 'disconnected' ? 5000 : e.type === 'state' ? 6000 : undefined;
      if (type !== undefined) this.notify(type, { serialNumber: e.serial });
    });
  }

  /** An authenticated client: it gets the welcome now and notifications from here on. */
  join(client: UiClient): UiMember {
    const member: Member = { client, dropped: new Set() };
    this.members.add(member);
    client.send(JSON.stringify({ notificationTypes: NOTIFICATION_TYPES, success: 'Welcome! Bienvenue! Bienvenidos!' }));
    this.schedule();
    return { message: (text) => this.message(member, text), leave: () => void this.members.delete(member) };
  }

  /** A text frame from a member: its answer (if any) goes back to it. */
  private message(member: Member, text: string): void {
    const { client } = member;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      client.send(JSON.stringify({ error: 'not a JSON object' }));
      return;
    }
    const m = (typeof msg === 'object' && msg !== null ? msg : {}) as Record<string, unknown>;
    const drop = m['drop-notifications'];
    if (Array.isArray(drop)) {
      member.dropped = new Set(drop.filter((x): x is number => typeof x === 'number'));
      return;
    }
    if (m.command === 'serial_number_search' && typeof m.serial_prefix === 'string') {
      client.send(JSON.stringify({ serialNumbers: this.search(m.serial_prefix) }));
    } else if (m.command === 'exit') {
      client.send(JSON.stringify({ closing: 'Goodbye! Aurevoir! Hasta la vista!' }));
      this.members.delete(member);
      client.close(CLOSE.normal, 'exit');
    } else if (m.command !== undefined) {
      client.send(JSON.stringify({ error: 'invalid command' }));
    } else {
      client.send('{}');
    }
  }

  get size(): number {
    return this.members.size;
  }

  /** Closes every client (service shutdown) and stops listening to the fleet. */
  close(): void {
    this.subscription.unsubscribe();
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const m of this.members) m.client.close(CLOSE.goingAway, 'the service is shutting down');
    this.members.clear();
  }

  /** Serials starting with the prefix (any case, 1 to 12 characters), at most 50. */
  private search(prefix: string): string[] {
    const p = prefix.trim().toLowerCase();
    if (p.length === 0 || p.length > 12) return [];
    const found: string[] = [];
    for (const s of this.opts.serials()) {
      if (s.startsWith(p)) found.push(s);
      if (found.length === SEARCH_MAX) break;
    }
    return found;
  }

  /** The 1000 notification runs while somebody listens. */
  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.members.size === 0) return;
      this.notify(1000, this.opts.connectionFigures());
      this.schedule();
    }, this.opts.statisticsEveryMs ?? 30_000);
  }

  private notify(typeId: number, content: object): void {
    const text = JSON.stringify({ notification: { notification_id: this.nextId++, type_id: typeId, content } });
    for (const m of [...this.members]) {
      if (m.dropped.has(typeId)) continue;
      if ((m.client.bufferedAmount ?? 0) > (this.opts.maxBufferedBytes ?? 8 * 1024 * 1024)) {
        this.members.delete(m);
        m.client.close(CLOSE.tooSlow, 'client too slow: notifications are piling up');
        continue;
      }
      m.client.send(text);
    }
  }
}
