/** The synthetic venues live in the package's RRM testing kit; tests import them from here. */
export * from '../../src/rrm/testing/venues.js';

/** fast-check parameters with a reported seed (FC_SEED replays a failure). */
export function propParams(numRuns: number): { seed: number; numRuns: number } {
  const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
  console.info(`fast-check seed ${seed} (replay with FC_SEED=${seed})`);
  return { seed, numRuns };
}
