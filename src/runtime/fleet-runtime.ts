import { randomUUID } from 'node:crypto';
import { wallClock, nowSeconds, type Clock } from '../protocol/clock.js';
import { serialToMac } from '../protocol/serial.js';
import { isAirtwinError } from '../errors.js';
import type { JsonObject } from '../protocol/frame.js';
import type { DevicesRepo, StoredDevice } from '../store/devices-repo.js';
import type { BlacklistRepo } from '../store/blacklist-repo.js';
import type { DefaultConfigsRepo } from '../store/default-configs-repo.js';
import type { CommandsRepo } from '../store/commands-repo.js';
import type { ScriptsRepo } from '../store/scripts-repo.js';
import type { DeviceStatusSource } from '../gateway/device-status-source.js';
import { Fleet, type FleetEvent } from '../../actors/fleet.js';
import { CommandService } from '../../actors/command-service.js';
import type { RttyServer, ScriptSource, ScriptType } from '../../actors/command-params.js';
import { decodeFrame, paramOutOfRange } from '../../actors/device/frame-decoder.js';
import { ScaledClock, VirtualClock } from '../../simulator/clock.js';
import { WarmStartClock } from '../../simulator/warm-start-clock.js';

/**
 * The one clock of a process and what drives it: `release()` lets a warm start's clock run (the
 * simulated venue calls it once it runs), `followWallTime()` lets a replay's clock go on at wall
 * speed after the last line, `stop()` ends a driver's own loop.
 */
export interface ClockDriver {
  clock: Clock;
  stop(): void;
  followWallTime(): void;
  release(): void;
  /** A warm start: how far in the past the clock starts and how fast it catches up. */
  warmUp?: { ms: number; speed: number; caughtUpAt(): number | undefined };
}

/**
 * How much faster than `--speed` a warm start runs until it has caught up: 30 times the wall
 * (300 s of history in ~10 s), or twice a speed above 15.
 */
export function warmUpSpeed(speed: number): number {
  return Math.max(WARM_UP_SPEED, 2 * speed);
}
const WARM_UP_SPEED = 30;

/**
 * The process clock for a speed: wall time at 1, wall time × N at N, and for `max` a virtual
 * clock that a driver advances as fast as the event loop allows (HTTP still gets its turns,
 * because each slice ends with a setImmediate). `warmUpMs` > 0 starts it that far in the past:
 * paced, it is held there until `release()` and then catches up at warmUpSpeed (a
 * WarmStartClock); at `max` the virtual clock simply starts there.
 */
export function processClock(speed: number | 'max', base: Clock = wallClock, warmUpMs = 0): ClockDriver {
  const none = () => undefined;
  if (speed !== 'max' && warmUpMs > 0) {
    const clock = new WarmStartClock(base, { behindMs: warmUpMs, speed, catchUpSpeed: warmUpSpeed(speed) });
    return {
      clock, stop: none, followWallTime: none, release: () => clock.release(),
      warmUp: { ms: warmUpMs, speed: clock.catchUpSpeed, caughtUpAt: () => clock.caughtUpAt },
    };
  }
  if (speed === 1) return { clock: base, stop: none, followWallTime: none, release: none };
  if (speed !== 'max') return { clock: new ScaledClock(base, speed), stop: none, followWallTime: none, release: none };
  const clock = new VirtualClock(base.now() - Math.max(0, warmUpMs));
  let stopped = false;
  const slice = () => {
    if (stopped) return;
    clock.runUntil(clock.now() + 1_000);
    setImmediate(slice);
  };
  setImmediate(slice);
  return { clock, stop: () => void (stopped = true), followWallTime: none, release: none };
}

/** The configuration a configure command sent (its `details` are the params: `{uuid, config}`). */
function sentConfiguration(details: string): { uuid: number; config: JsonObject } | undefined {
  try {
    const d = JSON.parse(details) as JsonObject;
    const config = d.config;
    if (typeof d.uuid !== 'number' || typeof config !== 'object' || config === null || Array.isArray(config)) return undefined;
    return { uuid: d.uuid, config: config as JsonObject };
  } catch {
    return undefined;
  }
}

/**
 * The clock of `serve --replay`: at `max` the replayer advances a virtual clock itself while
 * lines remain, at `--speed N` a scaled clock runs N times faster than the wall. After the last
 * line `followWallTime()` lets either run on at wall speed, from where it is (the service keeps
 * serving, and a command's timeout or a device's timer takes as long as on a live service).
 * With `catchUp` (a replay placed to end now, replayClock), a virtual clock first runs on to that
 * clock's now: the replay's last line played at the time it started, and its seconds of playing
 * would otherwise leave the service that far behind the wall for good.
 */
