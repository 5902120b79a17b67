/**
 * `coverage_cci` TPC: the most coverage at the least co-channel interference, by coordinate
 * descent on the power figures of score/power.ts (docs/rrm.md#the-objective-modes).
 *
 * From the powers the radios run now (snapped to the allowed ones, never above a radio's
 * limit), in rounds:
 * 1. lower: one step at a time, round-robin in a seeded order, every radio whose step down
 *    keeps every coverage figure (clients at -67 dBm, clients at -67 + marginDb, grid cells
 *    where the site is known) and leaves no client of it below sinrFloorDb that was above it;
 *    each such step lowers CCI;
 * 2. raise: round-robin, each radio to the power above its own whose coverage gain (client
 *    share plus grid share) most exceeds its CCI cost (as a share of the starting CCI, times
 *    costWeight), as long as the zone's CCI stays at or below where it started.
 * Rounds repeat while something moves. So the plan covers at least what the current powers
 * cover and causes no more CCI, as the model predicts it. Without a site, a radio with no
 * client has no coverage figure to keep and keeps its power. Deterministic for a seed.
 */
import { PowerScene, COVERAGE_DBM, CCI_FLOOR_DBM } from '../score/power.js';
import { apTxChoices, snapPower, sortedPlan, type AlgorithmInput, type Plan } from './common.js';

export interface CoverageCciArgs { marginDb: number; costWeight: number; sinrFloorDb: number }

const MAX_ROUNDS = 6;
const MAX_STEPS = 64;
const mw = (dbm: number): number => 10 ** (dbm / 10);

/** The CCI (mW) a radio causes at `delta` dB from its current power. */
function caused(scene: PowerScene, k: number, delta: number): number {
  let s = 0;
  for (const e of scene.heardBy[k]!) if (e.signal + delta > CCI_FLOOR_DBM) s += mw(e.signal + delta);
  return s;
}

