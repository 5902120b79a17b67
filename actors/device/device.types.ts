import type { CommandMethod, JsonObject } from '../../src/protocol/frame.js';
import type { DeviceEvent } from './device.events.js';

/** Command status wire literals (docs/upstream.md#command-lifecycle). */
export type CommandStatus = 'pending' | 'executed' | 'completed' | 'failed' | 'timedout' | 'expired';
export const FINAL_STATUSES: readonly CommandStatus[] = ['completed', 'failed', 'timedout', 'expired'];
export function isFinalStatus(s: CommandStatus): boolean {
  return FINAL_STATUSES.includes(s);
}

/** The Command record of the spec (spec/device-gateway-api.md "Command"). Times are epoch seconds. */
export interface Command {
  UUID: string;
  command: string;
  /** JSON text of the parameters sent to the AP. */
  details: string;
  serialNumber: string;
  submitted: number;
  executed: number;
  completed: number;
  when: number;
  errorText: string;
  /** JSON text of the AP's whole `result` object. */
  results: string;
  errorCode: number;
  submittedBy: string;
  status: CommandStatus;
  custom: number;
  waitingForFile: number;
  attachFile: number;
  attachSize: number;
  attachType: string;
  /** Milliseconds from sending the command to the AP's reply (0 until it replied). */
  executionTime: number;
  /** Epoch seconds of the last failed attempt to send a queued command (0: none). */
  lastTry: number;
  /** A script the AP runs in the background, uploading its output later (the reply only acknowledges it). */
  deferred: boolean;
}

export type VerifiedCertificate = 'NO_CERTIFICATE' | 'VALID_CERTIFICATE' | 'MISMATCH_SERIAL' | 'VERIFIED';

/** DeviceStatus of the spec plus the live figures the dashboard needs. Times are epoch seconds. */
export interface DeviceStatus {
  serialNumber: string;
  connected: boolean;
  ipAddress: string;
  txBytes: number;
  rxBytes: number;
  messageCount: number;
  /** The configuration uuid the AP runs (last connect/state). */
  UUID: number;
  firmware: string;
  lastContact: number;
  associations_2G: number;
  associations_5G: number;
  associations_6G: number;
  verifiedCertificate: VerifiedCertificate;
  /** Session start (connect accepted), 0 when offline. */
  started: number;
  connectReason: string;
  compatible: string;
  sanity: number;
  memoryUsed: number;
  load: number;
  temperature: number;
  uptime: number;
}

export function emptyStatus(serial: string): DeviceStatus {
  return {
    serialNumber: serial, connected: false, ipAddress: '', txBytes: 0, rxBytes: 0, messageCount: 0, UUID: 0,
    firmware: '', lastContact: 0, associations_2G: 0, associations_5G: 0, associations_6G: 0,
    verifiedCertificate: 'NO_CERTIFICATE', started: 0, connectReason: '', compatible: '', sanity: 0,
    memoryUsed: 0, load: 0, temperature: 0, uptime: 0,
  };
}

/**
 * A copy of a status, field by field in emptyStatus's order (the order every status has): one
 * object shape for all copies, cheaper on the per-frame path than a spread.
 */
export function copyStatus(s: DeviceStatus): DeviceStatus {
  return {
    serialNumber: s.serialNumber, connected: s.connected, ipAddress: s.ipAddress, txBytes: s.txBytes, rxBytes: s.rxBytes,
    messageCount: s.messageCount, UUID: s.UUID, firmware: s.firmware, lastContact: s.lastContact, associations_2G: s.associations_2G,
    associations_5G: s.associations_5G, associations_6G: s.associations_6G, verifiedCertificate: s.verifiedCertificate, started: s.started,
    connectReason: s.connectReason, compatible: s.compatible, sanity: s.sanity, memoryUsed: s.memoryUsed, load: s.load,
    temperature: s.temperature, uptime: s.uptime,
  };
}

/** Which maintenance state a successful command leads to while the AP restarts. */
export type RestartKind = 'reboot' | 'upgrade' | 'factory';

