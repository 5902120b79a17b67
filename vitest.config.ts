import { defineConfig } from 'vitest/config';

// Two cores here and in CI: forks keep DuckDB's native handles per process, and two
// workers keep integration suites (real servers, real NATS) from starving each other.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'actors/**/*.test.ts', 'simulator/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
