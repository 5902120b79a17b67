/**
 * Venue (scenario) files: JSON or YAML, checked against a TypeBox schema, then against the
 * radio rules (channels of the band and country, positions inside the floor, unique serials).
 * Every error names the file, the line and the field: "venue.yaml:12: field /aps/3/radios/0/channel: ...".
 * The `yaml` package parses JSON too (JSON is YAML 1.2), so one path gives line numbers for both.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from 'typebox';
import { LineCounter, parseDocument, isNode, type Node } from 'yaml';
import { parserFor } from '../src/protocol/schema-parse.js';
import { blockOf, channelsFor, type Band } from '../src/protocol/wifi-channels.js';
import { isKnownModel, MODEL_NAMES } from './ap/models.js';
import { DEFAULT_WALL_DB } from './world/geometry.js';

const BandT = Type.Union([Type.Literal('2G'), Type.Literal('5G'), Type.Literal('6G')]);
const WidthT = Type.Union([Type.Literal(20), Type.Literal(40), Type.Literal(80), Type.Literal(160)]);
const Point = Type.Tuple([Type.Number({ minimum: 0 }), Type.Number({ minimum: 0 })]);
const Serial = Type.String({ pattern: '^[0-9a-f]{12}$' });
const Mac = Type.String({ pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' });

const RadioSpec = Type.Object({
  band: BandT,
  channel: Type.Integer({ minimum: 1, maximum: 233 }),
  width: Type.Optional(WidthT),
  txPower: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 })),
}, { additionalProperties: false });

const ApSpec = Type.Object({
  serial: Serial,
  model: Type.Optional(Type.String()),
  floor: Type.Integer({ minimum: 0 }),
  at: Point,
  firmware: Type.Optional(Type.String()),
  radios: Type.Array(RadioSpec, { minItems: 1 }),
}, { additionalProperties: false });

/** Many APs on a regular grid: channels cycle through the lists, serials count up from `firstSerial`. */
const ApGridSpec = Type.Object({
  floors: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 }),
  rows: Type.Integer({ minimum: 1 }),
  cols: Type.Integer({ minimum: 1 }),
  firstSerial: Serial,
  model: Type.Optional(Type.String()),
  margin: Type.Optional(Type.Number({ minimum: 0 })),
  radios: Type.Array(Type.Object({
    band: BandT,
    channels: Type.Array(Type.Integer({ minimum: 1, maximum: 233 }), { minItems: 1 }),
    width: Type.Optional(WidthT),
    txPower: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 })),
  }, { additionalProperties: false }), { minItems: 1 }),
}, { additionalProperties: false });

const NeighbourSpec = Type.Object({
  ssid: Type.String(),
  bssid: Type.Optional(Mac),
  floor: Type.Integer({ minimum: 0 }),
  at: Point,
  band: BandT,
  channel: Type.Integer({ minimum: 1, maximum: 233 }),
  width: Type.Optional(WidthT),
  txPower: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 })),
  /** Share of airtime the neighbour keeps busy, 0..1. */
  load: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
}, { additionalProperties: false });

const ClientGroupSpec = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  floors: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 })),
  /** Share of stations that walk around (random waypoint), 0..1. */
  mobile: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  speed: Type.Optional(Type.Number({ minimum: 0.1, maximum: 5 })),
  /** Share of stations that also have 5/6 GHz, 0..1. */
  dualBand: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  trafficKbps: Type.Optional(Type.Number({ minimum: 0 })),
  sessionMinutes: Type.Optional(Type.Number({ minimum: 1 })),
  awayMinutes: Type.Optional(Type.Number({ minimum: 1 })),
}, { additionalProperties: false });

const WallSpec = Type.Object({
  from: Point,
  to: Point,
  type: Type.Optional(Type.String()),
  db: Type.Optional(Type.Number({ minimum: 0, maximum: 60 })),
}, { additionalProperties: false });

