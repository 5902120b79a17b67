import { deflateParams } from '../../src/protocol/compress.js';
import { isObject, type CommandFrame, type JsonObject } from '../../src/protocol/frame.js';
import type { Command, CommandSubmission, StoredConfig } from './device.types.js';

/**
 * Pure steps of a command's life (docs/upstream.md#command-lifecycle):
 * pending -> executed -> completed | failed | timedout | expired. Times in records are epoch
 * seconds; the machine passes its clock's now in ms.
 */

/** The command on the wire, waiting for its result. */
export interface Running {
  sub: CommandSubmission;
  rpcId: number;
  /** Epoch ms when the frame was handed to the link (latency is measured from here). */
  sentAt: number;
}

/** A command waiting in the per-device queue: for its `when`, for the AP to come online, or to be idle. */
export interface Pending {
  sub: CommandSubmission;
  /** `runAt` has passed: it runs as soon as the AP is online and idle. */
  ready: boolean;
  /** Epoch ms after which it expires if it has not run. */
  expiresAt: number;
}

const sec = (ms: number) => Math.floor(ms / 1000);

export function executedRecord(cmd: Command, nowMs: number): Command {
  return { ...cmd, status: 'executed', executed: sec(nowMs) };
}

export function failedRecord(cmd: Command, nowMs: number, errorText: string, errorCode = 0): Command {
  return { ...cmd, status: 'failed', completed: sec(nowMs), executed: cmd.executed || sec(nowMs), errorText, errorCode };
}

export function timedOutRecord(cmd: Command, nowMs: number, timeoutMs: number): Command {
  return { ...cmd, status: 'timedout', completed: sec(nowMs), errorText: `No reply from the device within ${Math.round(timeoutMs / 1000)} s.` };
}

/** Never sent: `executed` stays 0 so the history shows it never reached the AP. */
export function expiredRecord(cmd: Command, nowMs: number, errorText: string): Command {
  return { ...cmd, status: 'expired', completed: sec(nowMs), errorText };
}

/** Refused by the gateway before it was sent (the AP's restrictions): failed, `executed` stays 0. */
export function refusedRecord(cmd: Command, nowMs: number, errorText: string): Command {
  return { ...cmd, status: 'failed', completed: sec(nowMs), errorText };
}

/**
 * Whether a command waiting in an AP's queue outlives the process: a queueable one (configure,
 * upgrade, factory) or one scheduled with a `when`. A clean shutdown leaves these `pending` in
 * the store and the next start reopens them (CommandService.restore); the others end. A scripted
 * command never does: it belongs to the link's source that submitted it.
 */
export function survivesRestart(sub: CommandSubmission): boolean {
  return sub.scripted !== true && (sub.queueable || sub.runAt > 0);
}

/** Fire-and-forget commands (telemetry) complete when sent, as the gateway records them. */
export function sentRecord(cmd: Command, nowMs: number): Command {
  return { ...cmd, status: 'completed', executed: sec(nowMs), completed: sec(nowMs), results: JSON.stringify({ result: 'success' }) };
}

/**
 * A configure sent with ?strict=true (docs/upstream.md#command-lifecycle): the command
 * service writes `strict: true` into the record's `details`, so the flag stays with the record
 * (queued, retried, persisted) until the reply; the AP never sees it. Read only on the rare reply
 * it decides (configure with error 1).
 */
export function isStrictConfigure(cmd: Command): boolean {
  if (cmd.command !== 'configure') return false;
  try {
    const details: unknown = JSON.parse(cmd.details);
    return isObject(details) && details.strict === true;
  } catch {
    return false;
  }
}

/**
 * The record after the AP's reply. error 0 is success; configure error 1 means "applied with
 * substitutions", also success, unless the configure was strict (then any error fails). A reply
 * without `status` fails, except ping (docs/upstream.md#commands).
 */
export function resultRecord(cmd: Command, result: JsonObject, nowMs: number): Command {
  const status = isObject(result.status) ? result.status : undefined;
  const base = { ...cmd, completed: sec(nowMs), results: JSON.stringify(result) };
  if (!status) {
    return cmd.command === 'ping'
      ? { ...base, status: 'completed', errorCode: 0, errorText: '' }
      : { ...base, status: 'failed', errorCode: 0, errorText: 'The device replied without a status.' };
  }
  const errorCode = typeof status.error === 'number' ? status.error : 0;
  const errorText = typeof status.text === 'string' ? status.text : '';
  const ok = errorCode === 0 || (cmd.command === 'configure' && errorCode === 1 && !isStrictConfigure(cmd));
  return { ...base, status: ok ? 'completed' : 'failed', errorCode, errorText };
}

