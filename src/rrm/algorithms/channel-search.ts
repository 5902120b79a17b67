/**
 * Channel modes that optimise the objective itself (docs/rrm.md "The objective"):
 * - `weighted`: signal-weighted best response (a neighbour heard at −24 dBm weighs ~10^5 times
 *   one at −80 dBm; 2.4 GHz partial overlap counts), from the current channels;
 * - `annealing`: seeded simulated annealing over the whole zone, started from the best
 *   response, bounded by iterations (and a time cap), polished by a last best response.
 * Both respect every candidate rule (capabilities, DFS opt-in, widths, allowed and user
 * channels: channelCandidates) and never pick anything else. Same seed, same plan (the time cap
 * only binds on zones far larger than the iteration budget is sized for).
 */
import type { AlgorithmInput, Plan, Rng } from './common.js';
import {
  bestResponse, channelProblem, localCost, planOf, startAssignment, totalCost, type BandProblem,
} from './channel-problem.js';

export function weightedBestResponse(input: AlgorithmInput<Record<string, never>>): Plan {
  const problem = channelProblem(input);
  const xs = problem.bands.map((p) => {
    const x = startAssignment(p);
    bestResponse(p, x, input.rng);
    return x;
  });
  return planOf(problem, xs);
}

export interface AnnealingArgs {
  /** Proposed moves per band (0: sized from the zone). */
  iterations: number;
  /** Independent chains; the best one wins. */
  restarts: number;
  /** Wall-time cap per band, ms. */
  maxMs: number;
}

export function annealing(input: AlgorithmInput<AnnealingArgs>): Plan {
  const problem = channelProblem(input);
  const xs = problem.bands.map((p) => annealBand(p, input.rng, input.args));
  return planOf(problem, xs);
}

/** Neighbour visits one band's annealing may spend when the iterations are not given. */
const WORK_PER_BAND = 5_000_000;

function annealBand(p: BandProblem, rng: Rng, args: AnnealingArgs): Int32Array {
  const start = startAssignment(p);
  bestResponse(p, start, rng);
  const movable = p.vars.map((v, i) => (v.candidates.length > 1 ? i : -1)).filter((i) => i >= 0);
  if (movable.length === 0) return start;
  let best = start.slice();
  let bestCost = totalCost(p, best);
  const size = movable.reduce((s, i) => s + p.vars[i]!.candidates.length, 0);
  // Sized from the zone, and capped by work (a move costs ~2 × the radio's neighbours): a
  // 200-AP zone where everyone hears everyone plans in well under a second, deterministically.
  const degree = movable.reduce((s, i) => s + p.vars[i]!.adj.length, 0) / movable.length;
  const restarts = Math.max(1, args.restarts);
  const iterations = args.iterations > 0 ? args.iterations
    : Math.min(300_000, Math.max(20_000, 200 * size), Math.floor(WORK_PER_BAND / (restarts * 2 * (degree + 1))));
  const deadline = performance.now() + args.maxMs;
  // Temperature in mW, from what a radio pays on average at the start: uphill moves of that size
  // are likely early and vanish by the end (geometric cooling).
  const typical = Math.max(bestCost - p.constant, 1e-12) / movable.length;
  const t0 = typical * 3;
  const t1 = typical * 1e-3;
  for (let chain = 0; chain < restarts; chain++) {
    const x = chain === 0 ? start.slice() : best.slice();
    let cost = totalCost(p, x);
    for (let k = 0; k < iterations; k++) {
      if ((k & 1023) === 0 && performance.now() > deadline) break;
      const t = t0 * (t1 / t0) ** (k / iterations);
      const i = movable[Math.floor(rng() * movable.length)]!;
      const v = p.vars[i]!;
      const c = Math.floor(rng() * (v.candidates.length - 1));
      const to = c >= x[i]! ? c + 1 : c;
      const delta = localCost(p, x, i, to) - localCost(p, x, i, x[i]!);
      if (delta <= 0 || rng() < Math.exp(-delta / t)) {
        x[i] = to;
        cost += delta;
        if (cost < bestCost * (1 - 1e-12)) { bestCost = cost; best = x.slice(); }
      }
    }
  }
  bestResponse(p, best, rng);
  return best;
}