export const ScenarioSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  seed: Type.Integer(),
  /** ISO-8601 start of the simulated time, e.g. 2026-01-05T08:00:00Z. */
  start: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  /**
   * Seconds of history `serve` gives the venue by default (its --warm-up): it starts that far in
   * the past and runs faster until it reaches the wall clock. Absent: 0. `simulate` ignores it.
   */
  warmUp: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Where the floor plan's (0, 0) corner lies on the earth; APs report positions from it (state `gps`). */
  origin: Type.Optional(Type.Object({
    latitude: Type.Number({ minimum: -89, maximum: 89 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    elevation: Type.Optional(Type.Number({ minimum: -500, maximum: 9000 })),
  }, { additionalProperties: false })),
  intervals: Type.Object({
    state: Type.Integer({ minimum: 1 }),
    healthcheck: Type.Integer({ minimum: 1 }),
    log: Type.Optional(Type.Integer({ minimum: 0 })),
    wifiscan: Type.Optional(Type.Integer({ minimum: 0 })),
    roam: Type.Optional(Type.Integer({ minimum: 1 })),
  }, { additionalProperties: false }),
  building: Type.Object({
    floorHeight: Type.Optional(Type.Number({ minimum: 2 })),
    floorLoss: Type.Optional(Type.Number({ minimum: 0 })),
    shadowing: Type.Optional(Type.Object({ sigma: Type.Number({ minimum: 0, maximum: 12 }), decorrelation: Type.Number({ minimum: 1 }) })),
    wallTypes: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 60 }))),
    floors: Type.Array(Type.Object({
      width: Type.Number({ exclusiveMinimum: 0 }),
      depth: Type.Number({ exclusiveMinimum: 0 }),
      walls: Type.Optional(Type.Array(WallSpec)),
    }, { additionalProperties: false }), { minItems: 1 }),
  }, { additionalProperties: false }),
  ssids: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 32 }), bands: Type.Array(BandT, { minItems: 1 }) }), { minItems: 1, maxItems: 8 }),
  aps: Type.Optional(Type.Array(ApSpec)),
  apGrids: Type.Optional(Type.Array(ApGridSpec)),
  neighbours: Type.Optional(Type.Array(NeighbourSpec)),
  clients: Type.Optional(Type.Array(ClientGroupSpec)),
  /** Chance per AP per day of a firmware crash (reboot, then a crashlog). */
  crashesPerDay: Type.Optional(Type.Number({ minimum: 0, maximum: 24 })),
}, { additionalProperties: false });
export type Scenario = Static<typeof ScenarioSchema>;

const checkSchema = parserFor(ScenarioSchema);

export class ScenarioError extends Error {
  readonly code = 'SCENARIO_INVALID';
  constructor(readonly file: string, readonly problems: string[]) {
    super(`${file}: invalid scenario\n  ${problems.join('\n  ')}`);
  }
}

/** Parse and validate scenario text. Throws a ScenarioError listing every problem. */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ScenarioError(file, doc.errors.map((e) => `${file}:${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`));
  }
  const value: unknown = doc.toJS();
  const lineOf = (path: string): number => {
    const parts = path.split('/').filter((p) => p !== '').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    for (let n = parts.length; n >= 0; n--) {
      const node: unknown = n === 0 ? doc.contents : doc.getIn(parts.slice(0, n), true);
      if (isNode(node) && (node as Node).range) return lineCounter.linePos((node as Node).range![0]).line;
    }
    return 1;
  };
  const schema = checkSchema(value);
  if (!schema.ok) {
    throw new ScenarioError(file, schema.errors.map((e) => `${file}:${lineOf(e.slice(6, e.indexOf(':', 6)))}: ${e}`));
  }
  const problems = semanticProblems(schema.value).map((p) => `${file}:${lineOf(p.path)}: field ${p.path}: ${p.why}`);
  if (problems.length > 0) throw new ScenarioError(file, problems);
  return schema.value;
}

interface Problem { path: string; why: string }

