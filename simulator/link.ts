/**
 * SimLink: the DeviceLink adapter for one simulated AP. On the venue's clock
 * it connects (stagger of a few seconds), sends `connect`, then `state`, `healthcheck`, `log`,
 * optional periodic `wifiscan`, client `event`s and `telemetry` when asked; it answers commands
 * given to `send()` with result frames, reboots when told (disconnect, boot, reconnect) and can
 * crash (`crashesPerDay`), coming back with a `crashlog`.
 *
 *   const link = new SimLink(venue, serial);
 *   const stop = link.subscribe((e) => ...);   // first subscriber starts the AP
 *   await link.send({ jsonrpc: '2.0', id: 7, method: 'ping', params: { serial } });
 */
import type { DeviceLink, LinkEvent } from '../src/protocol/device-link.js';
import { isNotification, isResult, type DownFrame, type UpFrame } from '../src/protocol/frame.js';
import type { SimAp } from './ap/ap-state.js';
import { zeroCounters } from './ap/ap-state.js';
import { handleCommand, type ApControl } from './ap/command-handler.js';
import type { ShellIo, SimShell } from './ap/shell.js';
import { uplinkCounters, connectFrame, crashlogFrame, eventFrame, healthcheckFrame, logFrame, periodicScanFrame, stateFrame, telemetryFrame } from './ap/frames.js';
import { apDown } from './clients/dynamics.js';
import { radiosChanged, type Venue } from './venue.js';

export interface SimLinkOptions {
  /** Receives every up frame's JSON text as emitted, so a recorder need not serialise it again. */
  tap?: (json: string, at: number) => void;
  /** Delay before the first connection, ms. Default: 0..5 s drawn from the AP's own stream. */
  connectDelayMs?: number;
  /** Start when the first listener subscribes (default true); otherwise call `start()`. */
  autoStart?: boolean;
  /** How the AP POSTs a command's file to its upload `uri` (as the fw's curl does); without it the file goes inline in the reply. */
  upload?: SimUpload;
  /** How the AP's rtty client reaches the rtty server the `rtty` command names; without it the AP only checks the command. */
  rtty?: SimRtty;
}

/**
 * Starts an AP's rtty client towards `server:port`, registered as `id` with `token`; each login
 * opens a terminal with `shell`. Errors stay with the client (an AP does not report them).
 */
export type SimRtty = (s: { serial: string; server: string; port: number; id: string; token: string; shell: (io: ShellIo) => SimShell }) => void;

/** One file upload of a simulated AP; rejects when the uploader refused it or could not be reached. */
export type SimUpload = (u: { uri: string; serial: string; uuid: string; fileName: string; bytes: Buffer }) => Promise<void>;

/** Error raised by `send()` when the AP is not connected; `code` matches the project catalogue. */
export class SimOfflineError extends Error {
  readonly code = 'DEVICE_OFFLINE';
}

export class SimLink implements DeviceLink {
  readonly serial: string;
  private readonly ap: SimAp;
  private readonly listeners: ((e: LinkEvent) => void)[] = [];
  private readonly timers = new Set<unknown>();
  /** Periodic report timers only, so an interval change can restart them alone. */
  private readonly periodic = new Set<unknown>();
  private telemetryTimer: unknown;
  private started = false;
  private connected = false;
  private closed = false;
  private pendingCrashlog = false;
  private rebooted = false;

  constructor(private readonly venue: Venue, serial: string, private readonly opts: SimLinkOptions = {}) {
    const ap = venue.apBySerial.get(serial);
    if (!ap) throw new RangeError(`no AP ${serial} in venue ${venue.name}`);
    this.ap = ap;
    this.serial = serial;
    ap.onClientEvent = (type, payload) => this.emit(eventFrame(ap, venue.clock.now(), type, payload));
  }