/** First index whose loss exceeds `x` (losses ascending). */
function above(loss: Float64Array, x: number): number {
  let lo = 0, hi = loss.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (loss[mid]! <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The run of cells whose coverage by a radio flips when its power moves between a and b. */
function changed(loss: Float64Array, a: number, b: number): [number, number] {
  return [above(loss, Math.min(a, b) - COVERAGE_DBM), above(loss, Math.max(a, b) - COVERAGE_DBM)];
}

/** The descent's running state: powers per slot and the figures kept up to date as they move. */
interface Descent {
  scene: PowerScene;
  /** Allowed powers per slot, ascending. */
  choices: number[][];
  powers: number[];
  /** Per grid cell, how many radios cover it under `powers`. */
  counts: ReturnType<PowerScene['gridCounts']>;
  /** Interference (mW, noise included) at each radio under `powers`. */
  noiseAt: number[];
  margin: number;
  floor: number;
  totalClients: number;
  cciBudget: number;
  cci: number;
}

interface Trial { clients: number; margin: number; grid: number; cci: number; sinrLost: number }

export function coverageCci(input: AlgorithmInput<CoverageCciArgs>): Plan {
  const scene = new PowerScene(input.model, input.zone.serials, {
    ...(input.site ? { site: input.site } : {}),
    location: (s) => input.configs.get(s)?.location,
  });
  const n = scene.slots.length;
  if (n === 0) return {};
  const choices = scene.slots.map((s) => apTxChoices(input.configs.get(s.serial), scene.aps[s.ap]!, s.band));
  const powers = scene.slots.map((s, i) => (choices[i]!.length > 0 ? snapPower(Math.min(s.current, s.limit), choices[i]!) : s.current));
  const start = powers.slice();
  const score0 = scene.score(powers);
  const d = startDescent(scene, choices, powers, input.args, score0.cci);
  const order = seededOrder(n, input.rng);
  // A slot with nothing to cover (no client, no grid cell) keeps its power: lowering it would
  // look free only because nothing measures what it serves.
  const judged = scene.slots.map((s) => s.radios.some((k) => scene.clients[k]!.length > 0 || scene.gridCells[k]!.length > 0));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const lowered = repeatPass(() => lowerPass(d, order, judged));
    const raised = repeatPass(() => raisePass(d, order, input.args.costWeight));
    if (!lowered && !raised) break;
  }
  // The figures are recomputed whole: rounding in the running sums must not let a worse plan out.
  const end = scene.score(powers);
  const worse = end.cci > score0.cci || (end.coverage ?? 0) < (score0.coverage ?? 0) || (end.gridCoverage ?? 0) < (score0.gridCoverage ?? 0);
  if (worse) powers.splice(0, n, ...start);
  const plan: Plan = {};
  scene.slots.forEach((s, i) => { if (choices[i]!.length > 0) (plan[s.serial] ??= {})[s.band] = powers[i]!; });
  return sortedPlan(plan);
}

function startDescent(scene: PowerScene, choices: number[][], powers: number[], args: CoverageCciArgs, cciBudget: number): Descent {
  const noiseAt = scene.radios.map((_, k) => scene.noise[k]! + scene.unmanagedAll[k]!);
  scene.radios.forEach((r, k) => {
    for (const e of scene.heardBy[k]!) noiseAt[e.hearer]! += mw(e.signal + powers[r.slot]! - r.txPower);
  });
  return {
    scene, choices, powers, counts: scene.gridCounts(powers), noiseAt,
    margin: COVERAGE_DBM + args.marginDb, floor: args.sinrFloorDb,
    totalClients: scene.clients.reduce((s, c) => s + c.length, 0), cciBudget, cci: cciBudget,
  };
}

/** The slots in a seeded order (Fisher-Yates on the input's rng). */
function seededOrder(n: number, rng: () => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Runs `pass` until it moves nothing (at most MAX_STEPS times); true when it moved something. */
function repeatPass(pass: () => boolean): boolean {
  let moved = false;
  for (let s = 0; s < MAX_STEPS; s++) {
    if (!pass()) break;
    moved = true;
  }
  return moved;
}

/** The allowed power one step below or above slot i's, if any. */
function step(d: Descent, i: number, dir: -1 | 1): number | undefined {
  const list = d.choices[i]!;
  const at = list.indexOf(d.powers[i]!);
  return at < 0 ? undefined : list[at + dir];
}

function move(d: Descent, i: number, p: number, dCci: number): void {
  trial(d, i, p, true);
  d.powers[i] = p;
  d.cci += dCci;
}

/** One round-robin of single steps down that keep every coverage figure and SINR above the floor. */
function lowerPass(d: Descent, order: number[], judged: boolean[]): boolean {
  let lowered = false;
  for (const i of order) {
    if (!judged[i]) continue;
    const p = step(d, i, -1);
    if (p === undefined) continue;
    const t = trial(d, i, p, false);
    if (t.clients < 0 || t.margin < 0 || t.grid < 0 || t.sinrLost > 0) continue;
    move(d, i, p, t.cci);
    lowered = true;
  }
  return lowered;
}

/** One round-robin raising each radio to its best power within the CCI budget. */
function raisePass(d: Descent, order: number[], costWeight: number): boolean {
  let raised = false;
  for (const i of order) {
    // The best raise of this radio (a client a few dB short needs more than one step).
    let pick: { p: number; value: number; cci: number } | undefined;
    const list = d.choices[i]!;
    for (let at = list.indexOf(d.powers[i]!) + 1; at > 0 && at < list.length; at++) {
      const p = list[at]!;
      const t = trial(d, i, p, false);
      if (d.cci + t.cci > d.cciBudget) break; // higher only costs more
      const gain = (d.totalClients > 0 ? t.clients / d.totalClients : 0) + (d.scene.gridSize > 0 ? t.grid / d.scene.gridSize : 0);
      const cost = d.cciBudget > 0 ? t.cci / d.cciBudget : t.cci > 0 ? Infinity : 0;
      const value = gain - cost * costWeight;
      if (gain > 0 && t.clients >= 0 && t.grid >= 0 && value > 0 && (!pick || value > pick.value)) pick = { p, value, cci: t.cci };
    }
    if (!pick) continue;
    move(d, i, pick.p, pick.cci);
    raised = true;
  }
  return raised;
}

/**
 * The change of moving slot i from its power to p (clients, margin clients, grid cells, CCI,
 * clients falling below the SINR floor). Grid counts move with it; `commit` keeps them and
 * updates the interference at every hearer, otherwise the counts are put back.
 */
function trial(d: Descent, i: number, p: number, commit: boolean): Trial {
  const { scene, counts, noiseAt } = d;
  const from = d.powers[i]!;
  let clients = 0, marginC = 0, grid = 0, dCci = 0, sinrLost = 0;
  for (const k of scene.slots[i]!.radios) {
    const tx = scene.radios[k]!.txPower;
    for (const dl of scene.clients[k]!) {
      clients += Number(dl + p - tx >= COVERAGE_DBM) - Number(dl + from - tx >= COVERAGE_DBM);
      marginC += Number(dl + p - tx >= d.margin) - Number(dl + from - tx >= d.margin);
    }
    if (p < from) {
      const n = 10 * Math.log10(noiseAt[k]!);
      for (const dl of scene.clients[k]!) if (dl + from - tx - n >= d.floor && dl + p - tx - n < d.floor) sinrLost++;
    }
    dCci += caused(scene, k, p - tx) - caused(scene, k, from - tx);
    const cells = scene.gridCells[k]!;
    const [lo, hi] = changed(scene.gridLoss[k]!, from, p);
    const up = p > from;
    for (let c = lo; c < hi; c++) {
      const cell = cells[c]!;
      const before = counts[cell]!;
      counts[cell] = before + (up ? 1 : -1);
      grid += Number(counts[cell]! > 0) - Number(before > 0);
    }
  }
  for (const k of scene.slots[i]!.radios) {
    if (commit) {
      const tx = scene.radios[k]!.txPower;
      for (const e of scene.heardBy[k]!) noiseAt[e.hearer]! += mw(e.signal + p - tx) - mw(e.signal + from - tx);
    } else {
      const cells = scene.gridCells[k]!;
      const [lo, hi] = changed(scene.gridLoss[k]!, from, p);
      for (let c = lo; c < hi; c++) counts[cells[c]!]! += p > from ? -1 : 1;
    }
  }
  return { clients, margin: marginC, grid, cci: dCci, sinrLost };
}
