import type { FastifyRequest } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import { isSerial } from '../../protocol/serial.js';
import { Command, DefaultConfiguration, Device, DeviceCapabilities, DeviceLog, HealthCheck } from '../../store/records.js';
import type { WireShapes } from '../../server/wire/profile.js';
import { DeviceListResponse, DeviceWithStatus, ValidateResponse } from '../schemas/device.js';
import { PingResult } from '../schemas/device-commands.js';
import { RemoteSession } from '../remote-session.js';
import { embedJson } from './embed.js';

/**
 * The gateway's response shapes on the `openwifi` wire (docs/wire-profiles.md), each taken from
 * what the OpenWiFi gateway sends (docs/upstream.md#rest-conventions; RESTObjects' to_json):
 * stored JSON documents embedded as objects, `deviceType` lower case, statistics under `data`,
 * health check data under `values`, ping latency as text, telemetry's stream status as `status`.
 */

type Rec = Record<string, unknown>;
const Doc = (description: string) => Type.Unknown({ description: `${description} (an object; text that is not JSON stays a string).` });

/** A record schema with some fields replaced: no $id, so it never clashes with the canonical one. */
const variant = (base: TObject, changes: Record<string, TSchema>, title: string) => {
  const description = (base as { description?: string }).description;
  return Type.Object({ ...base.properties, ...changes }, { title, ...(description ? { description } : {}) });
};

const DeviceType = Type.String({ description: 'ap or switch, lower case as upstream stores it.' });
const DeviceWire = variant(Device, { deviceType: DeviceType, configuration: Doc('The configuration') }, 'Device');
const DeviceWithStatusWire = variant(DeviceWithStatus, { deviceType: DeviceType, configuration: Doc('The configuration') }, 'DeviceWithStatus');
const CommandWire = variant(Command, { details: Doc('The parameters sent to the AP'), results: Doc("The AP's result") }, 'Command');

const deviceOut = (d: Rec): Rec => ({ ...d, deviceType: String(d.deviceType).toLowerCase(), configuration: embedJson(String(d.configuration)) });
const commandOut = (c: Rec): Rec => ({ ...c, details: embedJson(String(c.details)), results: embedJson(String(c.results)) });
const listOf = <T>(v: unknown, f: (x: Rec) => T): T[] | undefined => (Array.isArray(v) ? v.map((x) => f(x as Rec)) : undefined);
const queryFlag = (req: FastifyRequest, name: string) => (req.query as Rec | undefined)?.[name] === true;

/** upstream's ping latency: milliseconds as text with three decimals and a trailing "ms.". */
const latencyText = (ms: unknown) => `${Number(ms).toFixed(3)}ms.`;

/** upstream's telemetry `status`: the stream status with kafka* names (the message bus here is NATS). */
function telemetryStatus(t: Rec | undefined): Rec {
  return {
    interval: t?.interval ?? 0, running: t?.running ?? false,
    websocketClients: t?.websocketClients ?? 0, websocketPackets: t?.websocketPackets ?? 0, websocketTimer: t?.websocketTimer ?? 0,
    kafkaClients: t?.messagebusClients ?? 0, kafkaPackets: t?.messagebusPackets ?? 0, kafkaTimer: t?.messagebusTimer ?? 0,
  };
}

const TelemetryWire = Type.Object({
  action: Type.String(),
  serialNumber: Type.String(),
  uuid: Type.Optional(Type.String({ description: 'The stream id (the telemetry command UUID).' })),
  uri: Type.Optional(Type.String({ description: 'Websocket to subscribe to (websocket streams with interval > 0).' })),
  status: Type.Object({
    interval: Type.Integer(), running: Type.Boolean(), websocketClients: Type.Integer(), websocketPackets: Type.Integer(),
    websocketTimer: Type.Integer(), kafkaClients: Type.Integer(), kafkaPackets: Type.Integer(), kafkaTimer: Type.Integer(),
  }, { description: 'The stream status; kafka* count message bus (NATS) streams.' }),
}, { title: 'TelemetryAnswer' });

const HealthCheckWire = Type.Object({
  values: Doc('The health check data'), UUID: HealthCheck.properties.UUID, sanity: HealthCheck.properties.sanity, recorded: HealthCheck.properties.recorded,
}, { title: 'HealthCheck' });
const healthOut = (h: Rec): Rec => ({ values: embedJson(String(h.data)), UUID: h.UUID, sanity: h.sanity, recorded: h.recorded });

const StatisticsList = Type.Object({
  serialNumber: Type.String(),
  data: Type.Array(Type.Object({ data: Doc('The state document'), UUID: Type.Integer(), recorded: Type.Integer() })),
}, { required: ['serialNumber', 'data'], title: 'DeviceStatistics' });
const Count = Type.Object({ count: Type.Integer() });
const RawState = Type.Object({}, { additionalProperties: true, description: 'lastOnly=true: the last state document itself.' });

