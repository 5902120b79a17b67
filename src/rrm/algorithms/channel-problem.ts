/**
 * The channel objective (src/rrm/score/cci.ts) as an assignment problem, per band: each radio
 * that may decide picks one candidate primary; the cost is what its candidates' blocks overlap
 * of unmanaged BSSIDs it hears, plus, for every pair of radios whose blocks overlap, the mW each
 * hears of the other above −82 dBm. Radios that cannot decide (no scan, no candidate) sit at
 * their channel and turn into fixed costs of their neighbours. The total of an assignment plus
 * `constant` is exactly the band's share of the zone's CCI, so every mode optimises the
 * objective itself and the exact mode's bound is a bound on it.
 */
import { BANDS, is6GhzPsc, type Band } from '../../protocol/wifi-channels.js';
import { zoneView } from '../model/view.js';
import {
  CCI_THRESHOLD_DBM, cciInstanceOfView, coveredChannels, dbmToMw, spectrumOverlaps, type CciInstance,
} from '../score/cci.js';
import { channelCandidates, pick, setPlan, sortedPlan, type AlgorithmInput, type Plan, type Rng } from './common.js';

export interface ChannelVar {
  serial: string;
  candidates: number[];
  /** Block id (see `overlaps`) of each candidate. */
  blocks: number[];
  /** Unmanaged (and fixed radios') interference on each candidate, mW. */
  unary: Float64Array;
  /** Index of the radio's current channel among the candidates; -1 when it must move. */
  current: number;
  /** Neighbours: variable index and the pair's weight (mW both directions above −82 dBm). */
  adj: { j: number; w: number }[];
}

export interface BandProblem {
  band: Band;
  vars: ChannelVar[];
  /** Interference that no decision changes (pairs of fixed radios and what they hear), mW. */
  constant: number;
  /** Whether block ids a and b overlap. */
  overlaps(a: number, b: number): boolean;
  /** The 20 MHz channels of a block id. */
  covers(block: number): readonly number[];
  /** Dense overlap table: ov[a * nb + b] = 1 when blocks a and b overlap (hot loops). */
  ov: Uint8Array;
  nb: number;
}

export interface ChannelProblem {
  bands: BandProblem[];
  instance: CciInstance;
}

class Blocks {
  private readonly ids = new Map<string, number>();
  private readonly covers: (readonly number[])[] = [];
  private readonly memo = new Map<number, boolean>();
  constructor(private readonly band: Band) {}
  id(covered: readonly number[]): number {
    const key = covered.join(',');
    let id = this.ids.get(key);
    if (id === undefined) { id = this.covers.length; this.ids.set(key, id); this.covers.push(covered); }
    return id;
  }
  cover = (id: number): readonly number[] => this.covers[id]!;
  count = (): number => this.covers.length;
  overlaps = (a: number, b: number): boolean => {
    const key = a < b ? a * 65536 + b : b * 65536 + a;
    let v = this.memo.get(key);
    if (v === undefined) { v = spectrumOverlaps(this.band, this.covers[a]!, this.covers[b]!); this.memo.set(key, v); }
    return v;
  };
}

const heardMw = (dbm: number): number => (dbm > CCI_THRESHOLD_DBM ? dbmToMw(dbm) : 0);

/** The problem of a zone under its configs (candidates as every channel mode uses them). */
export function channelProblem(input: Pick<AlgorithmInput<unknown>, 'model' | 'zone' | 'configs'>): ChannelProblem {
  const view = zoneView(input.model, input.zone.serials);
  const inst = cciInstanceOfView(view);
  const { aps } = view;
  const apBySerial = new Map(aps.map((a) => [a.serial, a]));
  const bands: BandProblem[] = [];
  for (const band of BANDS) {
    const radios = inst.radios.map((r, i) => ({ r, i })).filter((x) => x.r.band === band);
    if (radios.length === 0) continue;
    const blocks = new Blocks(band);
    const varOf = new Map<number, number>();
    const vars: ChannelVar[] = [];
    const fixedBlock = new Map<number, number>();
    for (const { r, i } of radios) {
      const ap = apBySerial.get(r.serial)!;
      const cfg = input.configs.get(r.serial);
      const user = cfg?.userChannels?.[band];
      const decides = ap.scanned || user !== undefined;
      const candidates = !decides ? [] : user !== undefined ? [user] : channelCandidates(ap, band, r.width, cfg);
      if (candidates.length === 0) { fixedBlock.set(i, blocks.id(coveredChannels(band, r.channel, r.width))); continue; }
      varOf.set(i, vars.length);
      const bl = candidates.map((c) => blocks.id(coveredChannels(band, c, r.width)));
      vars.push({
        serial: r.serial, candidates, blocks: bl, unary: new Float64Array(candidates.length),
        current: candidates.indexOf(r.channel), adj: [],
      });
    }
    let constant = 0;
    const pair = new Map<number, number>();
    for (const { r, i } of radios) {
      const vi = varOf.get(i);
      // unmanaged BSSIDs this radio hears
      for (const u of r.unmanaged) {
        const mw = heardMw(u.dbm);
        if (mw === 0) continue;
        const ub = blocks.id(u.covered);
        if (vi === undefined) { if (blocks.overlaps(fixedBlock.get(i)!, ub)) constant += mw; continue; }
        const v = vars[vi]!;
        v.blocks.forEach((b, c) => { if (blocks.overlaps(b, ub)) v.unary[c]! += mw; });
      }
      // managed radios it hears: fixed-fixed -> constant, var-fixed -> unary, var-var -> edge
      for (const h of r.managed) {
        const mw = heardMw(h.dbm);
        if (mw === 0) continue;
        const vj = varOf.get(h.radio);
        if (vi === undefined && vj === undefined) {
          if (blocks.overlaps(fixedBlock.get(i)!, fixedBlock.get(h.radio)!)) constant += mw;
        } else if (vi === undefined || vj === undefined) {
          const v = vars[(vi ?? vj)!]!;
          const fb = fixedBlock.get(vi === undefined ? i : h.radio)!;
          v.blocks.forEach((b, c) => { if (blocks.overlaps(b, fb)) v.unary[c]! += mw; });
        } else {
          const key = Math.min(vi, vj) * 1_000_000 + Math.max(vi, vj);
          pair.set(key, (pair.get(key) ?? 0) + mw);
        }
      }
    }
    for (const [key, w] of [...pair].sort((a, b) => a[0] - b[0])) {
      const a = Math.floor(key / 1_000_000);
      const b = key % 1_000_000;
      vars[a]!.adj.push({ j: b, w });
      vars[b]!.adj.push({ j: a, w });
    }
    const nb = blocks.count();
    const ov = new Uint8Array(nb * nb);
    for (let a = 0; a < nb; a++) for (let b = 0; b < nb; b++) ov[a * nb + b] = blocks.overlaps(a, b) ? 1 : 0;
    bands.push({ band, vars, constant, overlaps: blocks.overlaps, covers: blocks.cover, ov, nb });
  }
  return { bands, instance: inst };
}

