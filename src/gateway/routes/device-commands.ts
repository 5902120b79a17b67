import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { airtwinError, badRequest, forbidden, isAirtwinError, notFound } from '../../errors.js';
import { ADMIN_ROLES } from '../../server/roles.js';
import { normalizeSerial } from '../../protocol/serial.js';
import { Command } from '../../store/records.js';
import { errorResponses, SerialParam } from '../../server/schemas.js';
import type { Body } from '../../../actors/command-params.js';
import type { Caller, CommandService } from '../../../actors/command-service.js';
import type { GatewayDeps } from '../deps.js';
import { telemetryUri, type TelemetryRegistry } from '../telemetry.js';
import {
  ConfigureBody, ConfigureQuery, EventqueueBody, FactoryBody, GenericCommandBody, LedsBody, PingBody, PingResult, RebootBody, RequestBody,
  ScriptBody, TelemetryBody, TelemetryQuery, TelemetryResponse, TraceBody, UpgradeBody, UpgradeQuery, WifiscanBody,
} from '../schemas/device-commands.js';

/**
 * spec "Commands to a device": POST /device/{serialNumber}/<command>. Every command goes
 * through the CommandService (validation, the device actor, the command history); these routes
 * only check the path and body serial, the device's existence, and shape the answer.
 * The command policy (docs/actors.md): configure/upgrade/factory queue while the AP is offline
 * or busy; every other command is refused with 409 DEVICE_OFFLINE / DEVICE_BUSY.
 */

const tags = ['device commands'];

/** Answers of the command POSTs; 504 is a ping the AP did not answer. */
const responses = { ...errorResponses, 504: Type.Ref('ErrorEnvelope') };

const RECORD_ANSWER = 'Answers 200 with the Command record (the spec says "no content"; the record, with its UUID, status and '
  + 'results, is a compatible superset). The call waits for the AP (bounded by the command timeout); a queued or scheduled '
  + 'command answers at once with its pending record. A command the AP refused, or that timed out, is still a 200: read '
  + '`status` (completed, failed, timedout...), `errorCode` and `errorText`; `details` and `results` are JSON text. '
  + 'Poll GET /command/{uuid} for later changes.';

type ServiceMethod = 'command' | 'configure' | 'upgrade' | 'reboot' | 'factory' | 'leds' | 'trace' | 'wifiscan' | 'request' | 'eventqueue' | 'script';

interface RecordRoute {
  path: string;
  method: ServiceMethod;
  body: TSchema;
  querystring?: TSchema;
  summary: string;
  /** What this command does beyond RECORD_ANSWER. */
  notes: string;
  /** Refuses the caller (a coded error) before anything is sent. */
  allowed?: (req: FastifyRequest, deps: GatewayDeps) => void;
}

/** A stored script runs for root and admin, and for the roles it lists (upstream: root and the listed roles). */
function mayRunStoredScript(req: FastifyRequest, deps: GatewayDeps): void {
  const id = (req.body as Body | undefined)?.scriptId;
  if (typeof id !== 'string' || id === '') return;
  const script = deps.scripts.get(id) ?? deps.scripts.all().find((s) => s.name === id);
  const role = req.principal.role;
  if (script && !ADMIN_ROLES.has(role) && !script.restricted.includes(role)) throw forbidden('scriptId', 'admin');
}

const QUEUES = 'Queued (pending) while the device is offline or busy; runs when it is online and idle.';
const REFUSES = '409 DEVICE_OFFLINE when the device is not connected, 409 DEVICE_BUSY while it runs another command.';

