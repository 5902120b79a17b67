/**
 * A venue at run time: the world (geometry, propagation), the managed APs, the unmanaged
 * neighbours and the client stations, built from a validated scenario. Everything random comes
 * from per-component seedrandom streams (`ap/<serial>`, `client/<group>/<i>`), everything timed
 * from the injected clock. The venue drives the stations; each AP's frames come from its SimLink.
 */
import type { Clock } from '../src/protocol/clock.js';
import { channelToFrequency, maxTxPowerDbm, type Band, type ChannelWidth } from '../src/protocol/wifi-channels.js';
import { bssidFor, zeroCounters, type SimAp, type SimRadio } from './ap/ap-state.js';
import { capabilitiesDocument, modelPhys } from './ap/models.js';
import type { SimClient } from './clients/station.js';
import { hash32, rngStream, seedNumber } from './rng.js';
import { DEFAULT_ORIGIN, DEFAULT_WIFISCAN_S, type Scenario } from './scenario.js';
import { venueToGps, type GeoOrigin } from '../src/protocol/geo.js';
import { DEFAULT_WALL_DB, type Geometry, type Position, type Wall } from './world/geometry.js';
import { LossMatrix, type RadioWorld } from './world/radio-world.js';
import { shadowField } from './world/shadowing.js';

export const DEFAULT_FIRMWARE = 'OpenWrt 21.02-SNAPSHOT r16399+120-c67509efd7 / TIP-v2.9.0-36f3e7c';
const DEFAULT_TX: Record<Band, number> = { '2G': 17, '5G': 20, '6G': 12 };
const DEFAULT_WIDTH: Record<Band, ChannelWidth> = { '2G': 20, '5G': 80, '6G': 80 };

export interface SimNeighbour {
  index: number;
  bssid: string;
  ssid: string;
  pos: Position;
  band: Band;
  channel: number;
  width: ChannelWidth;
  txPower: number;
  load: number;
  bootAt: number;
}

export interface Venue {
  name: string;
  seed: number | string;
  start: number;
  country: string;
  /** Where the floor plan's (0, 0) lies: APs report their place from it (state `gps`). */
  origin: GeoOrigin;
  clock: Clock;
  world: RadioWorld;
  /** Geometric losses between fixed transmitters: APs first (by index), then neighbours. */
  losses: LossMatrix;
  aps: SimAp[];
  apBySerial: Map<string, SimAp>;
  neighbours: SimNeighbour[];
  clients: SimClient[];
  scenario: Scenario;
  roamIntervalMs: number;
  crashesPerDay: number;
  /**
   * Bumped whenever any radio's channel, width or tx power changes (radiosChanged()), so caches
   * of who-hears-whom can tell they are stale.
   */
  radioEpoch: number;
  /** The shadowing field at each AP's position (fixed points, computed once). */
  apField: Float64Array;
}

/** Call after changing any radio's channel, width or tx power outside the command handlers. */
export function radiosChanged(v: Venue): void {
  v.radioEpoch++;
}

const addHex = (serial: string, n: number): string => (BigInt(`0x${serial}`) + BigInt(n)).toString(16).padStart(12, '0').slice(-12);
const macOf = (h1: number, h2: number): string => {
  const b = [((h1 >>> 24) & 0xfc) | 0x02, (h1 >>> 16) & 0xff, (h1 >>> 8) & 0xff, h1 & 0xff, (h2 >>> 8) & 0xff, h2 & 0xff];
  return b.map((x) => x.toString(16).padStart(2, '0')).join(':');
};

type ApSpec = NonNullable<Scenario['aps']>[number];
type RadioSpec = ApSpec['radios'][number];
type ApIntervals = SimAp['intervals'];

/** What every AP of a venue shares when it is built. */
interface ApContext {
  scenario: Scenario;
  seed: number | string;
  country: string;
  start: number;
  origin: GeoOrigin;
  floorHeightM: number;
  intervals: ApIntervals;
}