export const OPENWIFI_SHAPES: WireShapes = {
  device: { schema: DeviceWire, toWire: (d) => deviceOut(d as Rec) },
  deviceCreate: {
    schema: Type.Union([DeviceWire, ValidateResponse]),
    toWire: (d) => ('serialNumber' in (d as Rec) ? deviceOut(d as Rec) : d),
  },
  deviceList: {
    schema: variant(DeviceListResponse, { devices: Type.Optional(Type.Array(DeviceWire)), devicesWithStatus: Type.Optional(Type.Array(DeviceWithStatusWire)) }, 'DeviceList'),
    toWire: (p) => {
      const r = p as Rec;
      const devices = listOf(r.devices, deviceOut);
      const withStatus = listOf(r.devicesWithStatus, deviceOut);
      return { ...r, ...(devices ? { devices } : {}), ...(withStatus ? { devicesWithStatus: withStatus } : {}) };
    },
  },
  command: { schema: CommandWire, toWire: (c) => commandOut(c as Rec) },
  commandList: {
    schema: Type.Object({ commands: Type.Array(CommandWire) }),
    toWire: (p) => ({ commands: listOf((p as Rec).commands, commandOut) }),
  },
  rtty: {
    schema: Type.Union([RemoteSession, CommandWire]),
    toWire: (p) => ('connectionId' in (p as Rec) ? p : commandOut(p as Rec)),
  },
  ping: {
    schema: variant(PingResult, { latency: Type.String({ description: 'Round trip as text, e.g. "12.000ms." (upstream).' }) }, 'PingResult'),
    toWire: (p) => ({ ...(p as Rec), latency: latencyText((p as Rec).latency) }),
  },
  telemetry: {
    schema: TelemetryWire,
    toWire: (p) => {
      const r = p as Rec;
      return {
        action: r.action, serialNumber: r.serialNumber, ...(r.uuid !== undefined ? { uuid: r.uuid } : {}), ...(r.uri !== undefined ? { uri: r.uri } : {}),
        status: telemetryStatus(r.telemetry as Rec | undefined),
      };
    },
  },
  logs: {
    fromWire: upstreamLogType,
    schema: Type.Object({ serialNumber: Type.String(), values: Type.Array(variant(DeviceLog, { data: Doc('The log data') }, 'DeviceLog')) }, { title: 'DeviceLogs' }),
    toWire: (p) => ({ ...(p as Rec), values: listOf((p as Rec).values, (l) => ({ ...l, data: embedJson(String(l.data)) })) }),
  },
  healthchecks: {
    schema: Type.Union([
      Type.Object({ serialNumber: Type.String(), values: Type.Array(HealthCheckWire) }, { required: ['serialNumber', 'values'], title: 'DeviceHealthChecks' }),
      HealthCheckWire,
    ]),
    // lastOnly: the one health check itself, as upstream answers it.
    toWire: (p, req) => {
      const values = listOf((p as Rec).values, healthOut) ?? [];
      return queryFlag(req, 'lastOnly') ? values[0] : { serialNumber: (p as Rec).serialNumber, values };
    },
  },
  statistics: {
    schema: Type.Union([StatisticsList, Count, RawState]),
    toWire: (p, req) => {
      const r = p as Rec;
      if (!Array.isArray(r.values)) return r;
      const values = r.values as Rec[];
      if (queryFlag(req, 'lastOnly')) return embedJson(String(values[0]?.data ?? '{}'));
      return { serialNumber: r.serialNumber, data: values.map((v) => ({ data: embedJson(String(v.data)), UUID: v.UUID, recorded: v.recorded })) };
    },
  },
  capabilities: {
    schema: variant(DeviceCapabilities, { capabilities: Doc('The capabilities') }, 'DeviceCapabilities'),
    toWire: (p) => ({ ...(p as Rec), capabilities: embedJson(String((p as Rec).capabilities)) }),
  },
  deviceTypes: {
    schema: Type.Object({ device_types: Type.Array(Type.Object({ deviceType: Type.String(), capabilities: Doc('The capabilities') })) }, { title: 'DeviceTypes' }),
    toWire: (p) => ({ device_types: listOf((p as Rec).device_types, (t) => ({ ...t, capabilities: embedJson(String(t.capabilities)) })) }),
  },
  defaultConfig: defaultConfigShape(),
  defaultConfigUpdated: defaultConfigShape(),
  defaultConfigList: {
    schema: Type.Object({ configurations: Type.Optional(Type.Array(DefaultConfigWire())), count: Type.Optional(Type.Integer()) }),
    toWire: (p) => {
      const list = listOf((p as Rec).configurations, configOut);
      return list ? { configurations: list } : p;
    },
  },
  logsDelete: { fromWire: upstreamLogType },
  // upstream takes the serial from the body: the OpenWiFi CLI posts to /blacklist/1.
  blacklistCreate: {
    fromWire: (req) => {
      const params = req.params as Rec;
      const body = req.body as Rec | undefined;
      if (!isSerial(String(params.serialNumber)) && typeof body?.serialNumber === 'string' && isSerial(body.serialNumber)) {
        params.serialNumber = body.serialNumber;
      }
    },
  },
};

/**
 * upstream's logType is the stored kind (0 normal, 1 crash or recovery, 2 reboot log); the
 * canonical query's 0-2 are the spec's, so they become the repository's one-kind selections.
 */
function upstreamLogType(req: FastifyRequest): void {
  const q = req.query as Rec;
  const UPSTREAM: Record<number, number> = { 0: 3, 1: 2, 2: 4 };
  q.logType = UPSTREAM[Number(q.logType ?? 0)];
}

function DefaultConfigWire() {
  return variant(DefaultConfiguration, { configuration: Doc('The configuration') }, 'DefaultConfiguration');
}
function configOut(c: Rec): Rec {
  return { ...c, configuration: embedJson(String(c.configuration)) };
}
function defaultConfigShape() {
  return { schema: DefaultConfigWire(), toWire: (c: unknown) => configOut(c as Rec) };
}
