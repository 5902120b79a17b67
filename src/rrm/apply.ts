/**
 * Runs an algorithm on a zone and applies the result (docs/upstream.md#how-rrm-applies-results):
 * the pure core (run-zone.ts, apply-plan.ts) says what changes; this file does it. Unless
 * dry-run/mock: the new auto values go into the AP layers (DuckDB), then configure commands that
 * change only the radios' channel / tx-power go through the fleet's command service, the same one
 * the gateway uses. A device configured less than the debounce window ago waits; when the window
 * ends its configuration is recomputed from the layers then (so a channel run and a power run in
 * quick succession end up as one push with both).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { isZoneInTopology } from './config/topology.js';
import { effectiveConfig } from './config/layered.js';
import { targetValues, withRadioValues, type DeviceConfiguration } from './apply-plan.js';
import { debouncePushes, DEFAULT_CONFIG_DEBOUNCE_MS } from './collection.js';
import { buildModel, type DeviceDocuments } from './model/build.js';
import { currentConfigurations } from './model-query.js';
import { LatestDocuments } from './latest-documents.js';
import { runZone, type ZoneRunResult } from './run-zone.js';
import { loadSolver } from './algorithms/exact.js';
import type { RunOutcome } from './algorithms/registry.js';
import type { RrmStore } from './store.js';
import type { RrmDeps } from './deps.js';
import type { ScorePair } from './score/types.js';

/** States and scans per device a run reads (see exec in RrmApplier.run). */
export const RUN_BUFFER = 1;

export interface RunRequest {
  algorithm: string;
  args?: string | Record<string, string> | null;
  allowDefaultMode: boolean;
  zone: string | undefined;
  zoneParam?: 'zone' | 'venue';
  dryRun: boolean;
  /** Who asked: 'api' or 'scheduler' (run history, command `submittedBy` stays 'rrm'). */
  source: string;
}

export interface RunReport {
  outcome: RunOutcome;
  score: ScorePair;
  /** Id of the run in the run history. */
  runId: string;
  /** Devices a configure command was sent to, or deferred for by the debounce. */
  pushed: string[];
  /** Devices whose new values are in their layers but could not be sent, with why (APs that take no new command). */
  notPushed: Record<string, string>;
}

/** Why an AP that takes no new command gets no configure: the answer says so instead of a silent refusal. */
export const notPushedBecause = (why: string): string => `${why}; the new values are in its layers`;

export interface ApplierOptions {
  debounceMs?: number;
}

export class RrmApplier {
  private readonly lastPushAt = new Map<string, number>();
  /** The last configuration document sent to each device. */
  private readonly lastSent = new Map<string, DeviceConfiguration>();
  private readonly waiting = new Map<string, unknown>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Runs in progress: close() waits for them, so none touches the store after it closes. */
  private readonly runs = new Set<Promise<unknown>>();
  private closed = false;
  private readonly debounceMs: number;
  private readonly log: Logger;
  /** Each AP's newest state and scan, from the fleet's events. */
  private readonly latest: LatestDocuments;

  constructor(private readonly deps: Omit<RrmDeps, 'rrm'>, private readonly rrm: RrmStore, opts: ApplierOptions = {}) {
    this.debounceMs = opts.debounceMs ?? DEFAULT_CONFIG_DEBOUNCE_MS;
    this.log = deps.logging.for('rrm');
    this.latest = new LatestDocuments(deps.fleet.events$);
  }

  /** What a run of `serials` builds its model from (public for bench/rrm-model.ts). */
  runDocuments(serials: readonly string[]): Promise<DeviceDocuments[]> {
    return this.latest.documents(this.deps.store, serials);
  }

  run(req: RunRequest): Promise<RunReport> {
    if (this.closed) return Promise.reject(new Error('the RRM is shutting down'));
    const p = this.runNow(req);
    this.runs.add(p);
    void p.catch(() => undefined).finally(() => this.runs.delete(p));
    return p;
  }

