import { filter, type Subscription } from 'rxjs';
import { airtwinError, deviceBusy, deviceOffline, deviceTakesNoCommand, notFound } from '../src/errors.js';
import type { Clock } from '../src/protocol/clock.js';
import { isObject, type JsonObject } from '../src/protocol/frame.js';
import {
  planConfigure, planEventqueue, planFactory, planGeneric, planLeds, planReboot, planRequest, planRtty, planScript,
  planTelemetry, planTrace, planUpgrade, planWifiscan, restoredSubmission, type Body, type CommandPlan, type ConfigureOptions, type RttyServer,
  type ScriptSource,
} from './command-params.js';
import type { CommandStore } from './command-store.js';
import { blankCommand, expiredRecord, failedRecord, survivesRestart } from './device/command-lifecycle.js';
import type { DeviceEventOf } from './device/device.events.js';
import { isFinalStatus, type Command, type CommandSubmission } from './device/device.types.js';
import type { Fleet } from './fleet.js';
import { FileWaits, uploadTypeOf } from './file-waits.js';
import { serialKey } from '../src/protocol/serial.js';
import { restrictable, restrictionRefusal, restrictionsOf } from './device/restrictions.js';

/** spec "PingResult": latency is the measured round trip in ms (a number, not the gateway's string). */
export interface PingResult {
  serialNumber: string;
  currentUTCTime: number;
  deviceUTCTime: number;
  latency: number;
  configurationUUID: number;
}

/** spec "RemoteSession". */
export interface RemoteSession {
  serialNumber: string;
  server: string;
  port: number;
  token: string;
  timeout: number;
  connectionId: string;
  started: number;
  commandUUID: string;
  viewport: number;
  password: string;
}

export interface CommandServiceOptions {
  fleet: Fleet;
  store: CommandStore;
  clock: Clock;
  /** Command UUIDs and rtty tokens; `randomUUID` in production. */
  newId: () => string;
  /** Upper bound of how long a call waits for the final record (default 130 s). */
  maxWaitMs?: number;
  /** Absent: every serial is accepted (an actor is created offline). Present and false: 404. */
  deviceExists?: (serial: string) => boolean | Promise<boolean>;
  /** Stored scripts for `script` with `scriptId`. */
  scriptById?: (id: string) => ScriptSource | undefined;
  /** Where an AP uploads a file for a command (trace, deferred script): the file-upload endpoint, when there is one. */
  uploadUri?: (commandUuid: string) => string | undefined;
  /** How long a command waits for its file after the AP's reply (default UPLOAD_WINDOW_MS). */
  uploadWindowMs?: number;
  rtty?: RttyServer;
  /**
   * The capabilities an AP last reported, for its restrictions (actors/device/restrictions.ts). Default:
   * what its actor holds from the current or last session.
   */
  capabilitiesOf?: (serial: string) => JsonObject | undefined | Promise<JsonObject | undefined>;
  /** A store write failed; the command itself goes on. Default: ignored. */
  onStoreError?: (error: unknown, command: Command) => void;
}

/** Who asked, for the record's `submittedBy`. */
export interface Caller {
  submittedBy?: string;
}

type Updated = DeviceEventOf<'command-updated'>;
type Rejected = DeviceEventOf<'command-rejected'>;

/**
 * The one way to send a device command, for the REST API and the RRM alike: validate, create the
 * Command record, hand it to the device actor, persist every change through the CommandStore,
 * and answer with the final record (or, after a bounded wait, the current one; queued and
 * scheduled commands answer at once with their pending record).
 */
export class CommandService {
  private writes: Promise<void> = Promise.resolve();
  private readonly subscription: Subscription;
  private readonly waiters = new Map<string, (e: Updated | Rejected) => void>();
  /** Commands waiting for a file their AP uploads (trace, deferred script). */
  readonly files: FileWaits;

  constructor(private readonly opts: CommandServiceOptions) {
    this.files = new FileWaits({
      clock: opts.clock, windowMs: opts.uploadWindowMs,
      changed: (command) => {
        this.persist(command, false);
        this.waiters.get(command.UUID)?.({ type: 'command-updated', serial: command.serialNumber, at: opts.clock.now(), payload: { command, created: false, queued: false } });
      },
    });
    // One subscription for all: every record change (system commands included) lands in the
    // store in order, and goes to the call waiting for that command, found by UUID, so many
    // concurrent calls (an RRM sweep) do not each filter the whole event stream.
    this.subscription = opts.fleet.events$
      .pipe(filter((e): e is Updated | Rejected => e.type === 'command-updated' || e.type === 'command-rejected'))
      .subscribe((e) => {
        if (e.type === 'command-updated') {
          const command = this.files.adjust(e.payload.command, e.payload.created);
          if (command !== e.payload.command) e = { ...e, payload: { ...e.payload, command } };
          this.persist(command, e.payload.created);
        }
        this.waiters.get(e.payload.command.UUID)?.(e);
      });
  }

