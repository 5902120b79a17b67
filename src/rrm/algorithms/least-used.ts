/**
 * `least_used` channel optimizer (docs/upstream.md#rrm-algorithms): each AP moves to a channel its
 * latest scan shows free, else to the least occupied one, every neighbour weighing 1.
 * Fixes (docs/rrm.md): candidates from capabilities/DFS/width/allowed, neighbours de-duplicated,
 * deterministic order and seeded picks, hysteresis, and no move that raises the zone's
 * co-channel interference (interference-guard.ts).
 * Divergence (docs/rrm.md): upstream decides per AP from scans taken before anyone moved, so
 * two APs that hear each other can both pick the same free channel and the next run moves them again. Here the APs are visited in a
 * fixed order and count a managed neighbour at the channel it holds in this run, passes repeating
 * until nobody moves — the same best-response passes as `unmanaged_aware`, so a second run on the
 * new scans changes nothing. An AP alone on its channel keeps it, and the APs it hears may not join
 * it (it would not be alone next time).
 */
import type { AlgorithmInput, Plan } from './common.js';
import { bestResponse } from './unmanaged-aware.js';

export function leastUsed(input: AlgorithmInput<Record<string, never>>): Plan {
  return bestResponse(input, { unmanagedWeight: 1, managedWeight: 1, keepAlone: true });
}
