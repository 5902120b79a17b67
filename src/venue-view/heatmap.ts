/**
 * Heat maps over one floor, computed by the simulator's own radio world: the path loss, walls,
 * floors and shadowing that give the simulated APs their scans and their clients' rssi give
 * each grid point here its signal. For the radios as they are, or for a proposed plan.
 *
 * Per grid point, in one band:
 * - best RSSI: the strongest managed radio's received power (dBm);
 * - serving channel: that radio's channel (and which AP it is);
 * - SINR: best RSSI over noise (that radio's width) plus every other transmitter of the band,
 *   managed or not, weighted by how much of its spectrum overlaps the serving channel
 *   (world/interference.ts). Every transmitter counts as on air: the worst case, as a planning
 *   tool shows it, since airtime changes from second to second.
 */
import { channelOverlap, type RadioChannel } from '../../simulator/world/interference.js';
import { noiseFloorDbm } from '../../simulator/world/noise.js';
import type { Position } from '../../simulator/world/geometry.js';
import { frequencyTermDb, geometricLossWithFields, type RadioWorld } from '../../simulator/world/radio-world.js';
import { shadowField } from '../../simulator/world/shadowing.js';
import { channelToFrequency, type Band, type ChannelWidth } from '../protocol/wifi-channels.js';

/** One transmitter of the band: a managed AP radio (index into the plan's APs) or a neighbour (-1). */
export interface HeatSource extends RadioChannel {
  ap: number;
  pos: Position;
  /** Shadowing field at the transmitter (venue.apField for APs). */
  field: number;
  txPower: number;
}

export interface HeatMap {
  floor: number;
  band: Band;
  /** Cell size in metres; cell (i, j) is centred at ((i + 0.5) step, (j + 0.5) step). */
  step: number;
  cols: number;
  rows: number;
  /** Row-major (j * cols + i), dBm rounded to 0.1; null where no managed radio reaches -100 dBm. */
  rssi: (number | null)[];
  /** dB rounded to 0.1; null where rssi is. */
  sinr: (number | null)[];
  /** Serving channel; null where rssi is. */
  channel: (number | null)[];
  /** Serving AP (index into the plan's APs); -1 where rssi is null. */
  ap: number[];
}

/** Below this a point counts as not covered (dBm). */
export const COVERAGE_FLOOR_DBM = -100;
/** Radios a point's serving radio is chosen among (the nearest). */
export const NEAREST = 8;
/** Largest grid (cells) a heat map computes: the hall's 200 x 120 m at 2.5 m, a 60 x 30 m office at 1 m. */
export const MAX_CELLS = 5_000;

/** The cell size for a floor: 0.5 m steps, as fine as MAX_CELLS allows. */
export function cellStep(width: number, depth: number, maxCells = MAX_CELLS): number {
  return Math.max(0.5, Math.ceil(Math.sqrt((width * depth) / maxCells) * 2) / 2);
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

export function heatMap(world: RadioWorld, floorIndex: number, band: Band, sources: readonly HeatSource[], maxCells = MAX_CELLS): HeatMap {
  const size = world.geometry.floors[floorIndex];
  if (!size) throw new RangeError(`no floor ${floorIndex}`);
  const step = cellStep(size.width, size.depth, maxCells);
  const cols = Math.max(1, Math.ceil(size.width / step));
  const rows = Math.max(1, Math.ceil(size.depth / step));
  const n = cols * rows;
  const out: HeatMap = { floor: floorIndex, band, step, cols, rows, rssi: new Array(n), sinr: new Array(n), channel: new Array(n), ap: new Array(n) };
  const list = sources.filter((s) => s.band === band);
  const freq = list.map((s) => channelToFrequency(s.band, s.channel) ?? 2400);
  const fTerm = freq.map(frequencyTermDb);
  const L = list.length;
  const g = world.geometry;
  const rx = new Float64Array(L);
  // rx[k] belongs to the cell whose number is in seen[k] (no clearing per cell).
  const seen = new Int32Array(L).fill(-1);
  // Overlap of source k with serving source b, filled on first use (channelOverlap walks channel blocks).
  const overlap = new Float64Array(L * L).fill(Number.NaN);
  const managed = list.map((s, k) => (s.ap >= 0 ? k : -1)).filter((k) => k >= 0);
  const near: number[] = [];
  const nearD: number[] = [];
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      const cell = j * cols + i;
      const p: Position = { floor: floorIndex, x: (i + 0.5) * step, y: (j + 0.5) * step };
      const field = shadowField(world.shadowing, p);
      const at = (k: number): number => {
        if (seen[k] !== cell) {
          const s = list[k]!;
          rx[k] = s.txPower - geometricLossWithFields(world, s.pos, s.field, p, field) - fTerm[k]!;
          seen[k] = cell;
        }
        return rx[k]!;
      };
      // The serving radio is the strongest of the nearest few, as a station picks among its
      // nearest APs (clients/dynamics.ts): walls and shadowing rarely make a farther one win.
      near.length = 0;
      nearD.length = 0;
      for (const k of managed) {
        const s = list[k]!;
        const dz = (s.pos.floor - floorIndex) * g.floorHeightM;
        const d2 = (s.pos.x - p.x) ** 2 + (s.pos.y - p.y) ** 2 + dz * dz;
        if (near.length === NEAREST && d2 >= nearD[NEAREST - 1]!) continue;
        let q = near.length;
        while (q > 0 && nearD[q - 1]! > d2) q--;
        near.splice(q, 0, k);
        nearD.splice(q, 0, d2);
        if (near.length > NEAREST) { near.pop(); nearD.pop(); }
      }
      let best = -1;
      for (const k of near) {
        const r = at(k);
        if (best < 0 || r > rx[best]!) best = k;
      }
      if (best < 0 || rx[best]! < COVERAGE_FLOOR_DBM) {
        out.rssi[cell] = null; out.sinr[cell] = null; out.channel[cell] = null; out.ap[cell] = -1;
        continue;
      }
      const serving = list[best]!;
      let mw = 10 ** (noiseFloorDbm(serving.width) / 10);
      for (let k = 0; k < L; k++) {
        if (k === best) continue;
        let w = overlap[best * L + k]!;
        if (Number.isNaN(w)) overlap[best * L + k] = w = channelOverlap(list[k]!, serving);
        if (w > 0) mw += w * 10 ** (at(k) / 10);
      }
      out.rssi[cell] = round1(rx[best]!);
      out.sinr[cell] = round1(rx[best]! - 10 * Math.log10(mw));
      out.channel[cell] = serving.channel;
      out.ap[cell] = serving.ap;
    }
  }
  return out;
}