  command(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planGeneric(serialKey(serial), body), 'command');
  }

  /** `strict`: any error the AP answers fails the command (without it, error 1 "applied with substitutions" completes). */
  configure(serial: string, body: Body, caller: Caller = {}, opts: ConfigureOptions = {}): Promise<Command> {
    return this.run(serial, caller, () => planConfigure(serialKey(serial), body, Math.floor(this.opts.clock.now() / 1000), opts), 'configure');
  }

  upgrade(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planUpgrade(serialKey(serial), body), 'upgrade');
  }

  reboot(serial: string, body: Body = {}, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planReboot(serialKey(serial), body), 'reboot');
  }

  factory(serial: string, body: Body = {}, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planFactory(serialKey(serial), body), 'factory');
  }

  leds(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planLeds(serialKey(serial), body), 'leds');
  }

  trace(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, (uuid) => planTrace(serialKey(serial), body, this.opts.uploadUri?.(uuid)), 'trace');
  }

  wifiscan(serial: string, body: Body = {}, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planWifiscan(serialKey(serial), body), 'wifiscan');
  }

  request(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, (uuid) => planRequest(serialKey(serial), body, uuid), 'request');
  }

  eventqueue(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planEventqueue(serialKey(serial), body), 'eventqueue');
  }

  telemetry(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, () => planTelemetry(serialKey(serial), body), 'telemetry');
  }

  script(serial: string, body: Body, caller: Caller = {}): Promise<Command> {
    return this.run(serial, caller, (uuid) => planScript(serialKey(serial), body, this.opts.scriptById, this.opts.uploadUri?.(uuid)), 'script');
  }

  /**
   * Ping: the PingResult with the measured round trip, once the AP answered, even with an error
   * (it is alive, and the record in the history says `failed`). A ping it does not answer is a 504.
   */
  async ping(serial: string, caller: Caller = {}): Promise<{ result: PingResult; command: Command }> {
    let latency: number | undefined;
    const command = await this.run(serial, caller, () => planGeneric(serialKey(serial), { command: 'ping' }), 'ping', (e) => {
      if (e.payload.latencyMs !== undefined) latency = e.payload.latencyMs;
    });
    if (latency === undefined) {
      throw airtwinError('COMMAND_TIMEOUT', 'ping', `Device ${command.serialNumber} did not answer the ping (${command.status}).`);
    }
    const result: unknown = JSON.parse(command.results || '{}');
    const r = isObject(result) ? result : {};
    const status = isObject(r.status) ? r.status : {};
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    return {
      command,
      result: {
        serialNumber: command.serialNumber,
        currentUTCTime: this.opts.clock.now(),
        deviceUTCTime: num(r.deviceUTCTime) ?? num(status.deviceUTCTime) ?? 0,
        latency,
        configurationUUID: num(r.uuid) ?? num(status.uuid) ?? this.opts.fleet.status(serial)?.UUID ?? 0,
      },
    };
  }

  /**
   * Remote session: asks the AP to open an rtty session to the configured server. Resolves with
   * the final record and the session it asked for; the session stands only if the record is
   * `completed` (the caller decides what to answer otherwise). `password` goes to the AP
   * (default "openwifi") and is never echoed: the session's is empty, as upstream.
   */
  async rtty(serial: string, session: { user?: string; password?: string } = {}, caller: Caller = {}): Promise<{ session: RemoteSession; command: Command }> {
    const rtty = this.opts.rtty;
    if (!rtty) throw airtwinError('RTTY_DISABLED', 'rtty', 'Remote sessions (rtty) are turned off on this gateway (serve --no-rtty); no AP is sent anywhere.');
    const connectionId = this.opts.newId().replace(/-/g, '');
    const token = rtty.token ?? this.opts.newId().replace(/-/g, '');
    const key = serialKey(serial);
    if (rtty.sessions && !rtty.sessions.open({ id: connectionId, token, serial: key })) {
      throw airtwinError('RTTY_SESSIONS_FULL', 'rtty', 'The internal rtty server holds as many sessions as --rtty-max-sessions allows; try again once one ends.');
    }
    let command: Command;
    try {
      command = await this.run(serial, caller, () => planRtty(key, rtty, {
        id: connectionId, token, user: session.user ?? caller.submittedBy ?? '', password: session.password ?? 'openwifi',
      }), 'rtty');
    } catch (e) {
      rtty.sessions?.end(connectionId);
      throw e;
    }
    // An AP that did not take the command will not come: its session goes now, not at its timeout.
    if (command.status !== 'completed') rtty.sessions?.end(connectionId);
    return {
      command,
      session: {
        serialNumber: command.serialNumber, server: rtty.server, port: rtty.port, token, timeout: rtty.timeout, connectionId,
        started: command.executed, commandUUID: command.UUID, viewport: rtty.viewport, password: '',
      },
    };
  }

  /**
   * After a restart, the commands the store still has open (`pending` or `executed`: accepted by
   * a process that stopped before they ended) go back to their AP's queue or end, so that no
   * command stays open with nothing to end it. A queued or scheduled one that survives a restart
   * (survivesRestart) returns to its AP's actor with its `when` and the expiry it had
   * (device.logic restore); one that was on the wire ends `failed` (its reply, if any, went to the
   * process that stopped), and any other `expired`, each saying why. Resolves once the records
   * it ended are written.
   */
  async restore(open: readonly Command[]): Promise<{ reopened: number; ended: number }> {
    let reopened = 0;
    const now = this.opts.clock.now();
    for (const c of open) {
      const why = await this.whyNotReopened(c);
      if (why === undefined) {
        this.opts.fleet.restore(c.serialNumber, restoredSubmission(c)!);
        reopened++;
        continue;
      }
      this.persist(c.status === 'executed' ? failedRecord(c, now, why) : expiredRecord(c, now, why), false);
    }
    await this.writes;
    return { reopened, ended: open.length - reopened };
  }

  /** Why an open command read back after a restart cannot go back to its AP's queue, or undefined when it can. */
  private async whyNotReopened(c: Command): Promise<string | undefined> {
    if (c.status === 'executed') {
      return c.waitingForFile ? "The service restarted while it waited for the device's file upload." : 'The service restarted before the device replied.';
    }
    if (this.opts.deviceExists && !(await this.opts.deviceExists(c.serialNumber))) return 'The device no longer exists.';
    const sub = restoredSubmission(c);
    if (!sub) return 'The service restarted, and the stored command could not be read back to send it.';
    return survivesRestart(sub) ? undefined : 'The service restarted before the command was sent.';
  }

  /** Wait until every record change seen so far is written (tests, shutdown). */
  flush(): Promise<void> {
    return this.writes;
  }

  close(): void {
    this.subscription.unsubscribe();
    this.files.close();
  }

  private persist(command: Command, created: boolean): void {
    const { store, onStoreError } = this.opts;
    this.writes = this.writes
      .then(() => (created ? store.insert(command) : store.update(command)))
      .catch((err: unknown) => onStoreError?.(err, command));
  }

  private async run(
    rawSerial: string, caller: Caller, build: (uuid: string) => CommandPlan, name: string, onUpdate?: (e: Updated) => void,
  ): Promise<Command> {
    const serial = serialKey(rawSerial);
    if (this.opts.deviceExists && !(await this.opts.deviceExists(serial))) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    const uuid = this.opts.newId();
    const p = build(uuid);
    // A restricted AP's refusal is known before anything is sent or recorded (upstream: 400 1151 / 1146;
    // here 403 DEVICE_RESTRICTED / 400 SIGNATURE_REQUIRED). A command queued before the AP reported
    // its restrictions is checked again when it would be sent (device.logic refuseNext).
    if (restrictable(p.method, p.params)) {
      const capabilities = await (this.opts.capabilitiesOf ?? ((s: string) => this.opts.fleet.details(s)?.capabilities))(serial);
      const refusal = restrictionRefusal(p.method, p.params, restrictionsOf(capabilities));
      if (refusal) throw airtwinError(refusal.code, name, `Device ${serial}: ${refusal.description}`);
    }
    const nowMs = this.opts.clock.now();
    const record = blankCommand({
      UUID: uuid, command: p.method, serialNumber: serial, submitted: Math.floor(nowMs / 1000), submittedBy: caller.submittedBy ?? '',
      when: p.when, details: JSON.stringify(p.details ?? p.params), deferred: p.deferred ?? false, waitingForFile: p.uploads ? 1 : 0,
    });
    const sub: CommandSubmission = {
      command: p.uploads ? { ...record, attachType: uploadTypeOf(record) } : record,
      method: p.method, params: p.params, timeoutMs: p.timeoutMs, queueable: p.queueable, awaitResult: p.awaitResult,
      restart: p.restart, runAt: p.when * 1000,
    };
    const final = await this.submitAndWait(serial, sub, name, onUpdate);
    await this.writes;
    return final;
  }

  /** Resolve on the final record, at once for a queued one, or with the latest record after the bound. */
  private submitAndWait(serial: string, sub: CommandSubmission, name: string, onUpdate?: (e: Updated) => void): Promise<Command> {
    const uuid = sub.command.UUID;
    const waitMs = Math.min(this.opts.maxWaitMs ?? 130_000, sub.timeoutMs + 1000);
    return new Promise<Command>((resolve, reject) => {
      let latest = sub.command;
      const done = (fn: () => void) => {
        this.opts.clock.clearTimeout(timer);
        this.waiters.delete(uuid);
        fn();
      };
      this.waiters.set(uuid, (e) => {
        if (e.type === 'command-rejected') {
          const err = e.payload.code === 'DEVICE_BUSY' ? deviceBusy(serial, name) : e.payload.byLink ? deviceTakesNoCommand(serial, name, e.payload.reason) : deviceOffline(serial, name);
          done(() => reject(err));
          return;
        }
        latest = e.payload.command;
        onUpdate?.(e);
        if (isFinalStatus(latest.status) || e.payload.queued) done(() => resolve(latest));
      });
      // Declared after the waiter; `done` can only run once `submit` below emits.
      const timer = this.opts.clock.setTimeout(() => done(() => resolve(latest)), waitMs);
      this.opts.fleet.submit(serial, sub);
    });
  }
}