/** Build the venue of a scenario. `seed` overrides the scenario's own seed (CLI `--seed`). */
export function buildVenue(scenario: Scenario, clock: Clock, seed: number | string = scenario.seed): Venue {
  const country = scenario.country ?? 'US';
  const start = clock.now();
  const world = radioWorld(scenario.building, seed);
  const origin = scenario.origin ?? DEFAULT_ORIGIN;
  const ctx: ApContext = {
    scenario, seed, country, start, origin, floorHeightM: world.geometry.floorHeightM,
    intervals: {
      state: scenario.intervals.state * 1000,
      healthcheck: scenario.intervals.healthcheck * 1000,
      log: (scenario.intervals.log ?? 3600) * 1000,
      wifiscan: (scenario.intervals.wifiscan ?? DEFAULT_WIFISCAN_S) * 1000,
    },
  };
  const aps = [...(scenario.aps ?? []), ...gridApSpecs(scenario)].map((spec, index) => buildAp(ctx, spec, index));
  const neighbours = buildNeighbours(scenario, seedNumber(seed), aps.length, start);
  const clients = buildClients(scenario, seed, start);
  const points = [...aps.map((a) => a.pos), ...neighbours.map((n) => n.pos)];
  return {
    name: scenario.name, seed, start, country, origin, clock, world, losses: new LossMatrix(world, points),
    aps, apBySerial: new Map(aps.map((a) => [a.serial, a])), neighbours, clients, scenario,
    roamIntervalMs: (scenario.intervals.roam ?? 30) * 1000, crashesPerDay: scenario.crashesPerDay ?? 0,
    radioEpoch: 0, apField: Float64Array.from(aps, (a) => shadowField(world.shadowing, a.pos)),
  };
}

/** The building's walls, floors and shadowing. */
function radioWorld(b: Scenario['building'], seed: number | string): RadioWorld {
  const walls: Wall[] = [];
  b.floors.forEach((f, floor) => f.walls?.forEach((w) => walls.push({
    floor, x1: w.from[0], y1: w.from[1], x2: w.to[0], y2: w.to[1],
    db: w.db ?? b.wallTypes?.[w.type ?? 'office'] ?? DEFAULT_WALL_DB[w.type ?? 'office'] ?? 7,
  })));
  const geometry: Geometry = { floors: b.floors, walls, floorHeightM: b.floorHeight ?? 3.5, floorLossDb: b.floorLoss ?? 15 };
  return { geometry, shadowing: { seed: seedNumber(seed), sigmaDb: b.shadowing?.sigma ?? 5, decorrelationM: b.shadowing?.decorrelation ?? 10 } };
}

/** The APs of the scenario's grids, evenly spread over each floor, serials counting up. */
function gridApSpecs(scenario: Scenario): ApSpec[] {
  const specs: ApSpec[] = [];
  for (const g of scenario.apGrids ?? []) {
    let n = 0;
    g.floors.forEach((floor, fi) => {
      const f = scenario.building.floors[floor]!;
      const m = g.margin ?? Math.min(f.width, f.depth) / (2 * Math.max(g.rows, g.cols));
      for (let r = 0; r < g.rows; r++) {
        for (let c = 0; c < g.cols; c++) {
          const x = g.cols === 1 ? f.width / 2 : m + ((f.width - 2 * m) * c) / (g.cols - 1);
          const y = g.rows === 1 ? f.depth / 2 : m + ((f.depth - 2 * m) * r) / (g.rows - 1);
          specs.push({
            serial: addHex(g.firstSerial, n++), floor, at: [x, y], ...(g.model ? { model: g.model } : {}),
            // Offsetting rows and floors keeps equal channels apart in every direction.
            radios: g.radios.map((rs) => ({ band: rs.band, channel: rs.channels[(c + 2 * r + 3 * fi) % rs.channels.length]!, ...(rs.width ? { width: rs.width } : {}), ...(rs.txPower !== undefined ? { txPower: rs.txPower } : {}) })),
          });
        }
      }
    });
  }
  return specs;
}

function buildAp(ctx: ApContext, spec: ApSpec, index: number): SimAp {
  const { serial } = spec;
  const model = spec.model ?? 'edgecore_eap101';
  const rng = rngStream(ctx.seed, `ap/${serial}`);
  const phys = modelPhys(model, ctx.country);
  const used = new Set<string>();
  const radios = spec.radios.map((rs, ri) => buildRadio(ctx, serial, model, phys, used, rs, ri));
  const uptimeMs = Math.round(rng.uniform(1, 30) * 86_400_000);
  // Periodic scans name each BSS's width (HT/VHT operation) so a model built from them knows it.
  const scanReport = { verbose: true, ies: false };
  const { intervals, start } = ctx;
  return {
    serial, index, model, country: ctx.country, capabilities: capabilitiesDocument(model, ctx.country, serial),
    firmware: spec.firmware ?? DEFAULT_FIRMWARE,
    uuid: Math.floor(start / 1000) - rng.int(3600, 30 * 86400),
    pos: { floor: spec.floor, x: spec.at[0], y: spec.at[1] }, gps: venueToGps(ctx.origin, spec.at[0], spec.at[1], spec.floor * ctx.floorHeightM), radios, rng, up: true, bootAt: start - uptimeMs,
    intervals: { ...intervals }, scanReport: { ...scanReport }, counters: zeroCounters(), prevCounters: zeroCounters(), prevSsidCounters: new Map(),
    memoryTotal: 973131776, recentEvents: [],
    factory: { radios: radios.map((r) => ({ enabled: true, channel: r.channel, width: r.width, txPower: r.txPower })), intervals: { ...intervals }, scanReport: { ...scanReport }, uuid: 1 },
  };
}

