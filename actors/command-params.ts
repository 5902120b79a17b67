import { airtwinError, badRequest } from '../src/errors.js';
import { COMMAND_METHODS, isObject, type CommandMethod, type JsonObject } from '../src/protocol/frame.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../src/protocol/json-depth.js';
import { COMMAND_TIMEOUT_MS, commandTimeoutMs } from './device/command-lifecycle.js';
import type { Command, CommandSubmission, RestartKind } from './device/device.types.js';

/**
 * Body validation and AP params for every device command of the spec
 * (spec/device-gateway-api.md "Commands to a device", docs/upstream.md#commands).
 * Each planner checks its body (a coded 400 naming the field) and says how the command runs.
 */

export type Body = Record<string, unknown>;

export interface CommandPlan {
  method: CommandMethod;
  /** Params sent to the AP (serial included). */
  params: JsonObject;
  queueable: boolean;
  restart?: RestartKind;
  timeoutMs: number;
  awaitResult: boolean;
  /** Epoch seconds; 0 = now. */
  when: number;
  /** What the record's `details` shows, when it differs from the params. */
  details?: JsonObject;
  /** A script the AP runs in the background (the record's `deferred`). */
  deferred?: boolean;
  /** The AP uploads a file for this command (the record's `waitingForFile` until it does). */
  uploads?: boolean;
}

export type ScriptType = 'shell' | 'ucode' | 'uci' | 'bundle';
export const SCRIPT_TYPES: readonly ScriptType[] = ['shell', 'ucode', 'uci', 'bundle'];
/** The AP's own diagnostic bundle: no script text, the output is uploaded (upstream `diagnostic`). */
export const DIAGNOSTIC = 'diagnostic';
export const DEFAULT_TELEMETRY_TYPES = ['wifi-frames', 'dhcp-snooping', 'state'];
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function int(body: Body, field: string, opts: { def?: number; min?: number; max?: number } = {}): number {
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.def === undefined) throw badRequest(field, `${field} is required.`);
    return opts.def;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(field, `${field} must be an integer.`);
  if (opts.min !== undefined && v < opts.min) throw badRequest(field, `${field} must be at least ${opts.min}.`);
  if (opts.max !== undefined && v > opts.max) throw badRequest(field, `${field} must be at most ${opts.max}.`);
  return v;
}

function bool(body: Body, field: string, def: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw badRequest(field, `${field} must be true or false.`);
  return v;
}

function optStr(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(field, `${field} must be a string.`);
  return v;
}

function str(body: Body, field: string, oneOf?: readonly string[]): string {
  const v = optStr(body, field);
  if (v === undefined || v === '') throw badRequest(field, `${field} is required.`);
  if (oneOf && !oneOf.includes(v)) throw badRequest(field, `${field} must be one of ${oneOf.join(', ')}.`);
  return v;
}

function strArray(body: Body, field: string, def?: string[]): string[] {
  const v = body[field];
  if (v === undefined || v === null) {
    if (def === undefined) throw badRequest(field, `${field} is required.`);
    return def;
  }
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw badRequest(field, `${field} must be an array of strings.`);
  return v as string[];
}

/** `when` in epoch seconds; 0 (default) runs now. */
function whenOf(body: Body): number {
  return int(body, 'when', { def: 0, min: 0 });
}

function plan(method: CommandMethod, params: JsonObject, extra: Partial<CommandPlan> = {}): CommandPlan {
  return {
    method, params, queueable: false, timeoutMs: COMMAND_TIMEOUT_MS[method] ?? 60_000, awaitResult: true, when: 0, ...extra,
  };
}

export function parseJsonObject(v: unknown, field: string): JsonObject {
  if (isObject(v)) return v;
  if (typeof v === 'string' && jsonDepth(v) > MAX_JSON_DEPTH) {
    const code = field === 'configuration' ? 'INVALID_CONFIGURATION' : 'BAD_REQUEST';
    throw airtwinError(code, field, `${field} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`);
  }
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      if (isObject(parsed)) return parsed;
    } catch {
      // falls through to the 400 below
    }
  }
  throw field === 'configuration'
    ? airtwinError('INVALID_CONFIGURATION', field, 'configuration must be a JSON object (or its JSON text).')
    : badRequest(field, `${field} must be a JSON object (or its JSON text).`);
}