const RECORD_ROUTES: RecordRoute[] = [
  { path: 'command', method: 'command', body: GenericCommandBody, summary: 'Send any AP method with a raw payload',
    notes: `configure, upgrade and factory queue like their own endpoints; other methods: ${REFUSES}` },
  { path: 'configure', method: 'configure', body: ConfigureBody, querystring: ConfigureQuery, summary: 'Push a configuration',
    notes: `${QUEUES} errorCode 1 (applied with substitutions, listed in results.status.rejected) is completed, or failed with `
      + '?strict=true (any errorCode other than 0 fails then; still a 200 with the record, where the upstream gateway answers 400).' },
  { path: 'upgrade', method: 'upgrade', body: UpgradeBody, querystring: UpgradeQuery, summary: 'Upgrade the firmware',
    notes: `${QUEUES} Completed when the AP accepts; it then reboots into the new image (status goes offline, then online). `
      + 'An AP restricted for upgrades (capabilities.restrictions.upgrade) needs the signature: 400 SIGNATURE_REQUIRED without it.' },
  { path: 'reboot', method: 'reboot', body: RebootBody, summary: 'Reboot the device',
    notes: `${REFUSES} Completed when the AP accepts; it then disconnects and connects again.` },
  { path: 'factory', method: 'factory', body: FactoryBody, summary: 'Factory-reset the device', notes: QUEUES },
  { path: 'leds', method: 'leds', body: LedsBody, summary: 'Set the LEDs (on, off, blink for duration seconds)', notes: REFUSES },
  { path: 'trace', method: 'trace', body: TraceBody, summary: 'Capture packets on a network or interface', notes: REFUSES },
  { path: 'wifiscan', method: 'wifiscan', body: WifiscanBody, summary: 'Scan the air',
    notes: `${REFUSES} results.status.scan holds the entries the AP heard. On an AP restricted for DFS `
      + '(capabilities.restrictions.dfs) only override_dfs false is sent; otherwise 403 DEVICE_RESTRICTED.' },
  { path: 'request', method: 'request', body: RequestBody, summary: 'Ask for a state or healthcheck message now',
    notes: `${REFUSES} Completes on the AP's acknowledgement; the message carrying the command UUID then replaces results.` },
  { path: 'eventqueue', method: 'eventqueue', body: EventqueueBody, summary: "Fetch events from the AP's queue",
    notes: `${REFUSES} Sent to the AP as the 'event' method; results.events holds them, a list per type asked.` },
  { path: 'script', method: 'script', body: ScriptBody, summary: 'Run a script (shell, ucode, uci, bundle, or the AP\'s diagnostic bundle)',
    notes: `${REFUSES} Both script and scriptId: 400. A stored script (scriptId, GET /scripts) runs for admins and the roles it lists (403 otherwise). `
      + 'deferred: the AP acknowledges at once and uploads its output (waitingForFile once the gateway has an upload endpoint). '
      + 'A restricted AP (capabilities.restrictions) needs the signature: 400 SIGNATURE_REQUIRED.',
    allowed: mayRunStoredScript },
];

/** The path serial, normalised (400 INVALID_SERIAL), checked against the body's (400 SERIAL_MISMATCH) and the store (404). */
function target(req: FastifyRequest, deps: GatewayDeps): { serial: string; body: Body } {
  const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
  const body = (req.body ?? {}) as Body;
  if (body.serialNumber !== undefined && normalizeSerial(String(body.serialNumber), 'serialNumber') !== serial) {
    throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${String(body.serialNumber)} differs from the path serial ${serial}.`);
  }
  if (!deps.devices.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
  return { serial, body };
}

/** Who asked: the authenticated principal, the record's `submittedBy` (and rtty's `user`). */
export const caller = (req: FastifyRequest): Caller => ({ submittedBy: req.principal.subject });

/** The gateway as this client reached it (scheme, host and port), for the websocket URI. */
const baseUrl = (req: FastifyRequest): string => `${req.protocol}://${req.host}`;

// A POST without a body (reboot, ping, factory...) validates as {}: every body field is optional there.
async function emptyBody(req: FastifyRequest): Promise<void> {
  req.body ??= {};
}

export async function deviceCommandsRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  for (const group of [recordRoutes, pingRoute, telemetryRoute]) await group(api, deps);
}

/** The commands answering their Command record (RECORD_ROUTES). */
async function recordRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const service: CommandService = deps.commandService;
  for (const r of RECORD_ROUTES) {
    api.post(`/device/:serialNumber/${r.path}`, {
      // script: `type` may come from a stored script (scriptId), but a client sends it (docs: required).
      config: { wire: 'command', ...(r.path === 'script' ? { openapi: { body: { required: ['type'] } } } : {}) },
      preValidation: emptyBody,
      schema: {
        tags, summary: r.summary, description: `${r.notes}\n\n${RECORD_ANSWER}`,
        params: SerialParam, body: r.body, response: { 200: Command, ...responses },
        ...(r.querystring ? { querystring: r.querystring } : {}),
      },
    }, async (req) => {
      const { serial, body } = target(req, deps);
      r.allowed?.(req, deps);
      const query = (req.query ?? {}) as { FWsignature?: string; strict?: boolean };
      if (r.method === 'configure') return service.configure(serial, body, caller(req), { strict: query.strict === true });
      // upgrade: the upstream query FWsignature, unless the body has a signature.
      const withQuery = r.path === 'upgrade' && query.FWsignature !== undefined && body.signature === undefined
        ? { ...body, signature: query.FWsignature } : body;
      return service[r.method](serial, withQuery, caller(req));
    });
  }
}

