/**
 * `exact`: the channel objective solved as a mixed-integer program with HiGHS (WebAssembly,
 * the `highs` package). Per band: a binary x[i][c] per radio and candidate (one candidate per
 * radio), and for each pair of radios that hear each other a continuous z ≥ 0 with
 * z ≥ x[i][c] + Σ{x[j][d] : d overlaps c} − 1 for every c, so z is 1 exactly when their blocks
 * overlap; minimise Σ unary·x + Σ weight·z. HiGHS proves a lower bound on every band, so the
 * gap of any plan (`provenGap`) is known: 0 when the solve ended optimal.
 *
 * The solver loads asynchronously once (`loadSolver`); the optimizer itself is synchronous like
 * every other. Zones whose program is larger than MAX_BINARIES, or whose solve hits the time
 * limit, get the best plan HiGHS found (never worse than the best response it is given).
 */
import type { AlgorithmInput, Plan } from './common.js';
import {
  bestResponse, channelProblem, planOf, startAssignment, totalCost, type BandProblem, type ChannelProblem,
} from './channel-problem.js';

/** The part of the HiGHS API this module uses. */
interface HighsModel {
  options: { set(values: Record<string, string | number | boolean>): unknown };
  info: { get(name: string): number | bigint };
  run(): unknown;
  getModelStatus?: () => unknown;
  getSolution(): { colValue: Float64Array };
  getColByName(name: string): number;
}
interface HighsRuntime {
  withModel<R>(source: { format: 'lp'; data: string }, op: (m: HighsModel) => R): R;
}

let solver: HighsRuntime | undefined;
let loading: Promise<void> | undefined;

/** Loads HiGHS once; the `exact` mode needs it loaded. */
export function loadSolver(): Promise<void> {
  loading ??= import('highs').then(async (m) => {
    const load = (m as unknown as { default: () => Promise<HighsRuntime> }).default;
    solver = await load();
  });
  return loading;
}

export const solverLoaded = (): boolean => solver !== undefined;

/** Largest program solved exactly (binaries per band); larger zones are out of reach. */
export const MAX_BINARIES = 4000;

export interface ExactArgs {
  /** Time limit per band, s. */
  timeLimit: number;
}

export interface BandSolution {
  x: Int32Array;
  /** Proven lower bound on the band's CCI, mW (constant included). */
  bound: number;
  optimal: boolean;
}