export function replayDriver(clock: Clock, opts: { catchUp?: Clock } = {}): ClockDriver {
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    clock,
    release: () => undefined,
    followWallTime() {
      if (clock instanceof ScaledClock) {
        // The replayer left it held at the last line.
        clock.setSpeed(1);
        return clock.holdAt(undefined);
      }
      if (!(clock instanceof VirtualClock) || timer) return;
      const wall = opts.catchUp?.now();
      if (wall !== undefined && wall > clock.now()) clock.runUntil(wall);
      let last = Date.now();
      timer = setInterval(() => {
        const now = Date.now();
        clock.runUntil(clock.now() + (now - last));
        last = now;
      }, 100);
    },
    stop: () => clearInterval(timer),
  };
}

const ignoreAlreadyExists = (e: unknown): void => {
  if (!(isAirtwinError(e) && e.code === 'ALREADY_EXISTS')) throw e;
};

/** Whether a recorded connect frame is one its device actor accepts (recordedConnects' filter). */
export const acceptedConnect = (frame: JsonObject): boolean => decodeFrame(frame).kind === 'notification';

/** What the runtime logs through (pino's Logger fits; `airtwin replay` prints one line each). */
export interface RuntimeLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface FleetRuntimeDeps {
  clock: Clock;
  devices: DevicesRepo;
  blacklist: BlacklistRepo;
  defaultConfigs: DefaultConfigsRepo;
  commands: CommandsRepo;
  autoProvision: boolean;
  logger: RuntimeLogger;
  /** Where rtty sessions point; without it (serve --no-rtty) GET rtty is 503 RTTY_DISABLED. */
  rtty?: RttyServer;
  /** The stored capabilities of an AP (its restrictions), for one whose actor has not seen it connect since the start. */
  storedCapabilities?: (serial: string) => Promise<JsonObject | undefined>;
  /** Ids of the commands the fleet starts itself (default: random; `airtwin replay` makes them repeatable). */
  newId?: () => string;
  /** Stored scripts a `script` command runs by `scriptId` (its id, else its name). */
  scripts?: ScriptsRepo;
  /** Where an AP uploads the file of a command (the uploader's URL for it), once the uploader listens. */
  uploadUri?: (commandUuid: string) => string | undefined;
}

/** A stored script as the command service runs it: its text base64-encoded, as the AP takes scripts. */
function storedScript(scripts: ScriptsRepo, idOrName: string): ScriptSource | undefined {
  const s = scripts.get(idOrName) ?? scripts.all().find((x) => x.name === idOrName);
  if (!s) return undefined;
  return {
    type: s.type as ScriptType, script: Buffer.from(s.content).toString('base64'), timeout: s.timeout, deferred: s.deferred,
    ...(s.defaultUploadURI ? { uri: s.defaultUploadURI } : {}),
  };
}

export interface FleetRuntime {
  fleet: Fleet;
  /** Create the record of an unknown AP as its connect would (policy: --no-auto-provision refuses). */
  provision(serial: string, connectParams: JsonObject): Promise<'accept' | 'refuse'>;
  /**
   * `provision` for many APs at once, in one transaction (a replay's recorded APs before its
   * first line: one INSERT each took ~0.5 s for 200). Known serials are left as they are.
   */
  provisionAll(connects: Iterable<[serial: string, connectParams: JsonObject]>): Promise<void>;
  commandService: CommandService;
  status: DeviceStatusSource;
  /** Wait for the device record and command history writes of the events so far. */
  flush(): Promise<void>;
  /**
   * Reopen the commands the store has open from an earlier run (CommandService.restore): queued
   * and scheduled ones go back to their AP's queue, the others end. Once, before APs connect.
   */
  reopenCommands(): Promise<{ reopened: number; ended: number }>;
  /**
   * Stop every actor (events$ completes, so pipelines flush) and wait for pending record writes.
   * `keepQueued`: queued and scheduled commands stay pending for the next start to reopen.
   */
  close(reason?: string, opts?: { keepQueued?: boolean }): Promise<void>;
}

/** The record an unknown AP's connect creates (a matching default configuration, else the AP's uuid). */
function autoProvisionedRecord(serial: string, params: JsonObject, clock: Clock, defaultConfigs: DefaultConfigsRepo): StoredDevice {
  const caps = (params.capabilities ?? {}) as JsonObject;
  const compatible = String(caps.compatible ?? '');
  const now = nowSeconds(clock);
  const reportedUuid = typeof params.uuid === 'number' ? params.uuid : 0;
  const match = defaultConfigs.match(compatible);
  // A matching default configuration gets a fresh uuid, so reconciliation pushes it at once.
  const configuration = match ? { ...(JSON.parse(match.configuration) as JsonObject), uuid: now } : { uuid: reportedUuid };
  return {
    serialNumber: serial, deviceType: String(caps.platform ?? 'ap').toUpperCase() === 'SWITCH' ? 'SWITCH' : 'AP',
    macAddress: serialToMac(serial), manufacturer: String(caps.model ?? ''), UUID: configuration.uuid as number,
    configuration: JSON.stringify(configuration),
    notes: [{ created: now, createdBy: 'airtwin', note: match ? `Auto-provisioned with default configuration ${match.name}.` : 'Auto-provisioned.' }],
    createdTimestamp: now, lastConfigurationChange: now, lastConfigurationDownload: 0, firmware: String(params.firmware ?? ''),
    devicePassword: '', owner: '', location: '', venue: '', subscriber: '', entity: '', modified: now, locale: String(caps.country ?? '').slice(0, 2),
    compatible, lastFWUpdate: 0, lastRecordedContact: now, simulated: false, connectReason: '',
  };
}