/** What radio i pays on candidate c with the others at `x` (its unary plus its pairs). */
export function localCost(p: BandProblem, x: Int32Array, i: number, c: number): number {
  const v = p.vars[i]!;
  let s = v.unary[c]!;
  const row = v.blocks[c]! * p.nb;
  const { ov, vars } = p;
  for (const { j, w } of v.adj) if (ov[row + vars[j]!.blocks[x[j]!]!] === 1) s += w;
  return s;
}

/** The band's CCI of an assignment (constant included), mW. */
export function totalCost(p: BandProblem, x: Int32Array): number {
  let s = p.constant;
  p.vars.forEach((v, i) => {
    s += v.unary[x[i]!]!;
    for (const { j, w } of v.adj) if (j > i && p.overlaps(v.blocks[x[i]!]!, p.vars[j]!.blocks[x[j]!]!)) s += w;
  });
  return s;
}

/** Preferred channels among equally good ones: 2.4 GHz 1/6/11, 6 GHz PSC. */
const preferred = (band: Band, ch: number): boolean => (band === '2G' ? ch === 1 || ch === 6 || ch === 11 : band === '6G' ? is6GhzPsc(ch) : true);

/**
 * The start of every search: each radio on its current channel, or, when that is not a
 * candidate (a forced move), the candidate with the least unmanaged interference.
 */
export function startAssignment(p: BandProblem): Int32Array {
  return Int32Array.from(p.vars.map((v) => {
    if (v.current >= 0) return v.current;
    let best = 0;
    v.unary.forEach((u, c) => { if (u < v.unary[best]!) best = c; });
    return best;
  }));
}

/**
 * Signal-weighted best response: radios in a fixed order (most neighbours first, then serial),
 * each moving to the candidate where it takes part in the least CCI, given the others where
 * they are now, when that is strictly less than where it is; passes until none moves. Every
 * move lowers the band's CCI by exactly the mover's gain, so the passes end. Ties between new
 * channels go to preferred channels (2.4 GHz 1/6/11, 6 GHz PSC), then a seeded pick.
 */
export function bestResponse(p: BandProblem, x: Int32Array, rng: Rng, maxPasses = 50): void {
  const order = p.vars.map((_, i) => i).sort((a, b) => p.vars[b]!.adj.length - p.vars[a]!.adj.length
    || (p.vars[a]!.serial < p.vars[b]!.serial ? -1 : 1));
  for (let pass = 0; pass < maxPasses; pass++) {
    let moved = false;
    for (const i of order) {
      const v = p.vars[i]!;
      if (v.candidates.length < 2) continue;
      const costs = v.candidates.map((_, c) => localCost(p, x, i, c));
      const here = costs[x[i]!]!;
      const min = Math.min(...costs);
      if (!(min < here * (1 - 1e-9)) || here - min <= 1e-18) continue;
      let ties = costs.map((k, c) => (k <= min * (1 + 1e-9) + 1e-18 ? c : -1)).filter((c) => c >= 0);
      const pref = ties.filter((c) => preferred(p.band, v.candidates[c]!));
      if (pref.length > 0) ties = pref;
      x[i] = pick(rng, ties);
      moved = true;
    }
    if (!moved) return;
  }
}

/** A plan from the assignment of every band (the channel of every deciding radio). */
export function planOf(problem: ChannelProblem, xs: readonly Int32Array[]): Plan {
  const plan: Plan = {};
  problem.bands.forEach((p, k) => p.vars.forEach((v, i) => setPlan(plan, v.serial, p.band, v.candidates[xs[k]![i]!]!)));
  return sortedPlan(plan);
}

/** The assignment a plan gives each band (radios it does not name stay at the start). */
export function assignmentOf(p: BandProblem, plan: Plan): Int32Array {
  const x = startAssignment(p);
  p.vars.forEach((v, i) => {
    const ch = plan[v.serial]?.[p.band];
    const c = ch === undefined ? -1 : v.candidates.indexOf(ch);
    if (c >= 0) x[i] = c;
  });
  return x;
}
