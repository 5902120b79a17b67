/**
 * `location_optimal` TPC (docs/upstream.md#rrm-algorithms): per (band, channel) group of APs with a
 * known position, the powers with the best coverage-grid score (coverage-grid.ts).
 *
 * Positions: the RRM `location` when set, else the AP's reported `gps` (state; protocol/geo.ts).
 * Without a site those gps positions are placed relative to the zone's south-west-most AP.
 *
 * With the venue known (`site`: floors, walls, origin), the grid is the venue's own: each group
 * is scored on the cells it serves (those whose strongest radio of the band, at its limit, is in
 * the group), with the venue's path loss, walls and floors instead of free space; the search
 * starts from upstream's all-max as without a site. A group's powers are kept only when the
 * zone's power figures (score/power.ts: client and grid coverage, CCI) are no worse with them
 * than with the current powers, so the mode never makes a venue worse than it is.
 *
 * Fixes (docs/rrm.md): not capped at 1,000 combinations. When the exhaustive search
 * fits EXHAUSTIVE_BUDGET it runs as upstream (lexicographic, first AP slowest, first strictly
 * best wins, all +∞ -> all max); otherwise a coordinate descent starts from all-max and only
 * accepts strict improvements, so it never scores worse than all-max. Each AP has its own
 * allowed powers (upstream narrowed one shared list progressively); an AP counts once per
 * group; the grid grows to contain every AP instead of aborting.
 */
import { gpsToVenue } from '../../protocol/geo.js';
import { channelToFrequency } from '../../protocol/wifi-channels.js';
import { PowerScene, type PowerScore } from '../score/power.js';
import type { Site } from '../site.js';
import { zoneView } from '../model/view.js';
import { setPlan, sortedPlan, apTxChoices, type AlgorithmInput, type Plan } from './common.js';
import { CoverageGrid, type PlacedAp } from './coverage-grid.js';
import { tpcGroups } from './tpc-groups.js';

const DEFAULT_BOUNDARY = 100;
/** Exhaustive search when combinations × points × APs stays under this. */
export const EXHAUSTIVE_BUDGET = 2e7;
const MAX_DESCENT_PASSES = 20;
/** Point evaluations the descent may spend per group. */
const DESCENT_BUDGET = 3e7;

/** Exhaustive search in upstream order; null when it does not fit the budget. */
export function exhaustiveSearch(grid: CoverageGrid): number[] | null {
  const aps = grid.aps;
  let combos = 1;
  for (const a of aps) combos *= a.choices.length;
  if (combos * grid.points * aps.length > EXHAUSTIVE_BUDGET) return null;
  const idx = aps.map(() => 0);
  let best: number[] | null = null;
  let bestScore = Infinity;
  for (let k = 0; k < combos; k++) {
    const powers = idx.map((j, i) => aps[i]!.choices[j]!);
    const s = grid.score(powers);
    if (s < bestScore) { bestScore = s; best = powers; }
    for (let i = aps.length - 1; i >= 0; i--) {
      if (++idx[i]! < aps[i]!.choices.length) break;
      idx[i] = 0;
    }
  }
  return best ?? aps.map((a) => a.choices.at(-1)!);
}

/**
 * Coordinate descent from all-max, strict improvements only. Trials are scored incrementally
 * (one AP changes); a move is accepted only on its full score, so floating-point noise cannot
 * make the result worse than all-max. Bounded by DESCENT_BUDGET point evaluations.
 */