const RESTARTS: Partial<Record<CommandMethod, RestartKind>> = { reboot: 'reboot', upgrade: 'upgrade', factory: 'factory' };
const QUEUEABLE: ReadonlySet<CommandMethod> = new Set(['configure', 'upgrade', 'factory']);

/** POST command: any AP method with a raw payload. */
export function planGeneric(serial: string, body: Body): CommandPlan {
  const method = str(body, 'command', COMMAND_METHODS) as CommandMethod;
  const payload = body.payload === undefined || body.payload === '' ? {} : parseJsonObject(body.payload, 'payload');
  const when = whenOf(body);
  return plan(method, { ...payload, serial, when }, { when, queueable: QUEUEABLE.has(method), restart: RESTARTS[method] });
}

/**
 * The submission a stored command record stands for, rebuilt after a restart (CommandService
 * restore): the record's `details` are the params the planner made, less what only the record
 * carries (a strict configure's `strict`), and the method gives the rest of the plan. Undefined
 * when the record names no AP method or its details are not a JSON object.
 */
export function restoredSubmission(c: Command): CommandSubmission | undefined {
  if (!(COMMAND_METHODS as readonly string[]).includes(c.command)) return undefined;
  let details: unknown;
  try {
    details = JSON.parse(c.details);
  } catch {
    return undefined;
  }
  if (!isObject(details)) return undefined;
  const method = c.command as CommandMethod;
  const params: JsonObject = { ...details };
  if (method === 'configure') delete params.strict;
  return {
    command: c, method, params, timeoutMs: commandTimeoutMs(method, params), queueable: QUEUEABLE.has(method),
    awaitResult: method !== 'telemetry', restart: RESTARTS[method], runAt: c.when * 1000,
  };
}

export interface ConfigureOptions {
  /** ?strict=true: any error the AP answers fails the command, error 1 (substitutions) included. */
  strict?: boolean;
}

/**
 * configure: the configuration gets `uuid` (the caller's pending uuid, or now). A strict configure
 * shows `strict: true` in the record's details (not sent to the AP): resultRecord reads it there.
 */
export function planConfigure(serial: string, body: Body, nowSeconds: number, opts: ConfigureOptions = {}): CommandPlan {
  if (body.configuration === undefined) throw airtwinError('INVALID_CONFIGURATION', 'configuration', 'configuration is required.');
  const config = parseJsonObject(body.configuration, 'configuration');
  const uuid = int(body, 'uuid', { def: nowSeconds, min: 1 });
  const when = whenOf(body);
  const params: JsonObject = { serial, uuid, when, config: { ...config, uuid } };
  return plan('configure', params, { when, queueable: true, ...(opts.strict ? { details: { ...params, strict: true } } : {}) });
}

export function planUpgrade(serial: string, body: Body): CommandPlan {
  const uri = str(body, 'uri');
  if (!/^https?:\/\/\S+$/.test(uri)) throw badRequest('uri', 'uri must be an http or https URL.');
  const when = whenOf(body);
  const signature = optStr(body, 'signature') ?? optStr(body, 'FWsignature');
  const params: JsonObject = { serial, uri, keep_redirector: bool(body, 'keepRedirector', true) ? 1 : 0, when };
  if (signature) params.signature = signature;
  return plan('upgrade', params, { when, queueable: true, restart: 'upgrade' });
}

export function planReboot(serial: string, body: Body): CommandPlan {
  const when = whenOf(body);
  return plan('reboot', { serial, when }, { when, restart: 'reboot' });
}

export function planFactory(serial: string, body: Body): CommandPlan {
  const when = whenOf(body);
  // Default keeps the redirector: an AP that loses it cannot find its way back.
  return plan('factory', { serial, keep_redirector: bool(body, 'keepRedirector', true) ? 1 : 0, when }, { when, queueable: true, restart: 'factory' });
}

export function planLeds(serial: string, body: Body): CommandPlan {
  const pattern = str(body, 'pattern', ['on', 'off', 'blink']);
  const when = whenOf(body);
  // duration always goes with the pattern, as upstream sends it (the AP reads it for blink only).
  const params: JsonObject = { serial, pattern, when, duration: int(body, 'duration', { def: 30, min: 1, max: 3600 }) };
  return plan('leds', params, { when });
}