  private async runNow(req: RunRequest): Promise<RunReport> {
    await loadSolver();
    const seed = randomUUID();
    const exec = async (topology = this.rrm.topology(), layers = this.rrm.layers()): Promise<ZoneRunResult> => {
      const serials = req.zone !== undefined && isZoneInTopology(topology, req.zone) ? topology[req.zone]! : [];
      // The optimizers read only the newest state and scan of each device (model/view.ts), so a
      // run takes one of each, from memory when the AP was heard since the start: the same plan
      // as with the model's 10, without reading ~300 scan entries per AP out of DuckDB.
      const docs = await this.runDocuments(serials);
      const current = new Map<string, DeviceConfiguration>();
      for (const d of docs) if (d.activeConfig) current.set(d.serial, d.activeConfig as DeviceConfiguration);
      return runZone({
        algorithm: req.algorithm, args: req.args, allowDefaultMode: req.allowDefaultMode, zone: req.zone, zoneParam: req.zoneParam,
        topology, layers, model: buildModel(docs), seed, dryRun: req.dryRun, current, ...(this.deps.site ? { site: this.deps.site } : {}),
      });
    };
    let result: ZoneRunResult;
    let layersBefore = this.rrm.layers();
    if (req.dryRun) {
      result = await exec();
    } else {
      // Inside the store's write chain: no layer change can slip in between reading and writing.
      let r: ZoneRunResult | undefined;
      await this.rrm.update(async (topology, layers) => {
        layersBefore = layers;
        r = await exec(topology, layers);
        return { layers: r.layers };
      });
      result = r!;
    }
    const sent = this.push(result.commands);
    const pushed = sent.pushed;
    const notPushed = { ...result.notPushed, ...sent.notPushed };
    // A link that takes no new command is the reason that matters first: no configure reaches such an AP.
    for (const serial of Object.keys(notPushed)) {
      const why = this.deps.fleet.commandRefusal(serial);
      if (why !== undefined) notPushed[serial] = notPushedBecause(why);
    }
    const o = result.outcome;
    // The device record only shows a configure once the AP took it: a device pushed moments ago
    // may be moving to another value than its record says, so it is checked again when its
    // window ends even when the record already matches this plan.
    if (!req.dryRun) for (const serial of Object.keys(o.plan)) if (!result.commands.has(serial) && this.inWindow(serial)) this.later(serial, this.lastPushAt.get(serial)! + this.debounceMs - this.deps.clock.now());
    const runId = randomUUID();
    // Applied: the plan changed something that went into the layers (the APs follow them).
    const applied = !req.dryRun && result.layers !== layersBefore;
    await this.rrm.recordRun({
      id: runId, zone: req.zone ?? '', algorithm: o.algorithm, mode: o.mode, seed: o.seed,
      args: typeof req.args === 'string' ? req.args : JSON.stringify(req.args ?? {}), dryRun: req.dryRun, source: req.source,
      plan: o.plan, pushed, createdMs: this.deps.clock.now(), score: result.score, applied, serials: result.serials,
      measured: null, measuredMs: null,
    });
    return { outcome: o, score: result.score, runId, pushed, notPushed };
  }

  /**
   * Sends what the debounce lets through; the rest is recomputed when its window ends. An AP whose
   * link takes no new command is left out: the fleet would refuse the command.
   */
  private push(all: ReadonlyMap<string, DeviceConfiguration>): { pushed: string[]; notPushed: Record<string, string> } {
    const notPushed: Record<string, string> = {};
    const commands = new Map<string, DeviceConfiguration>();
    for (const [serial, configuration] of all) {
      const why = this.deps.fleet.commandRefusal(serial);
      if (why !== undefined) notPushed[serial] = notPushedBecause(why);
      else commands.set(serial, configuration);
    }
    if (Object.keys(notPushed).length > 0) this.log.info({ devices: Object.keys(notPushed) }, 'rrm: APs that take no new command get no configure; their new values are in their layers');
    if (this.closed) return { pushed: [], notPushed };
    const now = this.deps.clock.now();
    const { send, defer } = debouncePushes(commands, this.lastPushAt, now, this.debounceMs);
    for (const [serial, configuration] of send) this.send(serial, configuration);
    for (const serial of defer.keys()) this.later(serial, this.lastPushAt.get(serial)! + this.debounceMs - now);
    return { pushed: [...commands.keys()], notPushed };
  }

  private inWindow(serial: string): boolean {
    const last = this.lastPushAt.get(serial);
    return last !== undefined && this.deps.clock.now() - last < this.debounceMs;
  }

  private send(serial: string, configuration: DeviceConfiguration): void {
    this.lastPushAt.set(serial, this.deps.clock.now());
    this.lastSent.set(serial, configuration);
    const p = this.deps.commandService.configure(serial, { serialNumber: serial, configuration }, { submittedBy: 'rrm' })
      .then((c) => this.log.info({ serial, command: c.UUID, status: c.status }, 'rrm configure sent'))
      .catch((e: unknown) => this.log.warn({ serial, err: e }, 'rrm configure failed'));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private later(serial: string, delayMs: number): void {
    if (this.waiting.has(serial)) return;
    const timer = this.deps.clock.setTimeout(() => {
      this.waiting.delete(serial);
      void this.reconcile(serial).catch((e: unknown) => this.log.warn({ serial, err: e }, 'rrm deferred configure failed'));
    }, Math.max(1, delayMs));
    this.waiting.set(serial, timer);
  }

  /** The device's configuration with the radios set to what the layers say now, if that differs. */
  private async reconcile(serial: string): Promise<void> {
    if (this.closed) return;
    const cfg = effectiveConfig(this.rrm.layers(), this.rrm.topology(), serial);
    if (!cfg || !cfg.enableRRM || !cfg.enableConfig) return;
    const current = (await currentConfigurations(this.deps.store, [serial])).get(serial);
    if (!current) return;
    const targets = (base: DeviceConfiguration): DeviceConfiguration | null => {
      const withChannels = withRadioValues(base, 'channel', targetValues(cfg, 'channel'));
      return withRadioValues(withChannels ?? base, 'txPower', targetValues(cfg, 'txPower')) ?? withChannels;
    };
    let next = targets(current);
    // The record matches, but the last document sent (maybe not taken yet) does not: send again.
    const sent = this.lastSent.get(serial);
    if (!next && sent && targets(sent)) next = current;
    if (next) this.push(new Map([[serial, next]]));
  }

  /**
   * Stops deferred pushes. Commands already sent are the command service's (the fleet closes
   * after this and settles them); waiting for them could wait on a clock that no longer runs.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.latest.stop();
    for (const t of this.waiting.values()) this.deps.clock.clearTimeout(t);
    this.waiting.clear();
    await Promise.allSettled([...this.runs]);
  }

  /** Commands sent and not yet answered (tests wait for them). */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.inFlight]);
  }
}
