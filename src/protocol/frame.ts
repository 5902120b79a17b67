/**
 * uCentral frames: JSON-RPC 2.0 objects exactly as an AP sends or receives them
 * (docs/upstream.md#notifications, #commands).
 *
 * - Notification (AP -> cloud): `method` + `params`, no `id`. The cloud never replies.
 * - Command (cloud -> AP): `method` + `params` + `id`.
 * - Result (AP -> cloud): `id` + `result: { serial, status: { error, text, ... } }`.
 */

export type JsonObject = { [key: string]: unknown };

/** Methods an AP may send as notifications (exact, case-sensitive). */
export const NOTIFICATION_METHODS = [
  'connect', 'state', 'healthcheck', 'log', 'crashlog', 'rebootLog', 'ping', 'cfgpending',
  'recovery', 'deviceupdate', 'telemetry', 'venue_broadcast', 'event', 'alarm', 'wifiscan',
] as const;
export type NotificationMethod = (typeof NOTIFICATION_METHODS)[number];

/** Methods the cloud may send to an AP as commands. */
export const COMMAND_METHODS = [
  'configure', 'upgrade', 'reboot', 'factory', 'leds', 'trace', 'request', 'wifiscan', 'event',
  'telemetry', 'ping', 'script', 'rtty', 'perform',
] as const;
export type CommandMethod = (typeof COMMAND_METHODS)[number];

export interface NotificationFrame {
  jsonrpc: '2.0';
  method: NotificationMethod;
  params: JsonObject;
}

export interface CommandFrame {
  jsonrpc: '2.0';
  method: CommandMethod;
  id: number;
  params: JsonObject;
}

export interface ResultStatus {
  error: number;
  text?: string;
  [key: string]: unknown;
}

export interface ResultFrame {
  jsonrpc: '2.0';
  id: number;
  result: { serial: string; status: ResultStatus; uuid?: number; [key: string]: unknown };
}

/** Anything that crosses a link from the AP. */
export type UpFrame = NotificationFrame | ResultFrame;
/** Anything that crosses a link to the AP. */
export type DownFrame = CommandFrame;
export type Frame = UpFrame | DownFrame;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isNotification(f: unknown): f is NotificationFrame {
  return isObject(f) && f.jsonrpc === '2.0' && typeof f.method === 'string'
    && (NOTIFICATION_METHODS as readonly string[]).includes(f.method)
    && isObject(f.params) && f.id === undefined;
}

export function isResult(f: unknown): f is ResultFrame {
  return isObject(f) && f.jsonrpc === '2.0' && typeof f.id === 'number'
    && isObject(f.result) && isObject(f.result.status)
    && typeof (f.result.status as JsonObject).error === 'number';
}

export function isCommand(f: unknown): f is CommandFrame {
  return isObject(f) && f.jsonrpc === '2.0' && typeof f.id === 'number' && typeof f.method === 'string'
    && (COMMAND_METHODS as readonly string[]).includes(f.method) && isObject(f.params);
}