function semanticProblems(s: Scenario): Problem[] {
  const out: Problem[] = [];
  const country = s.country ?? 'US';
  const floors = s.building.floors;
  const inFloor = (path: string, floor: number, at: readonly number[]): void => {
    const f = floors[floor];
    if (!f) out.push({ path: `${path}/floor`, why: `floor ${floor} does not exist (venue has ${floors.length})` });
    else if (at[0]! > f.width || at[1]! > f.depth) out.push({ path: `${path}/at`, why: `(${at.join(', ')}) lies outside the ${f.width} x ${f.depth} m floor` });
  };
  const radioOk = (chPath: string, widthPath: string, band: Band, channel: number, width: number | undefined): void => {
    if (!channelsFor(country, band).includes(channel)) out.push({ path: chPath, why: `channel ${channel} is not allowed on ${band} in ${country}` });
    else if (!blockOf(band, channel, (width ?? 20) as 20)) out.push({ path: widthPath, why: `channel ${channel} cannot carry ${width} MHz` });
  };
  const model = (path: string, m: string | undefined): void => {
    if (m !== undefined && !isKnownModel(m)) out.push({ path: `${path}/model`, why: `unknown model '${m}' (known: ${MODEL_NAMES.join(', ')})` });
  };
  const serials = new Set<string>();
  s.aps?.forEach((ap, i) => {
    const p = `/aps/${i}`;
    if (serials.has(ap.serial)) out.push({ path: `${p}/serial`, why: `serial ${ap.serial} is used twice` });
    serials.add(ap.serial);
    inFloor(p, ap.floor, ap.at);
    model(p, ap.model);
    ap.radios.forEach((r, j) => radioOk(`${p}/radios/${j}/channel`, `${p}/radios/${j}/width`, r.band, r.channel, r.width));
  });
  s.apGrids?.forEach((g, i) => {
    const p = `/apGrids/${i}`;
    model(p, g.model);
    g.floors.forEach((f, j) => { if (!floors[f]) out.push({ path: `${p}/floors/${j}`, why: `floor ${f} does not exist` }); });
    g.radios.forEach((r, j) => r.channels.forEach((c, k) => radioOk(`${p}/radios/${j}/channels/${k}`, `${p}/radios/${j}/width`, r.band, c, r.width)));
  });
  s.neighbours?.forEach((n, i) => {
    inFloor(`/neighbours/${i}`, n.floor, n.at);
    radioOk(`/neighbours/${i}/channel`, `/neighbours/${i}/width`, n.band, n.channel, n.width);
  });
  s.clients?.forEach((c, i) => c.floors?.forEach((f, j) => { if (!floors[f]) out.push({ path: `/clients/${i}/floors/${j}`, why: `floor ${f} does not exist` }); }));
  s.building.floors.forEach((f, i) => f.walls?.forEach((w, j) => {
    if (w.type !== undefined && w.db === undefined && !(w.type in (s.building.wallTypes ?? {})) && !(w.type in DEFAULT_WALL_DB)) {
      out.push({ path: `/building/floors/${i}/walls/${j}/type`, why: `unknown wall type '${w.type}'; give db or define it in building.wallTypes` });
    }
  }));
  return out;
}

/** Where the shipped venues live (`scenarios/` at the repository root). */
export const SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));

/** The names of the venues in `dir` (its .yaml, .yml and .json files), sorted. */
export function scenarioNames(dir = SCENARIOS_DIR): string[] {
  try {
    return [...new Set(readdirSync(dir).filter((f) => /\.(ya?ml|json)$/i.test(f)).map((f) => f.replace(/\.(ya?ml|json)$/i, '')))].sort();
  } catch {
    return [];
  }
}

/**
 * A scenario by name (`default`, `hall`, ... in `dir`) or by file path (anything with a `/` or
 * an extension). Reads the file; throws ScenarioError on bad content, or an Error naming the
 * file when it cannot be read.
 */
export function loadScenario(nameOrFile: string, dir = SCENARIOS_DIR): { scenario: Scenario; file: string } {
  const looksLikeFile = /[\\/]/.test(nameOrFile) || /\.(ya?ml|json)$/i.test(nameOrFile);
  const candidates = looksLikeFile ? [nameOrFile] : ['.yaml', '.yml', '.json'].map((ext) => join(dir, `${nameOrFile}${ext}`));
  const file = candidates.find((f) => existsSync(f));
  if (!file) {
    const where = looksLikeFile ? `no file ${nameOrFile}` : `the scenarios are ${scenarioNames(dir).join(', ') || 'none'} (in ${dir})`;
    throw new Error(`scenario '${nameOrFile}' not found: ${where}; or give the path of a venue file`);
  }
  return { scenario: parseScenario(readFileSync(file, 'utf8'), file), file };
}

/** Seconds between an AP's unsolicited wifi scans when the scenario does not say (0 turns them off). */
export const DEFAULT_WIFISCAN_S = 300;

/** The origin of a scenario that names none (x east, y north of it; protocol/geo.ts). */
export const DEFAULT_ORIGIN = { latitude: 37.3875, longitude: -122.0575, elevation: 30 } as const;

/** Epoch ms at which the scenario's simulated time starts. */
export function scenarioStart(s: Scenario): number {
  return Date.parse(s.start ?? '2026-01-05T08:00:00Z');
}