/** Radio `ri` of an AP, on the first phy of its model not yet `used` that has the channel. */
function buildRadio(
  ctx: ApContext, serial: string, model: string, phys: ReturnType<typeof modelPhys>, used: Set<string>, rs: RadioSpec, ri: number,
): SimRadio {
  const phy = phys.find((p) => p.band === rs.band && !used.has(p.path) && p.channels.includes(rs.channel));
  if (!phy) throw new RangeError(`AP ${serial} (${model}) has no free ${rs.band} phy for channel ${rs.channel}`);
  used.add(phy.path);
  const ssids = ctx.scenario.ssids.filter((s) => s.bands.includes(rs.band)).map((s) => s.name);
  const width = Math.min(rs.width ?? DEFAULT_WIDTH[rs.band], phy.maxWidth) as ChannelWidth;
  const txPower = Math.min(rs.txPower ?? DEFAULT_TX[rs.band], maxTxPowerDbm(ctx.country, rs.band, rs.channel) ?? 20);
  return {
    index: ri, band: rs.band, phy: phy.path, hwChannels: phy.channels, maxWidth: phy.maxWidth, antennas: phy.antennas,
    enabled: true, channel: rs.channel, width, txPower, ssids, bssids: ssids.map((_, si) => bssidFor(serial, ri, si)),
    counters: ssids.map(() => zeroCounters()),
    survey: { activeMs: 0, busyMs: 0, rxMs: 0, txMs: 0 }, lastSurveyAt: ctx.start,
    prevSurvey: { activeMs: 0, busyMs: 0, rxMs: 0, txMs: 0 }, airtime: 0, stations: [],
  };
}

/** The unmanaged neighbours, indexed after the APs (their place in the loss matrix). */
function buildNeighbours(scenario: Scenario, sn: number, firstIndex: number, start: number): SimNeighbour[] {
  return (scenario.neighbours ?? []).map((n, i) => ({
    index: firstIndex + i,
    bssid: n.bssid ?? macOf(hash32(sn, 7, i), hash32(sn, 8, i)),
    ssid: n.ssid, pos: { floor: n.floor, x: n.at[0], y: n.at[1] }, band: n.band, channel: n.channel,
    width: n.width ?? 20, txPower: n.txPower ?? DEFAULT_TX[n.band], load: n.load ?? 0.1,
    bootAt: start - (hash32(sn, 9, i) % 2_000_000) * 1000,
  }));
}

function buildClients(scenario: Scenario, seed: number | string, start: number): SimClient[] {
  const sn = seedNumber(seed);
  const b = scenario.building;
  const clients: SimClient[] = [];
  (scenario.clients ?? []).forEach((g, gi) => {
    for (let i = 0; i < g.count; i++) {
      const rng = rngStream(seed, `client/${gi}/${i}`);
      const floors = g.floors ?? b.floors.map((_, k) => k);
      const floor = rng.pick(floors);
      const f = b.floors[floor]!;
      const pos = { floor, x: rng.uniform(0, f.width), y: rng.uniform(0, f.depth) };
      const id = clients.length;
      clients.push({
        id, mac: macOf(hash32(sn, 1, gi, i), hash32(sn, 2, gi, i)), ipv4: `10.${20 + Math.floor(id / 61440)}.${Math.floor(id / 240) % 256}.${10 + (id % 240)}`,
        rng, dualBand: rng.chance(g.dualBand ?? 0.8), nss: rng.chance(0.6) ? 2 : 1,
        trafficKbps: rng.exp(g.trafficKbps ?? 300), txPowerDbm: 15,
        mobile: rng.chance(g.mobile ?? 0.1), speed: g.speed ?? 1, floors,
        sessionMs: (g.sessionMinutes ?? 180) * 60_000, awayMs: (g.awayMinutes ?? 45) * 60_000,
        from: pos, to: pos, legStart: start, present: false, ssidIndex: 0, assocAt: start, lastTrafficAt: start,
        c: { rxBytes: 0, txBytes: 0, rxPackets: 0, txPackets: 0, retries: 0, failed: 0, rxDurUs: 0, txDurUs: 0 },
      });
    }
  });
  return clients;
}

/** Primary frequency of a radio (MHz). */
export function radioFrequency(r: { band: Band; channel: number }): number {
  return channelToFrequency(r.band, r.channel)!;
}
