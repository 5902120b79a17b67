/**
 * Data collection (docs/upstream.md#rrm-data-collection): every tick, the zone members that are
 * connected get a wifi scan when their effective `enableWifiScan` is on and their interval has
 * passed, and a state request when their capabilities interval has passed. Results reach the model
 * through the ingest pipeline (wifi_scan_entries, statistics), like every other frame, so the
 * collector only sends commands. Which devices are due is the pure planner's (collection.ts); the
 * timer runs on the process clock, so an accelerated simulation collects faster.
 *
 * Capabilities: an AP sends them with every connect (stored by the ingest pipeline), and the
 * uCentral protocol has no command that asks for them again; the refresh therefore asks for a
 * state (`request` message=state), which refreshes what the model derives from the state.
 */
import type { Logger } from 'pino';
import { zoneDeviceConfigs } from './config/layered.js';
import { dueCollections, DEFAULT_CAPABILITIES_INTERVAL_MS, DEFAULT_WIFI_SCAN_INTERVAL_MS } from './collection.js';
import type { EffectiveConfig } from './schemas/device-config.js';
import { buildModel } from './model/build.js';
import { deviceDocuments } from './model-query.js';
import { cciInstance, normalisedPrimary, scoreInstance } from './score/cci.js';
import type { RrmStore, RunRecord } from './store.js';
import type { RrmDeps } from './deps.js';

export interface CollectorOptions {
  /** Between two scans of one AP (<= 0 disables scans). Default 900 s (upstream). */
  wifiScanIntervalMs?: number;
  /** Between two capability/state refreshes of one AP. Default 3600 s (upstream). */
  capabilitiesIntervalMs?: number;
  /** How often the collector looks for due work. Default 30 s (upstream updateIntervalMs). */
  tickMs?: number;
}

/** After this long, an applied run is measured even when some radio does not run the plan. */
const MEASURE_GIVE_UP_MS = 3_600_000;

/** True when the radios of the zone report the plan's values. */
function runsPlan(inst: ReturnType<typeof cciInstance>, run: RunRecord): boolean {
  const plan = (run.plan ?? {}) as Record<string, Record<string, number>>;
  const channel = run.algorithm === 'OptimizeChannel';
  return inst.radios.every((r) => {
    const v = plan[r.serial]?.[r.band];
    if (v === undefined) return true;
    return channel ? normalisedPrimary(r.band, v, r.width) === r.channel : r.txPower === undefined || r.txPower === v;
  });
}

export class RrmCollector {
  private readonly lastScanAt = new Map<string, number>();
  private readonly lastCapabilitiesAt = new Map<string, number>();
  /** Devices with a collection command on the wire: one at a time per AP (else DEVICE_BUSY). */
  private readonly busy = new Set<string>();
  private timer: unknown;
  private scansSeen: { unsubscribe(): void } | undefined;
  private stopped = false;
  private measuring: Promise<void> | undefined;
  private readonly log: Logger;

  constructor(private readonly deps: Omit<RrmDeps, 'rrm'>, private readonly rrm: RrmStore, private readonly opts: CollectorOptions = {}) {
    this.log = deps.logging.for('rrm');
  }