/**
 * What the actors refuse is logged here, whichever link the AP came by (the edge logs only
 * what it refuses itself): every drop and protocol error (at most 10 per link session before
 * the drop), and ignored frames at their 1st, 10th, 100th... per AP, which bounds the volume.
 */
function logRefusal(logger: RuntimeLogger, e: FleetEvent): void {
  switch (e.type) {
    case 'dropped':
      logger.warn({ serial: e.serial, reason: e.payload.reason, detail: e.payload.detail }, 'device dropped');
      break;
    case 'protocol-error':
      logger.warn({ serial: e.serial, reason: e.payload.reason, count: e.payload.count }, 'device protocol error');
      break;
    case 'frame-ignored':
      if (Number.isInteger(Math.log10(e.payload.count))) {
        logger.warn({ serial: e.serial, method: e.payload.method, reason: e.payload.reason, count: e.payload.count }, 'device frame ignored');
      }
      break;
    default:
      break;
  }
}

/** The change to a device's record that a fleet event makes, if any, handed to `patch`. */
function keepRecordCurrent(e: FleetEvent, d: StoredDevice, patch: RecordPatch): void {
  const at = Math.floor(e.at / 1000);
  switch (e.type) {
    case 'connected': {
      const compatible = String(e.payload.capabilities.compatible ?? d.compatible);
      const manufacturer = String(e.payload.capabilities.model ?? d.manufacturer);
      if (compatible !== d.compatible || manufacturer !== d.manufacturer || e.payload.firmware !== d.firmware) {
        patch('connect', e.serial, () => ({ compatible, manufacturer, firmware: e.payload.firmware || d.firmware, modified: at }));
      }
      break;
    }
    case 'disconnected':
      patch('disconnect', e.serial, () => ({ lastRecordedContact: at }));
      break;
    case 'firmware-changed':
      patch('firmware', e.serial, () => ({ firmware: e.payload.newFirmware, lastFWUpdate: at, modified: at }));
      break;
    case 'command-updated': {
      const c = e.payload.command;
      // The AP took a configuration (error 0, or 1: applied with substitutions): that is its
      // configuration download, and the configuration becomes the device's stored one (the
      // gateway makes a pending configuration active), so the record shows what the AP runs
      // and reconciliation after a factory reset pushes it back instead of an older one.
      if (c.command === 'configure' && c.status === 'completed' && (c.errorCode === 0 || c.errorCode === 1)) {
        const sent = sentConfiguration(c.details);
        patch('configure', e.serial, (current) => ({
          lastConfigurationDownload: at,
          ...(sent !== undefined && sent.uuid > current.UUID
            ? { configuration: JSON.stringify(sent.config), UUID: sent.uuid, lastConfigurationChange: at, modified: at } : {}),
        }));
      }
      break;
    }
    default:
      break;
  }
}

type RecordPatch = (what: string, serial: string, change: (current: StoredDevice) => Partial<StoredDevice>) => void;

/**
 * Auto-provisioning of unknown APs: one record per serial, whether a live connect or a
 * replay's `provisionAll` asks first; refused when auto-provisioning is off.
 */