/** What the command service hands to a device actor. */
export interface CommandSubmission {
  /** The record as created by the service (status `pending`). */
  command: Command;
  method: CommandMethod;
  /** Params sent to the AP (serial included). */
  params: JsonObject;
  /** How long the AP has to answer once the command is sent. */
  timeoutMs: number;
  /** configure / upgrade / factory: kept while the AP is offline or busy (docs/upstream.md#commands). */
  queueable: boolean;
  /** false: sent and completed at once, the AP's ack is not awaited (telemetry, as the gateway does). */
  awaitResult: boolean;
  restart?: RestartKind;
  /** Epoch ms when the command may run (`when` * 1000; 0 = now). */
  runAt: number;
  /**
   * A command the link's own source holds, submitted on its behalf: the only kind a link that
   * takes no new commands carries (DeviceLink.refusesNewCommands). It never outlives its run.
   */
  scripted?: boolean;
}

/** The answer a device may give to a connect of a serial it does not know yet. */
export type Admission = 'accept' | 'refuse';

export interface StoredConfig {
  uuid: number;
  configuration: string | JsonObject;
}

/** Everything outside the machine it needs, injected so tests and every link get the same machine. */
export interface DeviceDeps {
  /** The process clock's now (epoch ms); XState's own clock drives the delays. */
  now: () => number;
  newId: () => string;
  isBlacklisted: (serial: string) => boolean;
  /** Called on the first connect of a serial in this actor's life; known devices should be accepted. */
  admit: (serial: string, connectParams: JsonObject) => Promise<Admission>;
  /** The stored configuration uuid reconciliation pushes to an AP that runs an older one. */
  storedConfigFor: (serial: string) => StoredConfig | undefined;
  /** Reboot an AP that asks to leave recovery (`recovery` with `reboot: true`). Absent: yes. */
  rebootsOutOfRecovery?: boolean;
  /**
   * The notification lane (notification-lane.ts), when the owner of the actor enables it.
   * Absent: every frame takes a machine step.
   */
  notificationLane?: {
    /** Where the events of the notifications it applies go: where the actor's emitted events go (the fleet's `events$`). */
    publish: (event: DeviceEvent) => void;
    /** False while an actor's emitted event is being delivered: a frame a listener causes then waits its turn in the machine. */
    open: () => boolean;
  };
}

export interface DeviceTimeouts {
  /** Link up, waiting for the `connect` notification. */
  connectMs: number;
  /** Waiting for the admission hook (auto-provisioning). */
  admitMs: number;
  /** Reboot / factory reset acknowledged: waiting for the AP to come back. */
  rebootMs: number;
  upgradeMs: number;
  factoryMs: number;
  /** A queued or scheduled command not run by `runAt + pendingTtlMs` expires (gateway: 4 h). */
  pendingTtlMs: number;
  /**
   * After a reboot / upgrade / factory ack, a state on the same session this much later shows the
   * AP did not restart, and ends the maintenance state (an AP restarts ~10 s after its ack).
   */
  restartGraceMs: number;
}

export const DEFAULT_TIMEOUTS: DeviceTimeouts = {
  connectMs: 60_000,
  admitMs: 30_000,
  rebootMs: 5 * 60_000,
  upgradeMs: 15 * 60_000,
  factoryMs: 10 * 60_000,
  pendingTtlMs: 4 * 3600_000,
  restartGraceMs: 60_000,
};

/** Per-device queue bound: past it even queueable commands are refused as busy. */
export const DEFAULT_MAX_PENDING = 32;

/**
 * What an actor does of its own accord, chosen by whoever attaches its link (Fleet.attach): it
 * replaces those hooks of the fleet's deps. The default pushes stored configurations and reboots
 * an AP out of recovery.
 */
export type DevicePolicy = Partial<Pick<DeviceDeps, 'storedConfigFor' | 'rebootsOutOfRecovery'>>;

/**
 * For an AP whose link carries only the commands its source scripts: the actor starts none of its
 * own (no reconcile push, no recovery reboot); the source holds whatever the AP ran.
 */
export const STARTS_NO_COMMAND: DevicePolicy = Object.freeze({ storedConfigFor: () => undefined, rebootsOutOfRecovery: false });
