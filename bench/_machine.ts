/**
 * How much two threads get done at once on this machine, printed by benchmarks whose figure
 * depends on it. The replay and ingest pipelines use a second thread (DuckDB's statements on the
 * libuv pool, V8's GC helpers) while their baselines run on one. Two vCPUs that are one core
 * shared (hyperthreads, an oversubscribed host) give the two threads ~1.4x the work of one, two
 * real cores ~2x, and the ratio follows: the replay bench gave 0.45-0.58 (median 0.50) on a 1.4x
 * machine and 0.49-0.61 (median 0.59) on a 1.9x one (docs/record-replay.md, "Throughput").
 */
import { availableParallelism, cpus } from 'node:os';
import { Worker } from 'node:worker_threads';

// A fixed amount of floating-point work, started by the message that gives its size, so a worker's start-up is not timed.
const LOOP = `
const { parentPort } = require('node:worker_threads');
parentPort.once('message', (n) => {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i) * 1.0000001;
  parentPort.postMessage({ ms: performance.now() - t0, x });
});`;

async function timeLoops(threads: number, n: number): Promise<number> {
  const workers = Array.from({ length: threads }, () => new Worker(LOOP, { eval: true }));
  try {
    await Promise.all(workers.map((w) => new Promise((r) => w.once('online', r))));
    const done = workers.map((w) => new Promise<number>((resolve, reject) => {
      w.once('message', (m: { ms: number }) => resolve(m.ms));
      w.once('error', reject);
    }));
    for (const w of workers) w.postMessage(n);
    return Math.max(...(await Promise.all(done)));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Work per second of two threads side by side over one thread alone (best of three each). */
export async function parallelSpeedup(n = 100_000_000): Promise<number> {
  let one = Infinity;
  let two = Infinity;
  for (let i = 0; i < 3; i++) {
    one = Math.min(one, await timeLoops(1, n));
    two = Math.min(two, await timeLoops(2, n));
  }
  return (2 * one) / two;
}

/** Prints the machine line: the CPUs this process may use and what two threads do against one. */
export async function describeMachine(): Promise<void> {
  const speedup = await parallelSpeedup();
  // availableParallelism: the CPUs this process may run on (taskset and cgroups pin fewer).
  const n = availableParallelism();
  console.log(`  machine: ${n} CPU${n === 1 ? '' : 's'} (${cpus()[0]?.model.trim() ?? 'unknown'}); two threads of a compute loop do ${speedup.toFixed(2)}x the work of one`);
}