async function pingRoute(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.post('/device/:serialNumber/ping', {
    config: { wire: 'ping' },
    preValidation: emptyBody,
    schema: {
      tags, summary: 'Ping the device and measure the round trip',
      description: `Answers the spec's PingResult (latency in ms, a number); the ping itself is in the command history. ${REFUSES} `
        + '504 COMMAND_TIMEOUT when the AP does not answer; an AP answering with an error still gets its PingResult (the record says failed).',
      params: SerialParam, body: PingBody, response: { 200: PingResult, ...responses },
    },
  }, async (req) => {
    const { serial } = target(req, deps);
    return (await deps.commandService.ping(serial, caller(req))).result;
  });
}

async function telemetryRoute(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.post('/device/:serialNumber/telemetry', {
    // interval is checked by the route (not needed with statusOnly), but a client sends it.
    config: { wire: 'telemetry', openapi: { body: { required: ['interval'] } } },
    preValidation: emptyBody,
    schema: {
      tags, summary: 'Start, stop or query a telemetry stream',
      description: 'interval 1..120 starts a stream and answers the Command record plus `action`, `uuid` (the stream id) and, for a '
        + 'websocket stream, `uri` (ws://host:port/api/v1/ws_telemetry?uuid=&serialNumber=); interval 0 stops the device\'s streams '
        + '(only `uuid` when given). messagebus=true publishes to NATS subject telemetry.<serial> instead (400 NOT_CONFIGURED without '
        + 'NATS). statusOnly=true changes nothing and answers only action and telemetry. `telemetry` is the upstream `status` object '
        + `(running, interval, timers, clients, packets), renamed because \`status\` is the command status here. ${REFUSES}`,
      params: SerialParam, querystring: TelemetryQuery, body: TelemetryBody, response: { 200: TelemetryResponse, ...responses },
    },
  }, async (req) => {
    const { serial, body } = target(req, deps);
    const registry: TelemetryRegistry = deps.telemetry;
    if ((req.query as Static<typeof TelemetryQuery>).statusOnly) {
      return { action: 'Telemetry status only.', serialNumber: serial, telemetry: registry.status(serial) };
    }
    const b = body as Static<typeof TelemetryBody>;
    if (b.interval === undefined) throw badRequest('interval', 'interval is required (0 stops streaming, 1 to 120 seconds).');
    // A bus stream without NATS is refused before anything reaches the AP.
    registry.check({ messagebus: b.messagebus === true });
    return b.interval === 0 ? stopTelemetry(req, deps, serial, b) : startTelemetry(req, deps, serial, b, b.interval);
  });
}

type TelemetryAsk = Static<typeof TelemetryBody>;
const streamKind = (b: TelemetryAsk): string => (b.messagebus === true ? 'Message bus' : 'WebSocket');

async function stopTelemetry(req: FastifyRequest, deps: GatewayDeps, serial: string, b: TelemetryAsk) {
  const registry = deps.telemetry;
  const command = await deps.commandService.telemetry(serial, b as Body, caller(req)).catch((e: unknown) => {
    // A stop the AP cannot take now (offline, busy) still ends the streams: nobody should keep
    // waiting on them. Anything else (a 400) leaves them alone.
    if (isAirtwinError(e) && (e.code === 'DEVICE_OFFLINE' || e.code === 'DEVICE_BUSY')) registry.stop(serial, b.uuid);
    throw e;
  });
  registry.stop(serial, b.uuid);
  return { ...command, action: `${streamKind(b)} telemetry stopped.`, telemetry: registry.status(serial) };
}

async function startTelemetry(req: FastifyRequest, deps: GatewayDeps, serial: string, b: TelemetryAsk, interval: number) {
  const registry = deps.telemetry;
  const messagebus = b.messagebus === true;
  const kind = streamKind(b);
  // The AP may stream before this call returns (the record is written first), and a frame no
  // stream wants makes the registry stop the AP as a runaway. A placeholder stream, under an id
  // nobody can subscribe to, covers that gap; the real one (the command UUID) replaces it.
  const placeholder = `starting-${randomUUID()}`;
  registry.start({ serial, uuid: placeholder, interval, lifetime: b.lifetime, messagebus });
  try {
    const command = await deps.commandService.telemetry(serial, b as Body, caller(req));
    // Fire-and-forget: completed once sent; anything else means the AP never got it.
    if (command.status !== 'completed') {
      registry.stop(serial, placeholder);
      return { ...command, action: `${kind} telemetry not started (${command.status}).`, telemetry: registry.status(serial) };
    }
    registry.start({ serial, uuid: command.UUID, interval, lifetime: b.lifetime, messagebus });
    registry.stop(serial, placeholder);
    return {
      ...command, action: `${kind} telemetry started.`, uuid: command.UUID,
      ...(messagebus ? {} : { uri: telemetryUri(baseUrl(req), serial, command.UUID) }), telemetry: registry.status(serial),
    };
  } finally {
    registry.stop(serial, placeholder);
  }
}