  start(): void {
    // A scan the AP sent on its own (a periodic wifiscan notification) or for anyone else is as good
    // as one of ours: an AP that scans on its own is never asked, so its commands find it free.
    this.scansSeen = this.deps.fleet.events$.subscribe((e) => {
      if (e.type === 'wifiscan-result') this.lastScanAt.set(e.serial, this.deps.clock.now());
    });
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      try {
        this.tick();
      } catch (e) {
        this.log.error({ err: e }, 'rrm collector tick failed');
      }
      this.schedule();
    }, this.opts.tickMs ?? 30_000);
  }

  /** One pass: sends what is due now. Public for tests. */
  tick(): { wifiScan: string[]; capabilities: string[] } {
    const topology = this.rrm.storedTopology();
    const layers = this.rrm.layers();
    const configs = new Map<string, EffectiveConfig>();
    for (const zone of Object.keys(topology)) for (const [s, c] of zoneDeviceConfigs(layers, topology, zone)) configs.set(s, c);
    const now = this.deps.clock.now();
    const connected = new Set<string>();
    for (const s of configs.keys()) {
      const st = this.deps.fleet.status(s);
      // An AP that takes no new command would only refuse a scan.
      if (st?.connected !== true || this.busy.has(s) || !this.deps.fleet.commandable(s)) continue;
      connected.add(s);
      // Its first scan is due one interval after it is first seen, not on the first tick: a venue
      // whose APs scan on their own reports before then, and a start is not a burst of commands.
      if (!this.lastScanAt.has(s)) this.lastScanAt.set(s, now);
      // An AP sends its capabilities when it connects: they are as fresh as the session.
      const session = Math.min(now, st.started * 1000);
      if ((this.lastCapabilitiesAt.get(s) ?? 0) < session) this.lastCapabilitiesAt.set(s, session);
    }
    const plan = dueCollections({
      configs, connected, lastScanAt: this.lastScanAt, lastCapabilitiesAt: this.lastCapabilitiesAt, now,
      wifiScanIntervalMs: this.opts.wifiScanIntervalMs ?? DEFAULT_WIFI_SCAN_INTERVAL_MS,
      capabilitiesIntervalMs: this.opts.capabilitiesIntervalMs ?? DEFAULT_CAPABILITIES_INTERVAL_MS,
    });
    const caps = new Set(plan.capabilities);
    for (const serial of plan.wifiScan) {
      this.lastScanAt.set(serial, now);
      const refresh = caps.delete(serial);
      if (refresh) this.lastCapabilitiesAt.set(serial, now);
      this.sequence(serial, [() => this.scan(serial), ...(refresh ? [() => this.refresh(serial)] : [])]);
    }
    for (const serial of caps) {
      this.lastCapabilitiesAt.set(serial, now);
      this.sequence(serial, [() => this.refresh(serial)]);
    }
    this.measuring ??= this.measure()
      .catch((e: unknown) => this.log.warn({ err: e }, 'rrm run measurement failed'))
      .finally(() => { this.measuring = undefined; });
    return plan;
  }

  /**
   * The measured effect of applied runs: once every zone member that scans has a scan and a state
   * newer than the apply, and its radios run the plan (or the run is over an hour old: an AP
   * may refuse a value), the zone is scored from those documents and stored beside the prediction.
   * Public for tests; resolves when the pass is done.
   */
  async measure(): Promise<void> {
    const now = this.deps.clock.now();
    for (const run of await this.rrm.awaitingMeasurement()) {
      if (this.stopped) return;
      const docs = await deviceDocuments(this.deps.store, run.serials, 1);
      const scanning = docs.filter((d) => d.scans.length > 0);
      if (scanning.length === 0) continue;
      const fresh = scanning.every((d) => d.scans.some((x) => x.recorded > run.createdMs) && d.states.some((x) => x.recorded > run.createdMs));
      if (!fresh) continue;
      const inst = cciInstance(buildModel(docs), run.serials);
      if (!runsPlan(inst, run) && now - run.createdMs < MEASURE_GIVE_UP_MS) continue;
      await this.rrm.setMeasured(run.id, scoreInstance(inst), now);
    }
  }

  /** Runs one AP's commands one after the other; a failure is logged and retried next interval. */
  private sequence(serial: string, steps: (() => Promise<unknown>)[]): void {
    this.busy.add(serial);
    void steps.reduce<Promise<unknown>>((p, step) => p.then(() => (this.stopped ? undefined : step())), Promise.resolve())
      .catch((e: unknown) => this.log.warn({ serial, err: e }, 'rrm collection command failed'))
      .finally(() => this.busy.delete(serial));
  }

  private scan(serial: string): Promise<unknown> {
    // docs/upstream.md#rrm-data-collection: passive, verbose (HT/VHT operation elements give
    // neighbours' widths), no DFS override.
    return this.deps.commandService.wifiscan(serial, { serialNumber: serial, verbose: true, activeScan: false, override_dfs: false }, { submittedBy: 'rrm' })
      .catch((e: unknown) => {
        // Busy or offline now: try again at the next tick instead of a whole interval later.
        this.lastScanAt.set(serial, 0);
        throw e;
      });
  }

  private refresh(serial: string): Promise<unknown> {
    return this.deps.commandService.request(serial, { serialNumber: serial, message: 'state' }, { submittedBy: 'rrm' });
  }

  /** Waits for a measurement pass in progress (close waits for it before the store closes). */
  async settled(): Promise<void> {
    await this.measuring;
  }

  stop(): void {
    this.stopped = true;
    this.scansSeen?.unsubscribe();
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
  }
}