  subscribe(listener: (event: LinkEvent) => void): () => void {
    this.listeners.push(listener);
    if (this.opts.autoStart !== false) this.start();
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Schedule the first connection. Idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const delay = this.opts.connectDelayMs ?? this.ap.rng.int(0, 5000);
    this.after(delay, () => this.connect());
  }

  send(frame: DownFrame): Promise<void> {
    if (!this.connected) return Promise.reject(new SimOfflineError(`simulated device ${this.serial} is not connected`));
    handleCommand(this.control(), frame);
    return Promise.resolve();
  }

  /**
   * Fault injection for tests: the AP sends `text` as one websocket message. Valid JSON-RPC up
   * frames are delivered as frames; anything else becomes a `malformed` event (never a throw).
   */
  injectRaw(text: string): void {
    if (!this.connected) return;
    const at = this.clock.now();
    const bytes = Buffer.byteLength(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.dispatch({ type: 'malformed', at, reason: 'not JSON', bytes });
      return;
    }
    if (isNotification(parsed) || isResult(parsed)) {
      this.opts.tap?.(text, at);
      this.dispatch({ type: 'frame', at, frame: parsed, bytes });
    } else {
      this.dispatch({ type: 'malformed', at, reason: 'not a JSON-RPC notification or result', bytes });
    }
  }

