import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { deviceOffline, notFound, nothingToDelete } from '../../errors.js';
import { DeviceStatus } from '../../protocol/device-status.js';
import { normalizeSerial } from '../../protocol/serial.js';
import type { LogKind } from '../../store/device-data-repo.js';
import { Command, DeviceCapabilities } from '../../store/records.js';
import { errorResponses, SerialParam } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';
import { deviceStatus } from '../live-status.js';
import { DeviceHealthChecks, DeviceLogs, DeviceStatistics, LogsDeleteQuery, LogsQuery, RangeQuery, RecordsQuery } from '../schemas/device-data.js';
import { checkRange } from '../record-query.js';
import { RemoteSession } from '../remote-session.js';
import { caller } from './device-commands.js';

const Deleted = { 204: Type.Null(), ...errorResponses };
const Count = Type.Object({ count: Type.Integer() });

const RTTY_ANSWER = 'Sends the `rtty` command to the AP (it waits up to 60 s for the answer) and, once the AP took it, answers the '
  + 'RemoteSession: `connectionId` and `token` are the id and token the AP got, `commandUUID` is the rtty command in the history '
  + '(GET /command/{uuid}), `started` when it was sent; server, port, viewport and timeout are the rtty settings: airtwin\'s own rtty server '
  + '(--rtty-host, default localhost; the ports it listens on, 5912 and 5913 unless taken) where `https://<server>:<viewport>/connect/<connectionId>` '
  + 'is the session\'s terminal page, or an external one (--rtty-server, --rtty-port, --rtty-viewport); timeout --rtty-timeout, 60 s. `password` is always empty: the device password goes to the AP only. '
  + '409 DEVICE_OFFLINE when the device is not connected, 409 DEVICE_BUSY while it runs another command, 403 DEVICE_RESTRICTED '
  + 'when the AP reports capabilities.restrictions.rtty (without developer), 503 RTTY_DISABLED when the gateway runs with --no-rtty, '
  + '503 RTTY_SESSIONS_FULL when the internal server holds --rtty-max-sessions. '
  + 'An AP that refuses the session (errorCode other than 0) or does not answer in time does not get an error envelope: the answer '
  + 'is a 200 with the Command record instead, as every command POST answers (status failed or timedout, errorCode, errorText); '
  + 'only the record has `status`, only the session has `connectionId`. (The upstream gateway answers 400 with the record for a '
  + 'refusal and 200 with it for a timeout.)';
const tags = ['device data'];

/** Every endpoint here: 400 for a malformed serial, 404 for an unknown device. */
function known(req: FastifyRequest, deps: GatewayDeps): string {
  const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
  if (!deps.devices.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
  return serial;
}

/** The query string, its date range checked. */
function query<T extends { startDate?: number; endDate?: number }>(req: FastifyRequest): T {
  const q = req.query as T;
  checkRange(q);
  return q;
}

/** spec "Per-device data": logs, health checks, statistics, capabilities, status and rtty of one device. */
export async function deviceDataRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  for (const group of [logRoutes, healthCheckRoutes, statisticsRoutes, capabilitiesStatusRoutes, rttyRoutes]) await group(api, deps);
}

async function logRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber/logs', {
    config: { wire: 'logs' },
    schema: { tags, summary: "A device's logs", params: SerialParam, querystring: LogsQuery, response: { 200: DeviceLogs, ...errorResponses } },
  }, async (req) => {
    const serial = known(req, deps);
    const q = query<Static<typeof LogsQuery>>(req);
    return { serialNumber: serial, values: await deps.deviceData.logs(serial, { ...q, logType: q.logType as LogKind | undefined }) };
  });

  api.delete('/device/:serialNumber/logs', {
    config: { wire: 'logsDelete' },
    schema: { tags, summary: "Delete a device's logs in a date range, of one kind", params: SerialParam, querystring: LogsDeleteQuery, response: Deleted },
  }, async (req, reply) => {
    const serial = known(req, deps);
    const q = query<Static<typeof LogsDeleteQuery>>(req);
    await deps.deviceData.deleteLogs(serial, { ...q, logType: q.logType as LogKind | undefined });
    return reply.deleted();
  });
}

