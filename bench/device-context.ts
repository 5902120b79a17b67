/**
 * The device context's recorded shape (initialContext in actors/device/device.logic.ts): XState's
 * `assign` builds every new context as Object.assign({}, context, update), once per step of every
 * device actor (one per frame). The context has more keys than V8 keeps as fast properties when an
 * object is built key by key, unless that key order was seen before; initialContext returns a
 * spread copy of its object literal, which records it.
 * - value: such assigns per second (the update a state frame makes: status and lastState) on a
 *   context built as initialContext builds it, literal then spread;
 * - baseline: the same on the bare literal, without the spread.
 * Each runs in its own worker (a fresh V8 isolate: a shape recorded by one cannot help the other),
 * with the device context's own keys. The ratio is what the spread buys; the day it is near 1,
 * the spread can go (docs/performance.md, "Hacks kept for speed").
 */
import { Worker } from 'node:worker_threads';
import { initialContext } from '../actors/device/device.logic.js';
import { describeMachine } from './_machine.js';
import { median, report } from './_report.js';

const ASSIGNS = Number(process.env.DEVICE_CONTEXT_BENCH_ASSIGNS ?? 200_000);
const ROUNDS = Number(process.env.DEVICE_CONTEXT_BENCH_ROUNDS ?? 3);

const keys = Object.keys(initialContext('aabbccddeeff', {} as never, {} as never, 100));

/** The worker: a context literal with `keys`, spread once or not, then timed assigns; posts assigns/s. */
const WORKER = `
const { parentPort, workerData: { keys, spread, assigns } } = require('node:worker_threads');
const literal = new Function(...keys, 'return { ' + keys.join(', ') + ' };');
const made = literal(...keys.map((k, i) => (i < 5 ? i : undefined)));
let ctx = spread ? { ...made } : made;
for (let i = 0; i < 1000; i++) ctx = Object.assign({}, ctx, { status: { n: i }, lastState: { i } });
const t0 = performance.now();
for (let i = 0; i < assigns; i++) ctx = Object.assign({}, ctx, { status: { n: i }, lastState: { i } });
parentPort.postMessage(assigns / ((performance.now() - t0) / 1000));
`;

function run(spread: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { keys, spread, assigns: ASSIGNS } });
    w.once('message', (rate: number) => {
      resolve(rate);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

console.log(`device-context: ${keys.length} context keys, ${ASSIGNS} assigns per round, each variant in a fresh worker`);
await describeMachine();
const spread: number[] = [];
const bare: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which goes first: the machine's load drifts during a run.
  if (r % 2 === 0) {
    bare.push(await run(false));
    spread.push(await run(true));
  } else {
    spread.push(await run(true));
    bare.push(await run(false));
  }
  console.log(`  round ${r + 1}: spread once ${Math.round(spread[r]!)} assigns/s, bare literal ${Math.round(bare[r]!)} assigns/s`);
}
report({
  bench: 'device-context', metric: 'context assigns/s', value: Math.round(median(spread)), unit: 'assigns/s',
  baseline: Math.round(median(bare)), baselineName: 'the same context without the spread',
});
