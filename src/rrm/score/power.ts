/**
 * The figures of a power plan (docs/rrm.md#the-objective), pure functions of the model:
 * - coverage: share of associated clients whose downlink RSSI is at least -67 dBm;
 * - grid coverage: share of grid points over the venue's floors (per band) that a managed radio
 *   reaches at -67 dBm or more, where the site and the APs' positions are known (site.ts);
 * - median SINR at the clients;
 * - CCI with the powers applied: over ordered pairs (a, b) of managed radios whose spectrum
 *   overlaps (bonded blocks sharing a 20 MHz channel; on 2.4 GHz, channels less than 5 apart),
 *   the power in mW at which a hears b in its latest scan, moved dB for dB by b's power change,
 *   counted above -82 dBm; plus every unmanaged BSSID a hears above -82 dBm on overlapping spectrum.
 *
 * What the model does not say is estimated, and the estimates are the same for every plan:
 * - a client's downlink is its reported (uplink) rssi plus the AP's power minus the client's,
 *   taken as CLIENT_TX_DBM (what phones and laptops send; the simulated stations' power);
 * - the interference a client hears is what its AP hears on its channel (the scan), since a
 *   client's own surroundings are not reported; noise is thermal noise of the width plus a 6 dB
 *   noise figure;
 * - a radio heard by nobody now is assumed to stay unheard when it is raised.
 * A `PowerScene` is built once per model and scores any number of plans; the TPC optimizer
 * (algorithms/coverage-tpc.ts) walks its arrays incrementally.
 */
import { blockOf, channelToFrequency, type Band } from '../../protocol/wifi-channels.js';
import type { Plan } from '../algorithms/common.js';
import { powerLimit } from '../algorithms/common.js';
import type { RrmModel } from '../model/types.js';
import { zoneView, type ApView } from '../model/view.js';
import { apPosition, type Site, type SitePoint } from '../site.js';

export const COVERAGE_DBM = -67;
export const CCI_FLOOR_DBM = -82;
export const CLIENT_TX_DBM = 15;
const NOISE_FIGURE_DB = 6;
/** Grid cells over the whole venue (all floors): the hall at ~3.5 m, an office floor at ~1 m. */
export const GRID_MAX_CELLS = 2_000;

export interface PowerScore {
  /** Share (0..1) of associated clients with downlink RSSI >= -67 dBm; null without clients. */
  coverage: number | null;
  clients: number;
  /** Share (0..1) of (grid point, band) pairs covered at >= -67 dBm; null without site or positions. */
  gridCoverage: number | null;
  /** Median SINR (dB) at the clients; null without clients. */
  medianSinr: number | null;
  /** CCI (mW) with the powers applied. */
  cci: number;
  /** Ordered managed pairs heard above -82 dBm. */
  conflicts: number;
  /** The CCI (mW) of the radio that hears the most. */
  worstCci: number;
}

/** One plan entry: an AP's power in a band (every radio of that AP and band takes it). */
export interface PowerSlot { serial: string; band: Band; ap: number; radios: number[]; current: number; limit: number }

export interface SceneRadio { ap: number; slot: number; band: Band; channel: number; txPower: number }

export interface PowerSceneOptions {
  /** The venue (walls, floors, origin): enables grid coverage. */
  site?: Site;
  /** RRM `location` per serial, which wins over the state's gps. */
  location?: (serial: string) => readonly number[] | null | undefined;
  maxCells?: number;
}

const mw = (dbm: number): number => 10 ** (dbm / 10);
const noiseMw = (widthMhz: number): number => mw(-174 + 10 * Math.log10(widthMhz * 1e6) + NOISE_FIGURE_DB);

function overlaps(band: Band, a: { channel: number; covered: readonly number[] }, b: { channel: number; covered: readonly number[] }): boolean {
  if (band === '2G') return Math.abs(a.channel - b.channel) < 5;
  return a.covered.some((c) => b.covered.includes(c));
}

export class PowerScene {
  readonly aps: readonly ApView[];
  readonly slots: PowerSlot[] = [];
  readonly radios: SceneRadio[] = [];
  /** Per radio: the managed radios that hear it (index) and at what signal (dBm) now. */
  readonly heardBy: { hearer: number; signal: number }[][] = [];
  /** Per radio: mW of unmanaged BSSIDs it hears above -82 dBm, and of all it hears (for SINR). */
  readonly unmanagedCci: number[] = [];
  readonly unmanagedAll: number[] = [];
  readonly noise: number[] = [];
  /** Per radio: its clients' downlink RSSI (dBm) at its current power. */
  readonly clients: number[][] = [];
  /**
   * Grid: per radio, the cells (band-major index) it can cover at its limit and the loss to
   * each, by ascending loss. A cell is covered at power p when loss <= p - COVERAGE_DBM.
   */
  readonly gridCells: Int32Array[] = [];
  readonly gridLoss: Float64Array[] = [];
  /** Number of (cell, band) pairs; 0 without a grid. */
  readonly gridSize: number = 0;
  /** The grid's cells (one floor plan point each) and bands: cell index = band * cells + point. */
  readonly gridPoints: SitePoint[] = [];
  readonly gridBands: Band[] = [];
  /** Each AP's position on the site (undefined: unknown). */
  readonly positions: (SitePoint | undefined)[] = [];

