/**
 * The newest state and scan of every AP, kept in memory from the fleet's events, so a run reads
 * them without querying DuckDB (a 200-AP zone's model in <= 100 ms, docs/performance.md). They are
 * what the ingest pipeline stores from the same events, held as the run query would return them
 * (times rounded down to the stored second, a scan only when one of its entries is usable).
 * APs with nothing seen since the process started (a restart, a replay's first minutes) get
 * what is missing from the store; capabilities and configurations always come from the store.
 */
import type { Observable } from 'rxjs';
import type { FleetEvent } from '../../actors/fleet.js';
import type { Store } from '../store/duckdb.js';
import { usableEntry, type DeviceDocuments } from './model/build.js';
import { deviceDocuments } from './model-query.js';

interface Latest {
  state?: { recorded: number; state: unknown };
  scan?: { recorded: number; entries: unknown[] };
}

const isObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The time the store records for an event (epoch seconds), in ms. */
const storedMs = (at: number): number => Math.floor(at / 1000) * 1000;

export class LatestDocuments {
  private readonly latest = new Map<string, Latest>();
  private readonly subscription: { unsubscribe(): void };

  constructor(events$: Observable<FleetEvent>) {
    this.subscription = events$.subscribe((e) => this.remember(e));
  }

  private remember(e: FleetEvent): void {
    if (e.type === 'state') {
      if (!isObject(e.payload.state)) return;
      this.entry(e.serial).state = { recorded: storedMs(e.at), state: e.payload.state };
    } else if (e.type === 'wifiscan-result') {
      // As the run query ranks only scans the builder can use, one without a usable entry keeps the previous.
      if (!e.payload.entries.some(usableEntry)) return;
      this.entry(e.serial).scan = { recorded: storedMs(e.at), entries: e.payload.entries };
    }
  }

  private entry(serial: string): Latest {
    let l = this.latest.get(serial);
    if (!l) this.latest.set(serial, (l = {}));
    return l;
  }

  /** The builder's input for a run: the newest state and scan of each device, its capabilities and configuration. */
  async documents(store: Store, serials: readonly string[]): Promise<DeviceDocuments[]> {
    const states = serials.filter((s) => this.latest.get(s)?.state === undefined);
    const scans = serials.filter((s) => this.latest.get(s)?.scan === undefined);
    const docs = await deviceDocuments(store, serials, 1, { states, scans });
    for (const d of docs) {
      const l = this.latest.get(d.serial);
      if (l?.state) d.states = [l.state];
      if (l?.scan) d.scans = [l.scan];
    }
    return docs;
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