/** A proposed plan: serial -> band -> value, as the RRM's answers carry them. */
export interface PlanOverrides {
  channels?: Record<string, Record<string, number>>;
  txPowers?: Record<string, Record<string, number>>;
}

/** The transmitters of a band as a venue's radios are now, with a proposed plan laid over them. */
export function heatSources(
  aps: readonly { serial: string; pos: Position; radios: readonly { band: Band; channel: number; width: ChannelWidth; txPower: number; ssids: readonly string[]; enabled?: boolean }[] }[],
  apField: ArrayLike<number>,
  neighbours: readonly { pos: Position; band: Band; channel: number; width: ChannelWidth; txPower: number }[],
  neighbourField: (p: Position) => number,
  plan: PlanOverrides = {},
): HeatSource[] {
  const out: HeatSource[] = [];
  aps.forEach((a, i) => {
    for (const r of a.radios) {
      if (r.ssids.length === 0 || r.enabled === false) continue; // a radio its configuration left out is off
      const channel = plan.channels?.[a.serial]?.[r.band] ?? r.channel;
      const txPower = plan.txPowers?.[a.serial]?.[r.band] ?? r.txPower;
      out.push({ ap: i, pos: a.pos, field: apField[i]!, band: r.band, channel, width: r.width, txPower });
    }
  });
  for (const n of neighbours) out.push({ ap: -1, pos: n.pos, field: neighbourField(n.pos), band: n.band, channel: n.channel, width: n.width, txPower: n.txPower });
  return out;
}

/** No value in an encoded Int16 cell. */
export const NO_VALUE = -32768;

/**
 * The answer's encoding: each layer as little-endian typed-array bytes in base64 (tenths for
 * dBm and dB). A hall map is ~6,000 cells x 4 layers; as JSON numbers and nulls it took longer
 * to serialise than to compute.
 */
export function encodeHeatMap(m: HeatMap): Omit<HeatMap, 'rssi' | 'sinr' | 'channel' | 'ap'> & { rssi: string; sinr: string; channel: string; ap: string } {
  const n = m.rssi.length;
  const rssi = new Int16Array(n), sinr = new Int16Array(n), channel = new Int16Array(n), ap = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const r = m.rssi[i];
    rssi[i] = r === null || r === undefined ? NO_VALUE : Math.round(r * 10);
    const s = m.sinr[i];
    sinr[i] = s === null || s === undefined ? NO_VALUE : Math.max(-32767, Math.min(32767, Math.round(s * 10)));
    channel[i] = m.channel[i] ?? 0;
    ap[i] = m.ap[i]!;
  }
  // Typed arrays are little-endian on every platform Node runs on (x64, arm64).
  const b64 = (a: Int16Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return { floor: m.floor, band: m.band, step: m.step, cols: m.cols, rows: m.rows, rssi: b64(rssi), sinr: b64(sinr), channel: b64(channel), ap: b64(ap) };
}