/** Solves one band; undefined when the program is too large or the solver is not loaded. */
export function solveBand(p: BandProblem, timeLimit: number, warm?: Int32Array): BandSolution | undefined {
  if (!solver) return undefined;
  const binaries = p.vars.reduce((s, v) => s + v.candidates.length, 0);
  if (binaries > MAX_BINARIES) return undefined;
  const movable = p.vars.filter((v) => v.candidates.length > 1).length;
  if (movable === 0 || binaries === 0) {
    const x = startAssignment(p);
    return { x, bound: totalCost(p, x), optimal: true };
  }
  // Costs in nW keep the coefficients well scaled for the solver.
  const scale = 1e6;
  const obj: string[] = [];
  const rows: string[] = [];
  const bins: string[] = [];
  const zs: string[] = [];
  p.vars.forEach((v, i) => {
    const terms = v.candidates.map((_, c) => `x${i}_${c}`);
    bins.push(...terms);
    rows.push(` one${i}: ${terms.join(' + ')} = 1`);
    v.unary.forEach((u, c) => { if (u > 0) obj.push(`${(u * scale).toPrecision(15)} x${i}_${c}`); });
  });
  // Per pair: z ≥ x[i][c] + Σ{x[j][d] : d overlaps c} − 1 for every candidate c of i, so z is 1
  // exactly when the chosen blocks overlap (z is minimised, so never more).
  p.vars.forEach((v, i) => {
    for (const { j, w } of v.adj) {
      if (j < i) continue;
      const z = `z${i}_${j}`;
      zs.push(z);
      obj.push(`${(w * scale).toPrecision(15)} ${z}`);
      const vj = p.vars[j]!;
      v.blocks.forEach((b, c) => {
        const hit = vj.blocks.map((d, k) => (p.overlaps(b, d) ? `x${j}_${k}` : '')).filter(Boolean);
        if (hit.length > 0) rows.push(` e${i}_${j}_${c}: ${z} - x${i}_${c} - ${hit.join(' - ')} >= -1`);
      });
    }
  });
  const lp = [
    'Minimize', ` obj: ${obj.length > 0 ? obj.join(' + ') : '0 x0_0'}`, 'Subject To', ...rows,
    'Bounds', ...zs.map((z) => ` 0 <= ${z} <= 1`), 'Binary', ...bins.map((b) => ` ${b}`), 'End',
  ].join('\n');
  void warm;
  return solver.withModel({ format: 'lp', data: lp }, (m) => {
    // No absolute gap: zone objectives of a fraction of a nW would otherwise stop at a bound
    // micro-percent below the plan; the relative gap alone ends the search.
    m.options.set({ output_flag: false, time_limit: timeLimit, mip_rel_gap: 1e-7, mip_abs_gap: 0, random_seed: 1 });
    m.run();
    const primal = Number(m.info.get('mip_dual_bound'));
    const colValue = m.getSolution().colValue;
    const x = Int32Array.from(p.vars.map((v, i) => {
      let best = 0;
      v.candidates.forEach((_, c) => { if ((colValue[m.getColByName(`x${i}_${c}`)] ?? 0) > (colValue[m.getColByName(`x${i}_${best}`)] ?? 0)) best = c; });
      return best;
    }));
    const cost = totalCost(p, x);
    const bound = Number.isFinite(primal) ? Math.min(cost, primal / scale + p.constant) : p.constant;
    return { x, bound: Math.max(p.constant, bound), optimal: cost <= bound * (1 + 1e-6) + 1e-15 };
  });
}

export interface ExactResult {
  plan: Plan;
  /** Proven lower bound on the zone's CCI (every band), mW; undefined when not solvable. */
  bound: number | undefined;
  optimal: boolean;
}

/** The whole zone: per band the solver's plan, or the best response where it cannot solve. */
export function solveExact(problem: ChannelProblem, timeLimit: number, rng: () => number): ExactResult {
  let bound: number | undefined = 0;
  let optimal = true;
  const xs = problem.bands.map((p) => {
    const br = startAssignment(p);
    bestResponse(p, br, rng);
    const s = solveBand(p, timeLimit, br);
    if (!s) { bound = undefined; optimal = false; return br; }
    if (bound !== undefined) bound += s.bound;
    optimal &&= s.optimal;
    return totalCost(p, s.x) <= totalCost(p, br) ? s.x : br;
  });
  return { plan: planOf(problem, xs), bound, optimal };
}

/** The plan and the proven lower bound on the zone's CCI (absent when a band is out of reach). */
export function exactSolve(input: AlgorithmInput<ExactArgs>): { plan: Plan; lowerBound_mw?: number } {
  if (!solver) throw new Error('the exact mode needs the HiGHS solver loaded first (loadSolver)');
  const r = solveExact(channelProblem(input), input.args.timeLimit, input.rng);
  return { plan: r.plan, ...(r.bound !== undefined ? { lowerBound_mw: r.bound } : {}) };
}

export const exactChannels = (input: AlgorithmInput<ExactArgs>): Plan => exactSolve(input).plan;

/**
 * The proven gap of a plan: (CCI of the plan − lower bound) / lower bound, from the solver's
 * bound; 0 when the plan is optimal, undefined when the zone cannot be solved.
 */
export function provenGap(cci: number, bound: number | undefined): number | undefined {
  if (bound === undefined) return undefined;
  if (bound <= 0) return cci <= 1e-15 ? 0 : Infinity;
  return Math.max(0, (cci - bound) / bound);
}