export function planTrace(serial: string, body: Body, uploadUri?: string): CommandPlan {
  const network = optStr(body, 'network');
  const itf = optStr(body, 'interface');
  if (!network && !itf) throw badRequest('network', 'network or interface is required.');
  const params: JsonObject = { serial, when: whenOf(body) };
  if (network) params.network = network;
  if (itf) params.interface = itf;
  // A duration wins; numberOfPackets 0 (as clients send beside a duration) means "by duration".
  const packets = int(body, 'numberOfPackets', { def: 0, min: 0, max: 1_000_000 });
  if (body.duration === undefined && packets > 0) params.packets = packets;
  else params.duration = int(body, 'duration', { def: 30, min: 1, max: 3600 });
  if (uploadUri) params.uri = uploadUri;
  return plan('trace', params, { when: params.when as number, uploads: uploadUri !== undefined });
}

/** wifiscan selector: `{bands: ["2"|"5"|"6"|"2G"|...]}` and/or `{channels: [int]}`. */
export function planWifiscan(serial: string, body: Body): CommandPlan {
  const params: JsonObject = {
    serial, override_dfs: bool(body, 'override_dfs', true), active: bool(body, 'activeScan', false), verbose: bool(body, 'verbose', false),
  };
  if (body.selector !== undefined) {
    const sel = body.selector;
    if (!isObject(sel) || (sel.bands === undefined && sel.channels === undefined)) {
      throw badRequest('selector', 'selector must be an object with bands (array of "2", "5", "6") and/or channels (array of integers).');
    }
    if (sel.bands !== undefined) {
      const bands = strArray(sel, 'bands');
      if (!bands.every((b) => /^(2|5|6)G?$/i.test(b))) throw badRequest('selector.bands', 'bands must be "2", "5" or "6".');
      params.bands = bands.map((b) => `${b.replace(/G$/i, '')}G`);
    }
    if (sel.channels !== undefined) {
      const ch = sel.channels;
      if (!Array.isArray(ch) || !ch.every((c) => Number.isInteger(c) && c > 0 && c < 256)) {
        throw badRequest('selector.channels', 'channels must be an array of channel numbers.');
      }
      params.channels = ch;
    }
  }
  if (body.ies !== undefined) {
    const ies = body.ies;
    if (!Array.isArray(ies) || !ies.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) {
      throw badRequest('ies', 'ies must be an array of element ids 0-255.');
    }
    params.ies = ies;
  }
  if (body.bandwidth !== undefined) params.bandwidth = int(body, 'bandwidth', { min: 0, max: 320 });
  return plan('wifiscan', params);
}

export function planRequest(serial: string, body: Body, commandUuid: string): CommandPlan {
  const message = str(body, 'message', ['state', 'healthcheck']);
  const when = whenOf(body);
  return plan('request', { serial, when, message, request_uuid: commandUuid }, { when });
}

export function planEventqueue(serial: string, body: Body): CommandPlan {
  const types = strArray(body, 'types');
  if (types.length === 0) throw badRequest('types', 'types must name at least one event type.');
  return plan('event', { serial, types });
}

/** telemetry: interval 0 stops; 1-120 s; `uuid` only when stopping. Not awaited (as the gateway). */
export function planTelemetry(serial: string, body: Body): CommandPlan {
  const interval = int(body, 'interval', { min: 0, max: 120 });
  const lifetime = int(body, 'lifetime', { def: 3600, min: 1 });
  const types = strArray(body, 'types', DEFAULT_TELEMETRY_TYPES);
  // A uuid names the stream to stop; starting, it is ignored (clients send one either way).
  const uuid = interval === 0 ? optStr(body, 'uuid') : undefined;
  if (uuid !== undefined && !UUID_RE.test(uuid)) throw badRequest('uuid', 'uuid must be a UUID.');
  const messagebus = bool(body, 'messagebus', false);
  // lifetime is sent too, so an AP that honours it stops on its own if the stop command is lost.
  return plan('telemetry', { serial, interval, types, lifetime }, {
    awaitResult: false, details: { serial, interval, lifetime, types, messagebus, ...(uuid ? { uuid } : {}) },
  });
}

