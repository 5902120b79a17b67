/** Response and request schemas of the venue view's data routes (they also serialise the answers). */
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const RadioSummary = Type.Object({
  band: Type.String(), channel: Type.Number(), width: Type.Number(), txPower: Type.Number(),
  chanUtil: Nullable(Type.Number()), clients: Type.Integer(),
});

export const ApView = Type.Object({
  serial: Type.String(),
  model: Type.String(),
  connected: Type.Boolean(),
  state: Type.String({ description: 'The device actor state, e.g. online.idle, rebooting.' }),
  lastContact: Type.Integer({ description: 'Epoch seconds of the last frame (0: never).' }),
  lastStateAt: Type.Integer({ description: 'Epoch ms of the last state document this process got (0: none yet).' }),
  radios: Type.Array(RadioSummary),
  bssids: Type.Array(Type.String()),
});

const Wall = Type.Object({ x1: Type.Number(), y1: Type.Number(), x2: Type.Number(), y2: Type.Number(), db: Type.Number() });
export const FloorPlan = Type.Object({
  name: Type.String(),
  floors: Type.Array(Type.Object({ width: Type.Number(), depth: Type.Number(), walls: Type.Array(Wall) })),
  aps: Type.Array(Type.Object({ serial: Type.String(), floor: Type.Integer(), x: Type.Number(), y: Type.Number() })),
  neighbours: Type.Array(Type.Object({
    bssid: Type.String(), ssid: Type.String(), floor: Type.Integer(), x: Type.Number(), y: Type.Number(),
    band: Type.String(), channel: Type.Number(), width: Type.Number(), txPower: Type.Number(),
  })),
});

export const VenueSnapshot = Type.Object({
  name: Type.String(),
  mode: Type.Union([Type.Literal('floorplan'), Type.Literal('topology')], { description: 'floorplan: positions known (simulated venue); topology: laid out from scans.' }),
  now: Type.Number({ description: 'The twin\'s time, epoch ms.' }),
  plan: Type.Optional(FloorPlan),
  aps: Type.Array(ApView),
  rrm: Type.Object({ port: Nullable(Type.Integer()), tls: Type.Boolean() }, { description: 'Where the RRM service listens (the page sends its runs there).' }),
});

const Overrides = Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()));
export const HeatMapBody = Type.Object({
  floor: Type.Integer({ minimum: 0 }),
  band: Type.Union([Type.Literal('2G'), Type.Literal('5G'), Type.Literal('6G')]),
  plan: Type.Optional(Type.Object({
    channels: Type.Optional(Overrides), txPowers: Type.Optional(Overrides),
  }, { additionalProperties: false, description: 'A proposed plan (serial -> band -> value) laid over the radios as they are.' })),
}, { additionalProperties: false });

const Cells = (what: string) => Type.String({ contentEncoding: 'base64', description: `${what}, row-major (row * cols + column), little-endian.` });
export const HeatMapAnswer = Type.Object({
  floor: Type.Integer(), band: Type.String(), step: Type.Number({ description: 'Cell size (m); cell (i, j) is centred at ((i + 0.5) step, (j + 0.5) step).' }),
  cols: Type.Integer(), rows: Type.Integer(),
  rssi: Cells('Int16 best RSSI in tenths of a dBm; -32768 where no managed radio reaches -100 dBm'),
  sinr: Cells('Int16 SINR in tenths of a dB; -32768 where rssi is'),
  channel: Cells('Int16 serving channel; 0 where rssi is'),
  ap: Cells('Int32 serving AP, an index into the floor plan\'s aps; -1 where rssi is'),
  computeMs: Type.Number({ description: 'Time the server spent on the grid.' }),
});

export const TopologyAnswer = Type.Object({
  edges: Type.Array(Type.Object({ a: Type.String(), b: Type.String(), signal: Type.Number() })),
  unmanaged: Type.Array(Type.Object({
    bssid: Type.String(), ssid: Type.String(), channel: Type.Number(),
    heardBy: Type.Array(Type.Object({ serial: Type.String(), signal: Type.Number() })),
  })),
  scannedAt: Type.Record(Type.String(), Type.Integer()),
});

export const ChartsQuery = Type.Object({
  zone: Type.Optional(Type.String({ description: 'An RRM zone; absent: every AP.' })),
  serial: Type.Optional(Type.String({ description: 'One AP instead of the zone.' })),
  band: Type.Optional(Type.Union([Type.Literal('2G'), Type.Literal('5G'), Type.Literal('6G')], { default: '5G' })),
  from: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch seconds; default: an hour before `to`.' })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch seconds; default: now (the twin\'s time).' })),
});

const Point = Type.Object({ t: Type.Integer(), mean: Type.Number(), max: Type.Number() });
export const ChartsAnswer = Type.Object({
  from: Type.Integer(), to: Type.Integer(), bucket: Type.Integer(),
  chanUtil: Type.Array(Point), clients: Type.Array(Point),
  runs: Type.Array(Type.Object({ t: Type.Integer(), zone: Type.String(), algorithm: Type.String(), mode: Type.String(), dryRun: Type.Boolean() })),
  score: Type.Optional(Type.Array(Type.Object({
    t: Type.Integer({ description: 'Epoch seconds: the run\'s time (before, after) or the measurement\'s (measured).' }),
    kind: Type.Union([Type.Literal('before'), Type.Literal('after'), Type.Literal('measured')], { description: 'before / after: the run\'s predicted score; measured: the zone scored from the scans after an applied run.' }),
    cci_mw: Type.Number({ description: 'The zone\'s co-channel interference, mW (docs/rrm.md).' }),
    run: Type.String(), mode: Type.String(), applied: Type.Boolean(),
  }), { description: 'With `zone` only: the zone\'s CCI per RRM run in the range, oldest first.' })),
});