  constructor(model: RrmModel, serials: readonly string[], opts: PowerSceneOptions = {}) {
    const view = zoneView(model, serials);
    this.aps = view.aps;
    const radioOfBssid = new Map<string, number>();
    const slotKey = new Map<string, number>();
    const covered: number[][] = [];
    view.aps.forEach((ap, a) => {
      for (const r of ap.radios) {
        if (r.txPower === undefined) continue;
        const key = `${a}/${r.band}`;
        let slot = slotKey.get(key);
        if (slot === undefined) {
          slot = this.slots.length;
          slotKey.set(key, slot);
          this.slots.push({ serial: ap.serial, band: r.band, ap: a, radios: [], current: r.txPower, limit: powerLimit(ap, r.band) });
        }
        const k = this.radios.length;
        this.slots[slot]!.radios.push(k);
        this.slots[slot]!.current = Math.max(this.slots[slot]!.current, r.txPower);
        this.radios.push({ ap: a, slot, band: r.band, channel: r.channel, txPower: r.txPower });
        covered.push([...(blockOf(r.band, r.channel, r.width)?.channels ?? [r.channel])]);
        for (const b of r.bssids) radioOfBssid.set(b, k);
        this.heardBy.push([]);
        this.unmanagedCci.push(0);
        this.unmanagedAll.push(0);
        this.noise.push(noiseMw(r.width));
        this.clients.push(r.clientRssis.map((rssi) => rssi + r.txPower! - CLIENT_TX_DBM));
        this.gridCells.push(new Int32Array(0));
        this.gridLoss.push(new Float64Array(0));
      }
    });
    // Hearing: for each hearing radio, the strongest entry of each transmitting radio.
    this.radios.forEach((h, k) => {
      const ap = view.aps[h.ap]!;
      const me = { channel: h.channel, covered: covered[k]! };
      const strongest = new Map<number, number>();
      for (const n of ap.byBand[h.band] ?? []) {
        if (n.peer === h.ap || !overlaps(h.band, me, n)) continue;
        const tx = n.peer >= 0 ? radioOfBssid.get(n.bssid) : undefined;
        if (tx === undefined) {
          this.unmanagedAll[k]! += mw(n.signal);
          if (n.signal > CCI_FLOOR_DBM) this.unmanagedCci[k]! += mw(n.signal);
        } else if (this.radios[tx]!.band === h.band) {
          strongest.set(tx, Math.max(strongest.get(tx) ?? -Infinity, n.signal));
        }
      }
      for (const [tx, signal] of strongest) this.heardBy[tx]!.push({ hearer: k, signal });
    });
    if (opts.site) {
      this.gridSize = this.buildGrid(opts.site, model, opts);
      this.addUnheard(opts.site, covered);
    }
  }

  /**
   * With the site known, pairs of placed radios on overlapping spectrum that no scan reports get
   * the signal the venue's path loss predicts: raising a radio nobody hears now is then not
   * free, once the raise would put it above -82 dBm at a neighbour.
   */
  private addUnheard(site: Site, covered: number[][]): void {
    const heard = new Set<number>();
    const n = this.radios.length;
    this.heardBy.forEach((list, tx) => { for (const e of list) heard.add(tx * n + e.hearer); });
    for (let tx = 0; tx < n; tx++) {
      const a = this.radios[tx]!;
      const pa = this.positions[a.ap];
      if (!pa) continue;
      const f = channelToFrequency(a.band, a.channel) ?? 2400;
      for (let h = 0; h < n; h++) {
        const b = this.radios[h]!;
        const pb = this.positions[b.ap];
        if (!pb || b.ap === a.ap || b.band !== a.band || heard.has(tx * n + h)) continue;
        if (!overlaps(a.band, { channel: a.channel, covered: covered[tx]! }, { channel: b.channel, covered: covered[h]! })) continue;
        this.heardBy[tx]!.push({ hearer: h, signal: a.txPower - site.lossDb(pa, pb, f) });
      }
    }
  }