  close(reason = 'closed'): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.drop(reason);
    return Promise.resolve();
  }

  private get clock() { return this.venue.clock; }

  private dispatch(e: LinkEvent): void {
    for (const l of [...this.listeners]) l(e);
  }

  private emit(frame: UpFrame): void {
    if (!this.connected) return;
    const at = this.clock.now();
    const json = JSON.stringify(frame);
    this.opts.tap?.(json, at);
    this.dispatch({ type: 'frame', at, frame, bytes: Buffer.byteLength(json) });
  }

  private after(ms: number, fn: () => void): void {
    const id = this.clock.setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, ms);
    this.timers.add(id);
  }

  private every(ms: number, firstMs: number, fn: () => void): void {
    if (ms <= 0) return;
    // One callback re-armed after each report (timers set at the same points as before).
    let id: unknown;
    const tick = (): void => {
      this.periodic.delete(id);
      fn();
      id = this.clock.setTimeout(tick, ms);
      this.periodic.add(id);
    };
    id = this.clock.setTimeout(tick, firstMs);
    this.periodic.add(id);
  }

  private clearPeriodic(): void {
    for (const id of this.periodic) this.clock.clearTimeout(id);
    this.periodic.clear();
  }

  private connect(): void {
    const { ap } = this;
    const t = this.clock.now();
    this.connected = true;
    ap.prevCounters = uplinkCounters(ap, t); // the first delta_counters covers the time since connecting
    const o = ap.serial.match(/../g)!;
    this.dispatch({ type: 'connected', at: t, ipAddress: `10.${parseInt(o[3]!, 16)}.${parseInt(o[4]!, 16)}.${parseInt(o[5]!, 16) || 1}`, certificate: 'VERIFIED' });
    this.emit(connectFrame(ap));
    if (this.rebooted) {
      this.emit(logFrame(ap, `Booted firmware ${ap.firmware}, config uuid ${ap.uuid}`, 6));
      this.emit(eventFrame(ap, t, 'unit.boot-up', { firmware: ap.firmware, uuid: ap.uuid }));
    }
    if (this.pendingCrashlog) this.emit(crashlogFrame(ap, t));
    this.pendingCrashlog = false;
    this.schedulePeriodic();
    if (this.venue.crashesPerDay > 0) {
      this.after(Math.round(ap.rng.exp(86_400_000 / this.venue.crashesPerDay)), () => {
        this.pendingCrashlog = true;
        this.reboot({});
      });
    }
  }

  private schedulePeriodic(): void {
    const { ap, venue } = this;
    const iv = ap.intervals;
    // First reports land at a random phase so a venue's APs do not all speak at the same instant.
    this.every(iv.state, Math.round(ap.rng.uniform(0.1, 1) * iv.state), () => this.emit(stateFrame(venue, ap)));
    this.every(iv.healthcheck, Math.round(ap.rng.uniform(0.1, 1) * iv.healthcheck), () => this.emit(healthcheckFrame(ap)));
    this.every(iv.log, Math.round(ap.rng.uniform(0.1, 1) * iv.log), () => this.emit(logFrame(ap, `hostapd: ${ap.radios.reduce((n, r) => n + r.stations.length, 0)} stations associated`, 6)));
    this.every(iv.wifiscan, Math.round(ap.rng.uniform(0.1, 1) * iv.wifiscan), () => this.emit(periodicScanFrame(venue, ap)));
  }

  /** Stop every timer (periodic, pending replies, telemetry). */
  private clearTimers(): void {
    this.clearPeriodic();
    for (const id of this.timers) this.clock.clearTimeout(id);
    this.timers.clear();
    this.telemetryTimer = undefined;
  }

  private drop(reason: string): void {
    this.clearTimers();
    if (this.connected) {
      this.connected = false;
      this.dispatch({ type: 'disconnected', at: this.clock.now(), reason });
    }
  }

  private reboot(opts: { firmware?: string; factory?: boolean }): void {
    const { ap, venue } = this;
    this.drop(opts.firmware ? 'upgrade' : opts.factory ? 'factory' : 'reboot');
    apDown(venue, ap);
    const bootMs = ap.rng.int(45_000, 90_000);
    this.after(bootMs, () => {
      if (this.closed) return;
      const t = this.clock.now();
      if (opts.firmware) ap.firmware = opts.firmware;
      if (opts.factory) {
        ap.radios.forEach((r, i) => Object.assign(r, ap.factory.radios[i]));
        radiosChanged(venue);
        ap.intervals = { ...ap.factory.intervals };
        ap.scanReport = { ...ap.factory.scanReport };
        ap.uuid = ap.factory.uuid;
      }
      // Counters are since boot; the survey restarts on the new boot too.
      ap.bootAt = t - 30_000;
      ap.counters = zeroCounters();
      ap.prevCounters = zeroCounters();
      ap.prevSsidCounters.clear();
      for (const r of ap.radios) {
        r.counters = r.ssids.map(() => zeroCounters());
        r.survey = { activeMs: 0, busyMs: 0, rxMs: 0, txMs: 0 };
        r.prevSurvey = { ...r.survey };
        r.lastSurveyAt = t;
      }
      ap.up = true;
      this.rebooted = true;
      this.connect();
    });
  }

  private control(): ApControl {
    return {
      venue: this.venue,
      ap: this.ap,
      emit: (f) => this.emit(f),
      after: (ms, fn) => this.after(ms, fn),
      ...(this.opts.upload ? { upload: this.opts.upload } : {}),
      ...(this.opts.rtty ? { rtty: this.opts.rtty } : {}),
      reboot: (o) => this.reboot(o),
      telemetry: (intervalS, lifetimeS) => this.telemetry(intervalS, lifetimeS),
      intervalsChanged: () => {
        this.clearPeriodic();
        this.schedulePeriodic();
      },
    };
  }

  private telemetry(intervalS: number, lifetimeS: number): void {
    if (this.telemetryTimer !== undefined) {
      this.clock.clearTimeout(this.telemetryTimer);
      this.timers.delete(this.telemetryTimer);
      this.telemetryTimer = undefined;
    }
    if (intervalS <= 0) return;
    const until = this.clock.now() + lifetimeS * 1000;
    const tick = (): void => {
      this.timers.delete(this.telemetryTimer);
      this.telemetryTimer = undefined;
      if (this.clock.now() > until) return;
      this.emit(telemetryFrame(this.venue, this.ap));
      this.telemetryTimer = this.clock.setTimeout(tick, intervalS * 1000);
      this.timers.add(this.telemetryTimer);
    };
    this.telemetryTimer = this.clock.setTimeout(tick, intervalS * 1000);
    this.timers.add(this.telemetryTimer);
  }
}
