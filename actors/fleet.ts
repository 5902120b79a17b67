import { Subject, type Observable } from 'rxjs';
import { createActor, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Clock } from '../src/protocol/clock.js';
import type { DeviceLink } from '../src/protocol/device-link.js';
import type { JsonObject } from '../src/protocol/frame.js';
import { serialKey } from '../src/protocol/serial.js';
import type { DeviceEvent } from './device/device.events.js';
import { deviceMachine } from './device/device.machine.js';
import type { Admission, CommandSubmission, DeviceDeps, DevicePolicy, DeviceStatus, DeviceTimeouts, StoredConfig } from './device/device.types.js';

/** What `events$` carries: every device actor's typed events, in the order they happened. */
export type FleetEvent = DeviceEvent;
export type DeviceActor = ActorRefFrom<typeof deviceMachine>;
type DeviceSnapshot = SnapshotFrom<typeof deviceMachine>;

/** Construction options: the clock, an id source and the policy hooks of the composition root. */
export interface FleetOptions {
  /** The process clock: drives every actor's delays and stamps every event. */
  clock: Clock;
  /** Ids for system-created commands (reconciliation); `randomUUID` in production. */
  newId: () => string;
  /** Checked at link connect and on every frame (docs/upstream.md#notifications). */
  isBlacklisted?: (serial: string) => boolean;
  /**
   * Auto-provisioning policy for a serial the fleet has not admitted yet. Absent: accept all.
   * Called only when `isKnownDevice` is absent or says no.
   */
  autoProvision?: { onUnknownDevice(serial: string, connectParams: JsonObject): Promise<Admission> };
  /** Known devices are admitted without asking `autoProvision`. */
  isKnownDevice?: (serial: string) => boolean | Promise<boolean>;
  /** Stored configuration, for config uuid reconciliation on connect and on every state (docs/upstream.md#configuration-reconciliation). */
  storedConfigFor?: (serial: string) => StoredConfig | undefined;
  timeouts?: Partial<DeviceTimeouts>;
  /** Per-device command queue bound (default 32). */
  maxPending?: number;
  /**
   * Plain notifications on an open session skip the machine step (actors/device/notification-lane.ts);
   * default true. False sends every frame through the machine (tests compare the two).
   */
  notificationLane?: boolean;
}

/** A device as the fleet reports it: status plus the last documents the AP sent. */
export interface DeviceDetails {
  status: DeviceStatus;
  /** Machine state, e.g. `online.busy`, `rebooting`. */
  state: string;
  lastState?: JsonObject;
  lastHealthcheck?: { uuid: number; sanity: number; data: JsonObject; recorded: number };
  capabilities?: JsonObject;
  /** Commands waiting in the device's queue. */
  pending: number;
  /** UUID of the command on the wire, if any. */
  running?: string;
  /** Notifications ignored for a missing params.serial since the actor started (not a protocol error). */
  ignoredFrames: number;
}

export function stateName(value: DeviceSnapshot['value']): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value)[0] ?? ['unknown', ''];
  return typeof v === 'string' ? `${k}.${v}` : k;
}


/**
 * The fleet: one device actor per serial, created on demand, plus the merged event stream.
 * A plain Map rather than a parent machine: 50,000 actors need no supervisor state, and each
 * actor stays independently testable.
 */
export class Fleet {
  private readonly actors = new Map<string, { actor: DeviceActor; link?: DeviceLink; deps: DeviceDeps }>();
  private readonly subject = new Subject<FleetEvent>();
  readonly events$: Observable<FleetEvent> = this.subject.asObservable();

  /** One set of policy hooks for every actor (they take the serial as an argument), not a set per actor. */
  private readonly deps: DeviceDeps;
  /** The fleet's hooks with a device policy's in place of its own, made once per policy. */
  private readonly policyDeps = new WeakMap<DevicePolicy, DeviceDeps>();
  /** Machine-emitted events being delivered to `events$` listeners right now (nested deliveries count). */
  private delivering = 0;

  constructor(private readonly opts: FleetOptions) {
    const { clock, isBlacklisted, autoProvision, isKnownDevice, storedConfigFor } = opts;
    this.deps = {
      now: () => clock.now(),
      newId: opts.newId,
      isBlacklisted: (s) => isBlacklisted?.(s) ?? false,
      admit: async (s, params) => {
        if (isKnownDevice && (await isKnownDevice(s))) return 'accept';
        return autoProvision ? autoProvision.onUnknownDevice(s, params) : 'accept';
      },
      storedConfigFor: (s) => storedConfigFor?.(s),
      // The lane's events join the machine's on the one stream, in the order they happen.
      notificationLane: opts.notificationLane === false ? undefined : { publish: (e) => this.subject.next(e), open: () => this.delivering === 0 },
    };
  }

  private depsFor(policy: DevicePolicy | undefined): DeviceDeps {
    if (!policy) return this.deps;
    let deps = this.policyDeps.get(policy);
    if (!deps) this.policyDeps.set(policy, (deps = { ...this.deps, ...policy }));
    return deps;
  }