export function descentSearch(grid: CoverageGrid): number[] {
  const powers = grid.aps.map((a) => a.choices.at(-1)!);
  let stats = grid.pointStats(powers);
  let bestScore = grid.scoreStats(stats);
  let budget = DESCENT_BUDGET;
  for (let pass = 0; pass < MAX_DESCENT_PASSES && budget > 0; pass++) {
    let improved = false;
    for (let i = 0; i < grid.aps.length && budget > 0; i++) {
      for (const c of grid.aps[i]!.choices) {
        if (c === powers[i]) continue;
        budget -= grid.points;
        if (grid.trialScore(stats, i, powers[i]!, c) >= bestScore) continue;
        const trial = powers.slice();
        trial[i] = c;
        const next = grid.pointStats(trial);
        const full = grid.scoreStats(next);
        if (full < bestScore) {
          bestScore = full;
          powers[i] = c;
          stats = next;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return powers;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** serial -> [x, y] metres from the zone's reported gps, relative to its south-west-most AP. */
function gpsPositions(input: AlgorithmInput<Record<string, never>>): Map<string, [number, number]> {
  const fixes = new Map<string, { latitude: number; longitude: number }>();
  for (const serial of input.zone.serials) {
    const gps = input.model.latestStates[serial]?.at(-1)?.gps as { latitude?: unknown; longitude?: unknown } | undefined;
    const latitude = num(gps?.latitude);
    const longitude = num(gps?.longitude);
    if (latitude !== undefined && longitude !== undefined) fixes.set(serial, { latitude, longitude });
  }
  const out = new Map<string, [number, number]>();
  if (fixes.size === 0) return out;
  const origin = {
    latitude: Math.min(...[...fixes.values()].map((f) => f.latitude)),
    longitude: Math.min(...[...fixes.values()].map((f) => f.longitude)),
  };
  for (const [serial, f] of fixes) {
    const p = gpsToVenue(origin, { ...f, elevation: 0 });
    out.set(serial, [Math.max(0, p.x), Math.max(0, p.y)]);
  }
  return out;
}

export function locationOptimal(input: AlgorithmInput<Record<string, never>>): Plan {
  if (input.site) return siteOptimal(input, input.site);
  const { aps } = zoneView(input.model, input.zone.serials);
  const gps = gpsPositions(input);
  const plan: Plan = {};
  for (const g of tpcGroups(aps)) {
    const placed: (PlacedAp & { serial: string })[] = [];
    let boundary = DEFAULT_BOUNDARY;
    for (const { ap } of g.members) {
      const cfg = input.configs.get(ap.serial);
      const loc = cfg?.location && cfg.location.length >= 2 ? cfg.location : gps.get(ap.serial);
      if (!loc || loc.length < 2 || loc[0]! < 0 || loc[1]! < 0) continue;
      const choices = apTxChoices(cfg, ap, g.band);
      if (choices.length === 0) continue;
      placed.push({ serial: ap.serial, x: loc[0]!, y: loc[1]!, choices });
      boundary = Math.max(boundary, cfg?.boundary ?? 0, Math.floor(loc[0]!) + 1, Math.floor(loc[1]!) + 1);
    }
    if (placed.length === 0) continue;
    const grid = new CoverageGrid(placed, boundary);
    const powers = exhaustiveSearch(grid) ?? descentSearch(grid);
    placed.forEach((p, i) => setPlan(plan, p.serial, g.band, powers[i]!));
  }
  return sortedPlan(plan);
}

const noWorse = (s: PowerScore, base: PowerScore): boolean =>
  (s.coverage ?? 0) >= (base.coverage ?? 0) && (s.gridCoverage ?? 0) >= (base.gridCoverage ?? 0) && s.cci <= base.cci;

/** location_optimal on the venue's own grid and path loss (see the file comment). */
function siteOptimal(input: AlgorithmInput<Record<string, never>>, site: Site): Plan {
  const scene = new PowerScene(input.model, input.zone.serials, { site, location: (s) => input.configs.get(s)?.location });
  if (scene.gridSize === 0) return {};
  const cellsPerBand = scene.gridPoints.length;
  // The radio serving each (band, cell): the strongest at its limit.
  const owner = new Int32Array(scene.gridSize).fill(-1);
  const best = new Float64Array(scene.gridSize).fill(-Infinity);
  scene.radios.forEach((r, k) => {
    const limit = scene.slots[r.slot]!.limit;
    const cells = scene.gridCells[k]!;
    const loss = scene.gridLoss[k]!;
    for (let c = 0; c < cells.length; c++) {
      if (limit - loss[c]! > best[cells[c]!]!) { best[cells[c]!] = limit - loss[c]!; owner[cells[c]!] = k; }
    }
  });
  const choices = scene.slots.map((s) => apTxChoices(input.configs.get(s.serial), scene.aps[s.ap]!, s.band));
  const current = scene.slots.map((s) => s.current);
  const base = scene.score(current);
  const powers = current.slice();
  const planned = new Set<number>();
  // (band, channel) groups of placed radios, in band then channel order.
  const groups = new Map<string, number[]>();
  scene.radios.forEach((r, k) => {
    if (!scene.positions[r.ap] || choices[r.slot]!.length === 0) return;
    const key = `${r.band}:${String(r.channel).padStart(3, '0')}`;
    groups.set(key, [...(groups.get(key) ?? []), k]);
  });
  for (const key of [...groups.keys()].sort()) {
    const members = groups.get(key)!.filter((k) => !planned.has(scene.radios[k]!.slot));
    if (members.length === 0) continue;
    const mine = new Set(members);
    const served: number[] = [];
    for (let c = 0; c < scene.gridSize; c++) if (mine.has(owner[c]!)) served.push(c);
    if (served.length === 0) continue;
    const gain = new Float64Array(members.length * served.length);
    members.forEach((k, i) => {
      const r = scene.radios[k]!;
      const pos = scene.positions[r.ap]!;
      const f = channelToFrequency(r.band, r.channel) ?? 2400;
      served.forEach((c, p) => { gain[i * served.length + p] = 10 ** (-site.lossDb(pos, scene.gridPoints[c % cellsPerBand]!, f) / 10); });
    });
    const aps = members.map((k) => ({ x: 0, y: 0, choices: choices[scene.radios[k]!.slot]! }));
    const grid = new CoverageGrid(aps, 0, { points: served.length, gain });
    const proposal = exhaustiveSearch(grid) ?? descentSearch(grid);
    const trial = powers.slice();
    members.forEach((k, i) => { trial[scene.radios[k]!.slot] = proposal[i]!; });
    if (noWorse(scene.score(trial), base)) powers.splice(0, powers.length, ...trial);
    for (const k of members) planned.add(scene.radios[k]!.slot);
  }
  const plan: Plan = {};
  // A rejected group keeps its current power, which is planned only when it is an allowed one.
  for (const i of planned) if (choices[i]!.includes(powers[i]!)) setPlan(plan, scene.slots[i]!.serial, scene.slots[i]!.band, powers[i]!);
  return sortedPlan(plan);
}
