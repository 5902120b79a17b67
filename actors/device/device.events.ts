import type { JsonObject } from '../../src/protocol/frame.js';
import type { StateText } from '../../src/protocol/json-source.js';
import type { Command, DeviceStatus, RestartKind } from './device.types.js';

/**
 * Typed events a device actor emits (XState `emit`); the fleet merges them into `events$`.
 * Every event carries the serial, the clock time `at` (epoch ms) and a parsed payload.
 */
interface Base<T extends string, P> {
  type: T;
  serial: string;
  at: number;
  payload: P;
}

export type DeviceEvent =
  | Base<'connected', { ipAddress: string; firmware: string; uuid: number; capabilities: JsonObject; reason: string; params: JsonObject }>
  | Base<'disconnected', { reason: string }>
  /**
   * The actor dropped or refused the AP: blacklisted, not provisioned, too many protocol errors, no connect,
   * a notification whose params.serial is not hex (`bad-serial`; the gateway drops such a connection).
   */
  | Base<'dropped', { reason: 'blacklisted' | 'not-provisioned' | 'protocol-errors' | 'no-connect' | 'admission-failed' | 'bad-serial'; detail: string }>
  /** `stateText`: the source text of `state` when the link kept it (src/protocol/json-source.ts). */
  | Base<'state', { uuid: number; state: JsonObject; requestUuid?: string; stateText?: StateText }>
  | Base<'healthcheck', { uuid: number; sanity: number; data: JsonObject; requestUuid?: string }>
  /** logType 0 normal, 2 reboot log (recorded = device date); crash logs have their own event. */
  | Base<'log', { log: string; severity: number; data: JsonObject; logType: 0 | 2; uuid: number; recorded: number }>
  | Base<'crashlog', { uuid: number; loglines: string[]; recovery: boolean; firmware?: string }>
  | Base<'capabilities', { capabilities: JsonObject }>
  | Base<'event', { eventType: string; timestamp: number; payload: JsonObject }>
  | Base<'alarm', { data: unknown }>
  | Base<'telemetry', { data: JsonObject; adhoc: boolean }>
  /** Scan entries: from a wifiscan command result (`result.status.scan`) or an unsolicited notification. */
  | Base<'wifiscan-result', { source: 'command' | 'notification'; commandUuid?: string; entries: unknown[] }>
  /**
   * Any change of a command record. `created` on the first event of a record (insert it);
   * `queued` while it waits in the per-device queue (not running); `latencyMs` once the AP answered.
   */
  | Base<'command-updated', { command: Command; created: boolean; queued: boolean; latencyMs?: number }>
  /** A submission the actor could not take: the service turns it into a 409. */
  | Base<'command-rejected', { command: Command; code: 'DEVICE_OFFLINE' | 'DEVICE_BUSY'; reason: string; byLink?: boolean }>
  | Base<'protocol-error', { reason: string; count: number }>
  /**
   * A notification without params.serial, ignored, as upstream, and not a protocol error. `count` is
   * the actor's running total (DeviceContext.ignoredFrames).
   */
  | Base<'frame-ignored', { method: string; reason: string; count: number }>
  | Base<'firmware-changed', { oldFirmware: string; newFirmware: string }>
  /** source `gateway`: a stored configuration newer than the AP's was pushed; `device`: the AP's cfgpending. */
  | Base<'config-pending', { source: 'gateway' | 'device'; deviceUuid: number; pendingUuid: number; commandUuid?: string }>
  /**
   * A reboot / upgrade / factory reset: acknowledged (`started`), the AP back (`done`), the wait
   * over (`timedout`), or a state on the same session after it showing the AP did not restart
   * (`not-restarted`).
   */
  | Base<'maintenance', { kind: RestartKind; phase: 'started' | 'done' | 'timedout' | 'not-restarted' }>
  /** Other notifications (ping, venue_broadcast, deviceupdate), passed on as sent. */
  | Base<'notification', { method: string; params: JsonObject }>;

export type DeviceEventType = DeviceEvent['type'];
export type DeviceEventOf<T extends DeviceEventType> = Extract<DeviceEvent, { type: T }>;

/** The status snapshot a fleet query returns. */
export type { DeviceStatus };