export interface ScriptSource {
  type: ScriptType;
  /** Base64 script text. */
  script: string;
  timeout?: number;
  deferred?: boolean;
  /** Where a deferred script's output goes, if the stored script says. */
  uri?: string;
}

/** An optional text field where "" means absent, as the OpenWiFi clients send unused fields. */
const given = (body: Body, field: string): string | undefined => optStr(body, field) || undefined;

/**
 * script: inline (`type` + base64 `script`), stored (`scriptId`, looked up by the caller's hook:
 * its type, text, timeout and deferral unless the body says), or `diagnostic` (the AP's own bundle,
 * neither script nor scriptId). Both script and scriptId is a 400 (the upstream gateway's
 * 403 is a bug). A deferred script is acknowledged at once and uploads its output to `uri` (the body's,
 * the stored script's, else the gateway's upload endpoint when there is one); otherwise the AP has
 * `timeout` seconds and answers with the output.
 */
export function planScript(serial: string, body: Body, lookup?: (id: string) => ScriptSource | undefined, uploadUri?: string): CommandPlan {
  const scriptId = given(body, 'scriptId');
  const inline = given(body, 'script');
  const type = given(body, 'type');
  if (scriptId && inline) throw badRequest('scriptId', 'Send either script or scriptId, not both.');
  let source: ScriptSource | { type: typeof DIAGNOSTIC; script?: undefined; timeout?: undefined; deferred?: undefined; uri?: undefined };
  if (type === DIAGNOSTIC) {
    if (scriptId || inline) throw badRequest('type', 'A diagnostic script takes neither script nor scriptId: the AP runs its own.');
    source = { type: DIAGNOSTIC };
  } else if (scriptId) {
    const found = lookup?.(scriptId);
    if (!found) throw badRequest('scriptId', `No stored script ${scriptId}.`);
    source = found;
  } else {
    source = { type: str(body, 'type', SCRIPT_TYPES) as ScriptType, script: str(body, 'script') };
  }
  const when = whenOf(body);
  const deferred = body.deferred === undefined || body.deferred === null ? source.deferred ?? false : bool(body, 'deferred', false);
  const uri = given(body, 'uri') ?? source.uri;
  if (uri !== undefined && !/^https?:\/\/\S+$/.test(uri)) throw badRequest('uri', 'uri must be an http or https URL.');
  const params: JsonObject = { serial, type: source.type, when };
  if (source.script !== undefined) params.script = source.script;
  const target = uri ?? uploadUri;
  if (deferred) {
    if (target) params.uri = target;
  } else params.timeout = int(body, 'timeout', { def: source.timeout ?? 30, min: 1, max: 3600 });
  const signature = given(body, 'signature');
  if (signature) params.signature = signature;
  // Only a file that comes to this gateway's uploader is waited for (a uri of the caller's goes elsewhere).
  return plan('script', params, { when, timeoutMs: commandTimeoutMs('script', params), deferred, uploads: deferred && uri === undefined && uploadUri !== undefined });
}

/** Where rtty sessions point (the gateway's `rtty.*` settings, docs/upstream.md#commands). */
export interface RttyServer {
  server: string;
  /** Port of the rtty server for devices. */
  port: number;
  /** Port of the rtty server's web view. */
  viewport: number;
  /** Seconds the AP keeps trying to reach the rtty server. */
  timeout: number;
  /** One token for every session (upstream `rtty.token`); absent: a fresh random one per session. */
  token?: string;
  /** The internal rtty server's session table: a session is opened before its AP is sent there. */
  sessions?: RttySessions;
}

/** Sessions of the internal rtty server (src/rtty/server.ts). */
export interface RttySessions {
  /** False when it holds as many sessions as it takes. */
  open(session: { id: string; token: string; serial: string }): boolean;
  end(id: string): void;
}

/** The device password goes to the AP only: the command record's `details` (API, history, store) leave it out. */
export function planRtty(serial: string, rtty: RttyServer, session: { id: string; token: string; user: string; password: string }): CommandPlan {
  const shown = { method: 'rtty', serial, id: session.id, token: session.token, server: rtty.server, port: rtty.port, user: session.user, timeout: rtty.timeout };
  return plan('rtty', { ...shown, password: session.password }, { details: shown });
}
