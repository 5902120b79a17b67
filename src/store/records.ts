import { Type, type Static } from 'typebox';

/**
 * Shapes of stored records, shared by the store's repositories and the API schemas
 * (one source for validation, types and OpenAPI).
 */

export const Note = Type.Object({
  created: Type.Integer(),
  createdBy: Type.String(),
  note: Type.String(),
});

export const DEVICE_TYPES = ['AP', 'SWITCH'] as const;

/** The Device record (spec "Device"), plus the read-only upstream extras clients rely on. */
export const Device = Type.Object({
  serialNumber: Type.String(),
  deviceType: Type.String({ enum: [...DEVICE_TYPES], default: 'AP' }),
  macAddress: Type.String(),
  manufacturer: Type.String(),
  UUID: Type.Integer(),
  configuration: Type.String({ description: 'A JSON document, as a string (the spec says string). POST/PUT also accept an object.' }),
  notes: Type.Array(Note),
  createdTimestamp: Type.Integer(),
  lastConfigurationChange: Type.Integer(),
  lastConfigurationDownload: Type.Integer(),
  firmware: Type.String(),
  devicePassword: Type.String(),
  owner: Type.String(),
  location: Type.String(),
  venue: Type.String(),
  subscriber: Type.String(),
  entity: Type.String(),
  modified: Type.Integer(),
  locale: Type.String(),
  compatible: Type.String({ description: 'Model id reported by the AP (read-only).' }),
  blackListed: Type.Boolean({ description: 'Whether the serial is on the blacklist (read-only).' }),
  lastFWUpdate: Type.Integer(),
  lastRecordedContact: Type.Integer(),
  simulated: Type.Boolean(),
  connectReason: Type.String(),
}, { $id: 'Device', title: 'Device' });
export type Device = Static<typeof Device>;


/**
 * The Command record (spec "Command"). Structurally the same as actors' `Command`, so the
 * DuckDB CommandsRepo satisfies the CommandStore port without src/store importing actors/.
 */
export const Command = Type.Object({
  UUID: Type.String({ format: 'uuid' }),
  command: Type.String(),
  details: Type.String({ description: 'JSON text: the parameters sent to the AP.' }),
  serialNumber: Type.String(),
  submitted: Type.Integer(),
  executed: Type.Integer(),
  completed: Type.Integer(),
  when: Type.Integer(),
  errorText: Type.String(),
  results: Type.String({ description: "JSON text: the AP's whole `result` object ('{}' until it answers)." }),
  errorCode: Type.Integer(),
  submittedBy: Type.String(),
  status: Type.String({ description: 'pending, executed, completed, failed, timedout or expired.' }),
  custom: Type.Integer(),
  waitingForFile: Type.Integer(),
  attachFile: Type.Integer(),
  attachSize: Type.Integer(),
  attachType: Type.String(),
  executionTime: Type.Number({ description: "Milliseconds from sending the command to the AP's reply (0 until it replied)." }),
  lastTry: Type.Integer({ description: 'Epoch seconds of the last failed attempt to send a queued command (0: none).' }),
  deferred: Type.Boolean({ description: 'A script the AP runs in the background, uploading its output later.' }),
}, { $id: 'Command', title: 'Command' });
export type Command = Static<typeof Command>;

/** One row of spec "DeviceLogs".values. Stored logType: 0 normal, 1 crash/recovery, 2 reboot log. */
export const DeviceLog = Type.Object({
  log: Type.String(),
  recorded: Type.Integer(),
  severity: Type.Integer({ description: 'syslog severity 0..7' }),
  data: Type.String({ description: 'JSON text.' }),
  logType: Type.Integer({ description: 'As stored: 0 normal, 1 crash or recovery, 2 reboot log.' }),
  UUID: Type.Integer({ description: 'Configuration uuid the AP ran.' }),
});
export type DeviceLog = Static<typeof DeviceLog>;

/** One row of spec "DeviceHealthChecks".values. */
export const HealthCheck = Type.Object({
  UUID: Type.Integer(),
  sanity: Type.Integer({ description: '0..100' }),
  data: Type.String({ description: 'JSON text: the healthcheck `data` object.' }),
  recorded: Type.Integer(),
});
export type HealthCheck = Static<typeof HealthCheck>;

/** One row of spec "DeviceStatistics".values. */
export const StatisticsRecord = Type.Object({
  serialNumber: Type.String(),
  recorded: Type.Integer(),
  UUID: Type.Integer(),
  data: Type.String({ description: 'JSON text: the state object the AP sent.' }),
});
export type StatisticsRecord = Static<typeof StatisticsRecord>;

/** spec "DeviceCapabilities". */
export const DeviceCapabilities = Type.Object({
  serialNumber: Type.String(),
  capabilities: Type.String({ description: 'JSON text: the capabilities object of the last connect.' }),
  lastUpdate: Type.Integer(),
  firstUpdate: Type.Integer(),
}, { $id: 'DeviceCapabilities', title: 'DeviceCapabilities' });
export type DeviceCapabilities = Static<typeof DeviceCapabilities>;

/** A file a device uploaded for a command (trace pcap, script output...). */
export interface StoredFile {
  uuid: string;
  serialNumber: string;
  /** pcap | tgz | txt | bin */
  type: string;
  created: number;
  content: Buffer;
}

/** spec "DefaultConfiguration", plus upstream's `platform` (docs/upstream.md#rest-conventions). */
export const DefaultConfiguration = Type.Object({
  name: Type.String(),
  modelIds: Type.Array(Type.String(), { description: "Device models (`compatible`) it applies to; '*' matches any." }),
  description: Type.String(),
  configuration: Type.String({ description: 'A JSON document, as a string (the spec says string). POST/PUT also accept an object.' }),
  platform: Type.String({ enum: ['ap', 'switch'], default: 'ap' }),
  created: Type.Integer(),
  lastModified: Type.Integer(),
}, { $id: 'DefaultConfiguration', title: 'DefaultConfiguration' });
export type DefaultConfiguration = Static<typeof DefaultConfiguration>;

