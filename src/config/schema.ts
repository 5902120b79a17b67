import { Type, type Static } from 'typebox';
import { DEFAULT_FRAME_BUDGET } from '../protocol/frame-budget.js';

/**
 * Every setting of `airtwin serve`. Each is a flag (`--gateway-port`), an env var
 * (`AIRTWIN_GATEWAY_PORT`) and a key of the optional config file (`gatewayPort`).
 */
export const ServeConfigSchema = Type.Object({
  dataDir: Type.String({ minLength: 1, description: 'Folder holding airtwin.duckdb and the token file.' }),
  gatewayPort: Type.Integer({ minimum: 0, maximum: 65535 }),
  rrmPort: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  scenario: Type.String({ minLength: 1, description: 'Venue name in scenarios/ or a path to a venue file.' }),
  sim: Type.Boolean({ description: 'Run the simulated venue (false with --no-sim).' }),
  seed: Type.Optional(Type.Integer({ minimum: 0 })),
  speed: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Literal('max')]),
  replay: Type.Optional(Type.String({ minLength: 1 })),
  keepTime: Type.Boolean(),
  record: Type.Optional(Type.String({ minLength: 1 })),
  recordMaxBytes: Type.Optional(Type.Integer({ minimum: 4096, description: 'Rotate the recording past this size (FILE, FILE.1, ...).' })),
  nats: Type.Optional(Type.String({ pattern: '^(nats|tls|ws|wss)://' })),
  natsDurable: Type.String({ pattern: '^[A-Za-z0-9_-]+$', description: 'JetStream durable consumer of this serve worker (one worker per durable).' }),
  natsFilter: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Subjects of this worker\'s part of the fleet, e.g. ucentral.<serial>.*' })),
  apiTokens: Type.Array(Type.String({ minLength: 1 }), { description: 'Static tokens, each `token` or `token:role`; the token part has at least 8 characters (load.ts checks it).' }),
  jwtSecret: Type.Optional(Type.String({ minLength: 16 })),
  jwtPublicKey: Type.Optional(Type.String({ minLength: 1, description: 'Path to a PEM RS256 public key.' })),
  securityUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  tlsCert: Type.Optional(Type.String({ minLength: 1 })),
  tlsKey: Type.Optional(Type.String({ minLength: 1 })),
  logLevel: Type.Union([Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'),
    Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')]),
  bodyLimit: Type.Integer({ minimum: 1024, description: 'Largest accepted request body in bytes.' }),
  autoProvision: Type.Boolean({ description: 'Create a device record for an unknown AP that connects.' }),
  rrmWifiScanInterval: Type.Optional(Type.Integer({ minimum: 0, description: 'RRM data collection: seconds between two wifi scans of a zone member with enableWifiScan (default 900; 0 disables).' })),
  rrmCapabilitiesInterval: Type.Optional(Type.Integer({ minimum: 1, description: 'RRM data collection: seconds between two capability/state refreshes of a zone member (default 3600).' })),
  rrmCollectInterval: Type.Optional(Type.Integer({ minimum: 1, description: 'RRM data collection: seconds between two looks for due scans (default 30).' })),
  rrmPlugin: Type.Optional(Type.String({ minLength: 1, description: 'RRM: a TypeScript/JavaScript module exporting an optimizer (docs/rrm.md "Your own optimizer"); it becomes a mode of its algorithm.' })),
  rrmConfigDebounce: Type.Optional(Type.Integer({ minimum: 0, description: 'RRM apply: seconds a device waits after one configure before the next (default 30).' })),
  rtty: Type.Boolean({ description: 'GET /device/{serial}/rtty opens remote sessions; false answers 503 RTTY_DISABLED, like the gateway with rtty.enabled=false.' }),
  rttyServer: Type.Optional(Type.String({ minLength: 1, description: 'Host the APs reach the rtty server (rttys) on, for GET /device/{serial}/rtty (default localhost).' })),
  rttyPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: "rtty server's port for devices (default 5912)." })),
  rttyViewport: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: "rtty server's web view port (default 5913)." })),
  rttyTimeout: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds an AP keeps trying to reach the rtty server (default 60).' })),
  rttyToken: Type.Optional(Type.String({ minLength: 1, description: 'One token for every rtty session (default: a random one per session).' })),
  apMaxFramesPerS: Type.Integer({ minimum: 0, description: 'Frames per second one AP may send over NATS (burst: 10 s of it); over it frames are dropped and counted; 0 turns it off.' }),
  apMaxBytesPerS: Type.Integer({ minimum: 0, description: 'Bytes per second one AP may send over NATS (burst: 10 s of it); 0 turns it off.' }),
  apOffenderSeconds: Type.Integer({ minimum: 0, description: 'An AP over its budget this many seconds in a row is disconnected; 0 never.' }),
  wire: Type.Union([Type.Literal('openwifi'), Type.Literal('spec')], {
    description: 'Wire profile of both APIs: openwifi (what the OpenWiFi gateway sends and accepts) or spec (the API documents literally); docs/wire-profiles.md.',
  }),
});

export type ServeConfig = Static<typeof ServeConfigSchema>;

export const SERVE_DEFAULTS: ServeConfig = {
  dataDir: './data',
  gatewayPort: 16002,
  rrmPort: 16789,
  host: '127.0.0.1',
  scenario: 'default',
  sim: true,
  speed: 1,
  keepTime: false,
  natsDurable: 'airtwin-serve',
  apiTokens: [],
  logLevel: 'info',
  bodyLimit: 1024 * 1024,
  autoProvision: true,
  rtty: true,
  apMaxFramesPerS: DEFAULT_FRAME_BUDGET.framesPerS,
  apMaxBytesPerS: DEFAULT_FRAME_BUDGET.bytesPerS,
  apOffenderSeconds: DEFAULT_FRAME_BUDGET.strikes,
  wire: 'openwifi',
};