/** Entries of a wifiscan result (`result.status.scan`, docs/upstream.md#wifi-scan-results). */
export function scanEntries(result: JsonObject): unknown[] | undefined {
  const status = isObject(result.status) ? result.status : undefined;
  return status && Array.isArray(status.scan) ? status.scan : undefined;
}

/** The frame for a command; configure params are compressed for APs announcing `compress_cmd`. */
export function commandFrame(rpcId: number, sub: CommandSubmission, compress: boolean): CommandFrame {
  const params = compress && sub.method === 'configure' ? deflateParams(sub.params) : sub.params;
  return { jsonrpc: '2.0', id: rpcId, method: sub.method, params };
}

/** Parse a stored configuration (text or object); undefined when it is not a JSON object. */
export function configObject(stored: StoredConfig): JsonObject | undefined {
  if (isObject(stored.configuration)) return stored.configuration;
  try {
    const parsed: unknown = JSON.parse(stored.configuration);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function blankCommand(fields: Pick<Command, 'UUID' | 'command' | 'serialNumber' | 'submitted' | 'submittedBy'> & Partial<Command>): Command {
  return {
    details: '', executed: 0, completed: 0, when: 0, errorText: '', results: '{}', errorCode: 0, status: 'pending',
    custom: 0, waitingForFile: 0, attachFile: 0, attachSize: 0, attachType: '', executionTime: 0, lastTry: 0, deferred: false, ...fields,
  };
}

/** Timeout per method, from the gateway's REST wait table (docs/upstream.md#commands). */
export const COMMAND_TIMEOUT_MS: Record<string, number> = {
  configure: 120_000, upgrade: 30_000, reboot: 30_000, factory: 30_000, leds: 120_000, trace: 300_000,
  request: 120_000, wifiscan: 120_000, event: 30_000, telemetry: 30_000, ping: 60_000, script: 60_000,
  rtty: 60_000, perform: 60_000,
};

/**
 * How long a command waits for its reply: the method's time, and for a script its own timeout
 * plus a margin for the reply (the AP may use all of it), at least a minute.
 */
export function commandTimeoutMs(method: string, params: JsonObject): number {
  if (method === 'script' && typeof params.timeout === 'number' && params.timeout > 0) return Math.max(60_000, (params.timeout + 30) * 1000);
  return COMMAND_TIMEOUT_MS[method] ?? 60_000;
}

/** A reboot the gateway itself asks for: a `recovery` notification with `reboot: true`, as upstream. */
export function recoveryRebootSubmission(serial: string, nowMs: number, id: () => string): CommandSubmission {
  const params = { serial, when: 0 };
  return {
    command: blankCommand({
      UUID: id(), command: 'reboot', serialNumber: serial, submitted: sec(nowMs), submittedBy: '*system', details: JSON.stringify(params),
    }),
    method: 'reboot', params, timeoutMs: COMMAND_TIMEOUT_MS.reboot ?? 30_000, queueable: false, awaitResult: true, restart: 'reboot', runAt: 0,
  };
}

/**
 * The system-generated configure that config reconciliation pushes (docs/upstream.md#configuration-reconciliation), or undefined
 * when the AP is in sync, reports uuid 0 ("ignore"), or the stored config is unreadable.
 */
export function reconcileSubmission(
  serial: string, deviceUuid: number, stored: StoredConfig | undefined, nowMs: number, id: () => string,
): CommandSubmission | undefined {
  if (!stored || deviceUuid === 0 || stored.uuid <= deviceUuid) return undefined;
  const config = configObject(stored);
  if (!config) return undefined;
  const params = { serial, uuid: stored.uuid, when: 0, config: { ...config, uuid: stored.uuid } };
  return {
    command: blankCommand({
      UUID: id(), command: 'configure', serialNumber: serial, submitted: sec(nowMs), submittedBy: '*system',
      details: JSON.stringify(params),
    }),
    method: 'configure', params, timeoutMs: COMMAND_TIMEOUT_MS.configure ?? 120_000, queueable: true, awaitResult: true, runAt: 0,
  };
}