/** spec "BlacklistEntry": `created` and `author` are set by the server. */
export const BlacklistEntry = Type.Object({
  serialNumber: Type.String(),
  reason: Type.String(),
  author: Type.String({ description: 'Subject of the token that listed the serial (read-only).' }),
  created: Type.Integer({ description: 'Epoch seconds when it was listed (read-only).' }),
}, { $id: 'BlacklistEntry', title: 'BlacklistEntry' });
export type BlacklistEntry = Static<typeof BlacklistEntry>;

/**
 * spec "RADIUS proxy configuration" plus upstream's extra pool and server fields
 * (gateway `src/RESTAPI/RESTAPI_radiusProxyConfig_handler.cpp`). Enumerations and ranges are checked here; the semantic rules
 * (IP parseable, weights for `weighted`) in src/gateway/routes/radius.ts.
 */
export const RadiusServer = Type.Object({
  name: Type.Optional(Type.String()),
  ip: Type.String({ description: 'IPv4 or IPv6 address.' }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  weight: Type.Optional(Type.Integer({ minimum: 0, description: 'Needed (> 0) when the group strategy is weighted.' })),
  secret: Type.Optional(Type.String()),
  certificate: Type.Optional(Type.String()),
  radsec: Type.Optional(Type.Boolean()),
  allowSelfSigned: Type.Optional(Type.Boolean()),
  radsecPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  radsecSecret: Type.Optional(Type.String()),
  radsecCacerts: Type.Optional(Type.Array(Type.String())),
  radsecCert: Type.Optional(Type.String()),
  radsecKey: Type.Optional(Type.String()),
  radsecRealms: Type.Optional(Type.Array(Type.String())),
  ignore: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const RADIUS_STRATEGIES = ['random', 'round_robin', 'weighted'] as const;
export const RADIUS_MONITOR_METHODS = ['none', 'https', 'radius'] as const;
export const RADSEC_POOL_TYPES = ['generic', 'radsec', 'orion', 'globalreach'] as const;

export const RadiusServerGroup = Type.Object({
  strategy: Type.Optional(Type.String({ enum: [...RADIUS_STRATEGIES], default: 'random' })),
  monitor: Type.Optional(Type.Boolean({ default: false })),
  monitorMethod: Type.Optional(Type.String({ enum: [...RADIUS_MONITOR_METHODS], default: 'none' })),
  methodParameters: Type.Optional(Type.Array(Type.String())),
  servers: Type.Optional(Type.Array(RadiusServer)),
}, { additionalProperties: false });

export const RadiusPool = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  authConfig: Type.Optional(RadiusServerGroup),
  acctConfig: Type.Optional(RadiusServerGroup),
  coaConfig: Type.Optional(RadiusServerGroup),
  useByDefault: Type.Optional(Type.Boolean()),
  radsecKeepAlive: Type.Optional(Type.Integer({ minimum: 0, description: 'Seconds; 0 is read as 25.' })),
  poolProxyIp: Type.Optional(Type.String()),
  radsecPoolType: Type.Optional(Type.String({ enum: [...RADSEC_POOL_TYPES], default: 'generic' })),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const RadiusProxyConfig = Type.Object({
  pools: Type.Array(RadiusPool),
}, { additionalProperties: false, title: 'RadiusProxyConfig' });
export type RadiusProxyConfig = Static<typeof RadiusProxyConfig>;
export type RadiusServerGroup = Static<typeof RadiusServerGroup>;

/** Roles a stored script may be run by (upstream's user roles); root and admin always may. */
export const USER_ROLES = ['root', 'admin', 'subscriber', 'partner', 'csr', 'system', 'installer', 'noc', 'accounting'] as const;

/** A stored script a device `script` command runs by `scriptId` (upstream ScriptEntry). */
export const ScriptEntry = Type.Object({
  id: Type.String({ description: 'UUID, set by the server.' }),
  name: Type.String(),
  description: Type.String(),
  uri: Type.String({ description: 'Where its source came from, if anywhere (http or https).' }),
  content: Type.String({ description: 'The script text; the gateway sends it to the AP base64-encoded.' }),
  version: Type.String(),
  type: Type.String({ enum: ['shell', 'bundle'] }),
  created: Type.Integer(),
  modified: Type.Integer(),
  author: Type.String(),
  restricted: Type.Array(Type.String({ enum: [...USER_ROLES] }), { description: 'Roles besides root and admin that may run it.' }),
  deferred: Type.Boolean({ description: 'Runs in the background and uploads its output (unless the command says otherwise).' }),
  timeout: Type.Integer({ description: 'Seconds the AP may run it (unless the command says otherwise).' }),
  defaultUploadURI: Type.String({ description: 'Where a deferred run uploads its output, if not the gateway.' }),
}, { $id: 'ScriptEntry', title: 'ScriptEntry' });
export type ScriptEntry = Static<typeof ScriptEntry>;

/** The firmware a device type should run (upstream DefaultFirmware). */
export const DefaultFirmware = Type.Object({
  deviceType: Type.String({ description: 'The `compatible` model id.' }),
  description: Type.String(),
  uri: Type.String({ description: 'http(s) URL of the image.' }),
  revision: Type.String(),
  imageCreationDate: Type.Integer(),
  created: Type.Integer(),
  lastModified: Type.Integer(),
}, { $id: 'DefaultFirmware', title: 'DefaultFirmware' });
export type DefaultFirmware = Static<typeof DefaultFirmware>;
