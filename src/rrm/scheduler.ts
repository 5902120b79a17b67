/**
 * The RRM scheduler (docs/upstream.md#rrm-schedules): each zone's `schedule` from its effective
 * zone config (default ⊕ network ⊕ zone, so a network schedule applies to every zone on its
 * own) fires its algorithms (or OptimizeChannel then OptimizeTxPower with default modes) and
 * applies the results. Fire times come from cron-parser (config/schedule.ts) against the
 * process clock, and the timers run on it, so an accelerated simulation runs schedules faster.
 * Timers are rebuilt after every topology or layer change (upstream: syncTriggers).
 */
import type { Logger } from 'pino';
import { zoneEffectiveConfig } from './config/layered.js';
import { nextFireTime, scheduleCrons, scheduledRuns } from './config/schedule.js';
import type { RrmApplier } from './apply.js';
import type { RrmStore } from './store.js';
import type { RrmDeps } from './deps.js';

/** Longest single timer: Node's setTimeout fires at once past 2^31-1 ms, so far fires re-arm. */
const MAX_TIMER_MS = 6 * 3600_000;

export interface SchedulerOptions {
  /** Compute without applying (upstream schedulerParams.dryRun, default false). */
  dryRun?: boolean;
}

export class RrmScheduler {
  private readonly timers = new Map<string, unknown>();
  private readonly running = new Set<string>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly log: Logger;
  /** Completed scheduled passes per zone (tests, diagnostics). */
  readonly fired = new Map<string, number>();

  constructor(
    private readonly deps: Omit<RrmDeps, 'rrm'>, private readonly rrm: RrmStore, private readonly applier: RrmApplier,
    private readonly opts: SchedulerOptions = {},
  ) {
    this.log = deps.logging.for('rrm');
  }

  start(): void {
    this.unsubscribe = this.rrm.onChange(() => this.sync());
    this.sync();
  }

  /** Drops every timer and arms one per (zone, cron) of the current schedules. */
  sync(): void {
    if (this.stopped) return;
    for (const t of this.timers.values()) this.deps.clock.clearTimeout(t);
    this.timers.clear();
    const layers = this.rrm.layers();
    for (const zone of Object.keys(this.rrm.topology())) {
      const crons = scheduleCrons(zoneEffectiveConfig(layers, zone).schedule);
      crons.forEach((cron, i) => this.arm(zone, `${zone}\u0000${i}`, cron));
    }
  }

  private arm(zone: string, key: string, cron: string): void {
    const now = this.deps.clock.now();
    const at = nextFireTime(cron, now);
    if (at === null) return;
    this.armAt(zone, key, cron, at);
  }

  private armAt(zone: string, key: string, cron: string, at: number): void {
    if (this.stopped) return;
    const wait = Math.max(0, at - this.deps.clock.now());
    this.timers.set(key, this.deps.clock.setTimeout(() => {
      if (this.deps.clock.now() < at) return this.armAt(zone, key, cron, at);
      void this.fire(zone);
      this.arm(zone, key, cron);
    }, Math.min(wait, MAX_TIMER_MS)));
  }

  /** Runs the zone's scheduled algorithms one after the other; skipped while a pass is running. */
  async fire(zone: string): Promise<void> {
    if (this.running.has(zone) || this.stopped) return;
    this.running.add(zone);
    try {
      // Re-read at fire time: the schedule may have changed since the timer was set.
      const schedule = zoneEffectiveConfig(this.rrm.layers(), zone).schedule;
      for (const run of scheduledRuns(schedule)) {
        if (this.stopped) break;
        try {
          const r = await this.applier.run({
            algorithm: run.name, args: run.args, allowDefaultMode: true, zone, zoneParam: 'zone', dryRun: this.opts.dryRun ?? false, source: 'scheduler',
          });
          this.log.info({ zone, algorithm: run.name, mode: r.outcome.mode, seed: r.outcome.seed, pushed: r.pushed.length }, 'rrm scheduled run');
        } catch (e) {
          this.log.warn({ zone, algorithm: run.name, err: e }, 'rrm scheduled run failed');
        }
      }
      this.fired.set(zone, (this.fired.get(zone) ?? 0) + 1);
    } finally {
      this.running.delete(zone);
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const t of this.timers.values()) this.deps.clock.clearTimeout(t);
    this.timers.clear();
  }
}
