/**
 * The venue view's live updates: what changed since a page last heard, on a fixed wall-time tick
 * (a browser watches in wall time, whatever the twin's speed). Each subscriber keeps its own set
 * of changed APs and gets the stations' latest positions, so a page whose socket is congested
 * skips ticks and catches up with the newest values on the next one: it never falls behind
 * sending old frames, and no AP change is lost on the way.
 */
import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../actors/fleet.js';
import type { Clock } from '../protocol/clock.js';
import type { ApView } from './ap-views.js';
import type { ClientPositions } from './floor-plan.js';

/** Events after which an AP looks different on the map. */
const CHANGES = new Set<FleetEvent['type']>(['state', 'connected', 'disconnected', 'dropped', 'maintenance']);

export interface LiveSubscriber {
  send(text: string): void;
  /** Bytes queued on the socket. */
  readonly bufferedAmount: number;
}

export interface LiveFeedOptions {
  events$: Observable<FleetEvent>;
  /** The AP as the view shows it now. */
  summary(serial: string): ApView;
  /** Every AP the view shows (sent whole to a new subscriber). */
  serials(): string[];
  /** Stations now (simulated venues only). */
  clients?: () => ClientPositions;
  /** The twin's clock (time stamps of what is sent). */
  clock: Clock;
  /** Wall time: the tick. */
  wall: Clock;
  tickMs?: number;
  /** A subscriber with more than this queued skips a tick (default 256 KiB). */
  maxBufferedBytes?: number;
}

/** What a page is sent; `sent` is wall time (ms), so a page can tell how far behind it is. */
export type LiveMessage =
  | { type: 'aps'; sent: number; at: number; aps: ApView[] }
  | ({ type: 'clients'; sent: number } & ClientPositions);

interface Sub { out: LiveSubscriber; dirty: Set<string>; skipped: number }

export class LiveFeed {
  private readonly subs = new Set<Sub>();
  private readonly subscription: Subscription;
  private timer: unknown;
  private readonly tickMs: number;
  private readonly maxBuffered: number;
  /** Ticks a subscriber skipped because its socket was congested (counted for the docs' measurements and tests). */
  skippedTicks = 0;

  constructor(private readonly opts: LiveFeedOptions) {
    this.tickMs = opts.tickMs ?? 500;
    this.maxBuffered = opts.maxBufferedBytes ?? 256 * 1024;
    this.subscription = opts.events$.subscribe((e) => {
      if (!CHANGES.has(e.type)) return;
      for (const s of this.subs) s.dirty.add(e.serial);
    });
  }

  get subscribers(): number {
    return this.subs.size;
  }

  /** A new page: every AP on the first tick, then what changes. */
  subscribe(out: LiveSubscriber): () => void {
    const sub: Sub = { out, dirty: new Set(this.opts.serials()), skipped: 0 };
    this.subs.add(sub);
    this.schedule();
    return () => {
      this.subs.delete(sub);
    };
  }

  close(): void {
    this.subscription.unsubscribe();
    if (this.timer !== undefined) this.opts.wall.clearTimeout(this.timer);
    this.timer = undefined;
    this.subs.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.subs.size === 0) return;
    this.timer = this.opts.wall.setTimeout(() => {
      this.timer = undefined;
      this.tick();
      this.schedule();
    }, this.tickMs);
  }

  /** One round: each subscriber that can take it gets its changed APs and the stations now. */
  tick(): void {
    if (this.subs.size === 0) return;
    const clients = this.opts.clients ? JSON.stringify({ type: 'clients', sent: this.opts.wall.now(), ...this.opts.clients() }) : undefined;
    const summaries = new Map<string, ApView>();
    for (const s of this.subs) {
      if (s.out.bufferedAmount > this.maxBuffered) {
        s.skipped++;
        this.skippedTicks++;
        continue;
      }
      if (s.dirty.size > 0) {
        const aps = [...s.dirty].map((serial) => summaries.get(serial) ?? summaries.set(serial, this.opts.summary(serial)).get(serial)!);
        s.dirty.clear();
        s.out.send(JSON.stringify({ type: 'aps', sent: this.opts.wall.now(), at: this.opts.clock.now(), aps }));
      }
      if (clients) s.out.send(clients);
    }
  }
}