  private buildGrid(site: Site, model: RrmModel, opts: PowerSceneOptions): number {
    const area = site.floors.reduce((s, f) => s + f.width * f.depth, 0);
    const step = Math.max(0.5, Math.sqrt(area / (opts.maxCells ?? GRID_MAX_CELLS)));
    const cells: SitePoint[] = [];
    site.floors.forEach((f, floor) => {
      for (let y = step / 2; y < f.depth; y += step) for (let x = step / 2; x < f.width; x += step) cells.push({ floor, x, y });
    });
    const positions = this.aps.map((ap) => apPosition(site, model, ap.serial, opts.location?.(ap.serial)));
    this.positions.push(...positions);
    const bands = [...new Set(this.radios.filter((r) => positions[r.ap]).map((r) => r.band))].sort();
    this.gridPoints.push(...cells);
    this.gridBands.push(...bands);
    if (bands.length === 0 || cells.length === 0) return 0;
    this.radios.forEach((r, k) => {
      const pos = positions[r.ap];
      const b = bands.indexOf(r.band);
      const idx: number[] = [];
      const loss: number[] = [];
      if (pos && b >= 0) {
        const f = channelToFrequency(r.band, r.channel) ?? 2400;
        // A cell the radio cannot cover even at its limit never matters.
        const maxLoss = this.slots[r.slot]!.limit - COVERAGE_DBM;
        cells.forEach((c, i) => {
          const l = site.lossDb(pos, c, f);
          if (l <= maxLoss) { idx.push(b * cells.length + i); loss.push(l); }
        });
      }
      // Ascending loss: the cells a power change affects are then one contiguous run.
      const order = loss.map((_, i) => i).sort((x, y) => loss[x]! - loss[y]! || idx[x]! - idx[y]!);
      this.gridCells[k] = Int32Array.from(order, (i) => idx[i]!);
      this.gridLoss[k] = Float64Array.from(order, (i) => loss[i]!);
    });
    return bands.length * cells.length;
  }

  /** Per slot, the plan's power for it, else its current power. */
  powersOf(plan: Plan): number[] {
    return this.slots.map((s) => plan[s.serial]?.[s.band] ?? s.current);
  }

  /** A plan holding the given power of every slot. */
  planOf(powers: readonly number[]): Plan {
    const plan: Plan = {};
    this.slots.forEach((s, i) => { (plan[s.serial] ??= {})[s.band] = powers[i]!; });
    return plan;
  }

  /** The radio's power change (dB) under `powers` (per slot). */
  delta(powers: readonly number[], k: number): number {
    const r = this.radios[k]!;
    return powers[r.slot]! - r.txPower;
  }

  score(powers: readonly number[]): PowerScore {
    const n = this.radios.length;
    const cciAt = this.unmanagedCci.slice();
    const interference = this.unmanagedAll.slice();
    let conflicts = 0;
    for (let tx = 0; tx < n; tx++) {
      const d = this.delta(powers, tx);
      for (const e of this.heardBy[tx]!) {
        const s = e.signal + d;
        const v = mw(s);
        interference[e.hearer]! += v;
        if (s > CCI_FLOOR_DBM) { cciAt[e.hearer]! += v; conflicts++; }
      }
    }
    let covered = 0;
    const sinrs: number[] = [];
    for (let k = 0; k < n; k++) {
      const d = this.delta(powers, k);
      const noise = 10 * Math.log10(this.noise[k]! + interference[k]!);
      for (const dl of this.clients[k]!) {
        if (dl + d >= COVERAGE_DBM) covered++;
        sinrs.push(dl + d - noise);
      }
    }
    sinrs.sort((a, b) => a - b);
    const m = sinrs.length;
    return {
      coverage: m === 0 ? null : covered / m,
      clients: m,
      gridCoverage: this.gridSize === 0 ? null : this.gridCovered(powers) / this.gridSize,
      medianSinr: m === 0 ? null : m % 2 === 1 ? sinrs[(m - 1) / 2]! : (sinrs[m / 2 - 1]! + sinrs[m / 2]!) / 2,
      cci: cciAt.reduce((s, v) => s + v, 0),
      conflicts,
      worstCci: cciAt.reduce((s, v) => Math.max(s, v), 0),
    };
  }

  /** How many radios reach each (cell, band) at >= -67 dBm under `powers`. */
  gridCounts(powers: readonly number[]): Int32Array {
    const counts = new Int32Array(this.gridSize);
    this.radios.forEach((r, k) => {
      const p = powers[r.slot]!;
      const cells = this.gridCells[k]!;
      const loss = this.gridLoss[k]!;
      const reach = p - COVERAGE_DBM;
      for (let i = 0; i < cells.length && loss[i]! <= reach; i++) counts[cells[i]!]!++;
    });
    return counts;
  }

  private gridCovered(powers: readonly number[]): number {
    let c = 0;
    for (const v of this.gridCounts(powers)) if (v > 0) c++;
    return c;
  }
}

/** The figures of a power plan on a zone (radios the plan leaves out keep their power). */
export function powerScore(model: RrmModel, serials: readonly string[], plan: Plan, opts: PowerSceneOptions = {}): PowerScore {
  const scene = new PowerScene(model, serials, opts);
  return scene.score(scene.powersOf(plan));
}