  /** The actor of a serial, creating it (offline, no link) when missing. */
  spawn(serial: string, link?: DeviceLink, policy?: DevicePolicy): DeviceActor {
    const key = serialKey(serial);
    const found = this.actors.get(key);
    if (found) return found.actor;
    const deps = this.depsFor(policy);
    const actor = createActor(deviceMachine, {
      input: { serial: key, deps, link, timeouts: this.opts.timeouts, maxPending: this.opts.maxPending },
      clock: this.opts.clock,
      systemId: key,
    });
    actor.on('*', (e) => {
      // An actor is between steps here and may have events queued: the lane stays shut meanwhile.
      this.delivering++;
      try {
        this.subject.next(e);
      } finally {
        this.delivering--;
      }
    });
    this.actors.set(key, { actor, link, deps });
    actor.start();
    return actor;
  }

  find(serial: string): DeviceActor | undefined {
    return this.actors.get(serialKey(serial))?.actor;
  }

  /**
   * Give a serial its link: spawns the actor, or swaps the link of an existing one. `policy`:
   * what the actor does of its own accord with this link (DevicePolicy; default the fleet's).
   */
  attach(link: DeviceLink, policy?: DevicePolicy): DeviceActor {
    const key = serialKey(link.serial);
    const found = this.actors.get(key);
    if (!found) return this.spawn(key, link, policy);
    const deps = this.depsFor(policy);
    if (found.link !== link || found.deps !== deps) {
      found.link = link;
      found.deps = deps;
      found.actor.send({ type: 'link.attach', link, deps });
    }
    return found.actor;
  }

  /**
   * Stop one actor: what it holds ends as failed/expired (events emitted), then it stops.
   * `closeLink` also drops the AP's connection (device deleted); otherwise the link stays open
   * for whoever owns it (shutdown closes links itself).
   */
  stop(serial: string, reason = 'The device actor was stopped.', opts: { closeLink?: boolean; keepQueued?: boolean } = {}): void {
    const key = serialKey(serial);
    const found = this.actors.get(key);
    if (!found) return;
    found.actor.send({ type: 'device.shutdown', reason, keepQueued: opts.keepQueued });
    found.actor.stop();
    this.actors.delete(key);
    if (opts.closeLink) found.link?.close(reason).catch(() => undefined);
  }

  /**
   * Stop every actor and complete `events$` (shutdown: pipelines flush on completion).
   * `keepQueued`: queued commands that survive a restart stay pending (device.logic abandonAll).
   */
  stopAll(reason = 'The service is shutting down.', opts: { keepQueued?: boolean } = {}): void {
    for (const key of [...this.actors.keys()]) this.stop(key, reason, { keepQueued: opts.keepQueued });
    this.subject.complete();
  }

  /** Give a serial's actor back a command the store had open after a restart (CommandService.restore). */
  restore(serial: string, submission: CommandSubmission): void {
    this.spawn(serial).send({ type: 'command.restore', submission });
  }

  /** Hand a command to its device; the outcome arrives on `events$` (command-updated / command-rejected). */
  submit(serial: string, submission: CommandSubmission): void {
    // The one place the fleet asks a link whether it takes the command: one that takes no new
    // command refuses it as an AP offline does, before any record exists.
    const why = this.commandRefusal(serial);
    if (why !== undefined && submission.scripted !== true) {
      this.subject.next({
        serial: serialKey(serial), at: this.deps.now(), type: 'command-rejected',
        payload: { command: submission.command, code: 'DEVICE_OFFLINE', reason: why, byLink: true },
      });
      return;
    }
    this.spawn(serial).send({ type: 'command.submit', submission });
  }

  /** Why the serial's link takes no new command (DeviceLink.refusesNewCommands); undefined when it takes them. */
  commandRefusal(serial: string): string | undefined {
    return this.actors.get(serialKey(serial))?.link?.refusesNewCommands;
  }

  /** Whether a new command may be sent to the serial's AP at all (its link takes new commands). */
  commandable(serial: string): boolean {
    return this.commandRefusal(serial) === undefined;
  }

  status(serial: string): DeviceStatus | undefined {
    return this.find(serial)?.getSnapshot().context.status;
  }

  details(serial: string): DeviceDetails | undefined {
    const snap = this.find(serial)?.getSnapshot();
    if (!snap) return undefined;
    const c = snap.context;
    return {
      status: c.status, state: stateName(snap.value), lastState: c.lastState, lastHealthcheck: c.lastHealthcheck,
      capabilities: c.capabilities, pending: c.pending.length, running: c.current?.sub.command.UUID, ignoredFrames: c.ignoredFrames,
    };
  }

  /**
   * Connected and connecting counts, and the average age in seconds of the open sessions
   * (the gateway's `connectionStatistics` on GET /devices).
   */
  connectionStatistics(): { averageConnectionTime: number; connectedDevices: number; connectingDevices: number } {
    const nowS = Math.floor(this.opts.clock.now() / 1000);
    let connected = 0;
    let connecting = 0;
    let ages = 0;
    for (const { actor } of this.actors.values()) {
      const snap = actor.getSnapshot();
      if (snap.context.status.connected) {
        connected++;
        ages += nowS - snap.context.status.started;
      } else if (snap.matches('connecting')) {
        connecting++;
      }
    }
    return { averageConnectionTime: connected > 0 ? ages / connected : 0, connectedDevices: connected, connectingDevices: connecting };
  }

  list(): DeviceStatus[] {
    return [...this.actors.values()].map((a) => a.actor.getSnapshot().context.status);
  }

  serials(): string[] {
    return [...this.actors.keys()];
  }

  get size(): number {
    return this.actors.size;
  }
}