function provisioning(deps: FleetRuntimeDeps): Pick<FleetRuntime, 'provision' | 'provisionAll'> {
  const { clock, devices } = deps;
  const recordFor = (serial: string, params: JsonObject): StoredDevice => autoProvisionedRecord(serial, params, clock, deps.defaultConfigs);

  // Records being inserted, by serial: a live AP's connect and a replay's provisionAll may want
  // the same record at once, and the repo's cache knows a record only once it is committed.
  const inserting = new Map<string, Promise<unknown>>();
  const reserve = async (serials: readonly string[], insert: Promise<unknown>): Promise<void> => {
    const settled = insert.then(() => undefined, () => undefined);
    for (const serial of serials) inserting.set(serial, settled);
    try {
      await insert;
    } finally {
      for (const serial of serials) if (inserting.get(serial) === settled) inserting.delete(serial);
    }
  };

  const provision = async (serial: string, params: JsonObject): Promise<'accept' | 'refuse'> => {
    if (!deps.autoProvision) return 'refuse';
    for (let pending = inserting.get(serial); pending; pending = inserting.get(serial)) await pending;
    // A record created meanwhile by the API (POST /device) is as good as ours.
    if (!devices.has(serial)) await reserve([serial], devices.insert(recordFor(serial, params)).catch(ignoreAlreadyExists));
    return 'accept';
  };

  const provisionAll = async (connects: Iterable<[serial: string, params: JsonObject]>): Promise<void> => {
    if (!deps.autoProvision) return;
    const fresh = new Map<string, StoredDevice>();
    for (const [serial, params] of connects) {
      // A connect its actor will refuse (a uuid out of range) makes no record, as live: one bad
      // record would fail the whole insert, and with it the replay.
      if (paramOutOfRange('connect', params)) continue;
      // One being inserted (an AP that connected meanwhile) is left to that insert.
      if (!devices.has(serial) && !inserting.has(serial) && !fresh.has(serial)) fresh.set(serial, recordFor(serial, params));
    }
    if (fresh.size > 0) await reserve([...fresh.keys()], devices.insertMany([...fresh.values()]));
  };
  return { provision, provisionAll };
}

/**
 * The fleet as the gateway sees it: device records gate admission (known devices are admitted;
 * unknown ones are auto-provisioned or refused), stored configurations drive uuid reconciliation,
 * and what APs report keeps their records current (firmware, model, last contact).
 */
export function startFleetRuntime(deps: FleetRuntimeDeps): FleetRuntime {
  const { clock, devices, logger } = deps;
  let writes: Promise<unknown> = Promise.resolve();
  /**
   * Changes a device record in event order, starting from the record as it is when the write
   * runs (DevicesRepo queues its writes, API ones too); a device deleted meanwhile is skipped.
   * A failure is logged, never thrown at an AP.
   */
  const patch: RecordPatch = (what, serial, change) => {
    writes = writes.then(() => devices.update(serial, (current) => ({ ...current, ...change(current) }))).catch((e: unknown) => {
      if (!(isAirtwinError(e) && e.code === 'NOT_FOUND')) logger.error({ err: e }, `device record ${what} failed`);
    });
  };

  const { provision, provisionAll } = provisioning(deps);

  const fleet = new Fleet({
    clock,
    newId: deps.newId ?? randomUUID,
    isBlacklisted: (serial) => deps.blacklist.has(serial),
    isKnownDevice: (serial) => devices.has(serial),
    autoProvision: { onUnknownDevice: provision },
    storedConfigFor: (serial) => {
      const d = devices.get(serial);
      return d ? { uuid: d.UUID, configuration: d.configuration } : undefined;
    },
  });

  const subscription = fleet.events$.subscribe((e) => {
    logRefusal(logger, e);
    const d = devices.get(e.serial);
    if (d) keepRecordCurrent(e, d, patch);
  });

  const commandService = new CommandService({
    fleet, store: deps.commands, clock, newId: randomUUID, rtty: deps.rtty, uploadUri: deps.uploadUri,
    deviceExists: (serial) => devices.has(serial),
    ...(deps.scripts ? { scriptById: (id: string) => storedScript(deps.scripts!, id) } : {}),
    capabilitiesOf: (serial) => fleet.details(serial)?.capabilities ?? deps.storedCapabilities?.(serial),
    onStoreError: (error, command) => logger.error({ err: error, command: command.UUID }, 'command history write failed'),
  });

  return {
    fleet,
    provision,
    provisionAll,
    commandService,
    status: {
      status: (serial) => fleet.status(serial),
      lastState: (serial) => fleet.details(serial)?.lastState,
      connectionStatistics: () => fleet.connectionStatistics(),
    },
    async flush() {
      await commandService.flush();
      await writes;
    },
    reopenCommands: async () => commandService.restore(await deps.commands.open()),
    async close(reason?: string, opts: { keepQueued?: boolean } = {}) {
      // Each AP's last contact goes on its record (its disconnects do while running): a data dir
      // served again, or replayed into, says when every AP was last heard from, not 0 or the
      // time it was provisioned.
      const contacts = new Map<string, number>();
      for (const d of devices.all()) {
        const last = fleet.status(d.serialNumber)?.lastContact ?? 0;
        if (last > d.lastRecordedContact) contacts.set(d.serialNumber, last);
      }
      fleet.stopAll(reason, opts);
      subscription.unsubscribe();
      commandService.close();
      // Stopping ends the commands still open ("The replay ended."), but for those kept queued
      // for the next start: their records are written before the caller closes the store.
      await commandService.flush();
      await writes;
      await devices.raiseLastContacts(contacts).catch((e: unknown) => logger.error({ err: e }, 'device records: last contacts not stored'));
    },
  };
}