async function healthCheckRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber/healthchecks', {
    config: { wire: 'healthchecks' },
    schema: { tags, summary: "A device's health checks", params: SerialParam, querystring: RecordsQuery, response: { 200: DeviceHealthChecks, ...errorResponses } },
  }, async (req) => {
    const serial = known(req, deps);
    const q = req.query as Static<typeof RecordsQuery>;
    if (q.lastOnly) {
      const last = await deps.deviceData.lastHealthCheck(serial);
      if (!last) throw notFound('healthchecks', `Device ${serial} has no health check yet.`);
      return { serialNumber: serial, values: [last] };
    }
    return { serialNumber: serial, values: await deps.deviceData.healthChecks(serial, query<typeof q>(req)) };
  });

  api.delete('/device/:serialNumber/healthchecks', {
    schema: { tags, summary: "Delete a device's health checks in a date range", params: SerialParam, querystring: RangeQuery, response: Deleted },
  }, async (req, reply) => {
    const serial = known(req, deps);
    await deps.deviceData.deleteHealthChecks(serial, query<Static<typeof RangeQuery>>(req));
    return reply.deleted();
  });
}

async function statisticsRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber/statistics', {
    config: { wire: 'statistics' },
    schema: {
      tags, summary: "A device's statistics (state blocks)", params: SerialParam, querystring: RecordsQuery,
      response: { 200: Type.Union([DeviceStatistics, Count]), ...errorResponses },
    },
  }, async (req) => {
    const serial = known(req, deps);
    const q = req.query as Static<typeof RecordsQuery>;
    if (q.countOnly) return { count: await deps.deviceData.countStatistics(serial, query<typeof q>(req)) };
    if (q.lastOnly) {
      const last = await deps.deviceData.lastStatistics(serial);
      if (!last) throw notFound('statistics', `Device ${serial} has no statistics yet.`);
      return { serialNumber: serial, values: [last] };
    }
    return { serialNumber: serial, values: await deps.deviceData.statistics(serial, query<typeof q>(req)) };
  });

  api.delete('/device/:serialNumber/statistics', {
    schema: { tags, summary: "Delete a device's statistics in a date range", params: SerialParam, querystring: RangeQuery, response: Deleted },
  }, async (req, reply) => {
    const serial = known(req, deps);
    await deps.deviceData.deleteStatistics(serial, query<Static<typeof RangeQuery>>(req));
    return reply.deleted();
  });
}

async function capabilitiesStatusRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber/capabilities', {
    config: { wire: 'capabilities' },
    schema: { tags, summary: "A device's last reported capabilities (404 if none)", params: SerialParam, response: { 200: DeviceCapabilities, ...errorResponses } },
  }, async (req) => {
    const serial = known(req, deps);
    const caps = await deps.deviceData.capabilities(serial);
    if (!caps) throw notFound('capabilities', `Device ${serial} has not reported capabilities.`);
    return caps;
  });

  api.delete('/device/:serialNumber/capabilities', {
    schema: { tags, summary: "Delete a device's capabilities (404 if none)", params: SerialParam, response: Deleted },
  }, async (req, reply) => {
    const serial = known(req, deps);
    if ((await deps.deviceData.deleteCapabilities(serial)) === 0) throw nothingToDelete('capabilities', `Device ${serial} has no capabilities stored.`);
    return reply.deleted();
  });

  api.get('/device/:serialNumber/status', {
    schema: { tags, summary: "A device's connection status", params: SerialParam, response: { 200: DeviceStatus, ...errorResponses } },
  }, async (req) => {
    return deviceStatus(deps.status, deps.devices.get(known(req, deps))!);
  });
}

async function rttyRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber/rtty', {
    config: { wire: 'rtty' },
    schema: {
      tags, summary: 'Open a remote session (rtty) on the device',
      description: RTTY_ANSWER,
      params: SerialParam, response: { 200: Type.Union([RemoteSession, Command]), ...errorResponses },
    },
  }, async (req) => {
    const serial = known(req, deps);
    if (!deps.status.status(serial)?.connected) throw deviceOffline(serial, 'rtty');
    const password = deps.devices.get(serial)?.devicePassword;
    const who = caller(req);
    const { session, command } = await deps.commandService.rtty(serial, { user: who.submittedBy, ...(password ? { password } : {}) }, who);
    return command.status === 'completed' ? session : command;
  });
}
