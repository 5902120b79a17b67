/**
 * Simulator throughput: 24 simulated hours of the dense `hall` venue (200 APs, ~2,000 stations)
 * at --speed max. Counts every up frame generated and serialised into its recording line (the
 * full `simulate` path minus the disk write), reports frames/s, wall time and peak RSS.
 * No baseline exists for this one (target >= 20,000 frames/s on one core, docs/performance.md).
 */
import { resourceUsage } from 'node:process';
import { loadScenario } from '../simulator/scenario.js';
import { startRun } from '../simulator/run.js';
import { report } from './_report.js';

const HOURS = Number(process.env.SIM_BENCH_HOURS ?? 24);
const { scenario } = loadScenario('hall');
console.log(`simulator: ${HOURS} simulated hours of '${scenario.name}' (seed ${scenario.seed}) at --speed max`);

// Warm-up: 10 simulated minutes of the small office, so the JIT has seen the hot paths.
{
  const warm = startRun({ scenario: loadScenario('default').scenario, onLine: () => undefined });
  warm.clock.runUntil(warm.startMs + 10 * 60_000);
}

let bytes = 0;
let lines = 0;
const run = startRun({ scenario, onLine: (l) => { bytes += l.length + 1; lines++; } });
const end = run.startMs + HOURS * 3_600_000;
let peakRss = process.memoryUsage().rss;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let t = run.startMs; t < end;) {
  t = Math.min(end, t + 600_000);
  run.clock.runUntil(t);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
const frames = run.frames();
const fps = frames / (wallMs / 1000);
peakRss = Math.max(peakRss, resourceUsage().maxRSS * 1024);
console.log(`  devices ${run.venue.aps.length}, stations ${run.venue.clients.length}, recording lines ${lines}, ${(bytes / 1e6).toFixed(1)} MB of NDJSON`);
console.log(`  frames ${frames} in ${(wallMs / 1000).toFixed(2)} s wall -> ${Math.round(fps)} frames/s; peak RSS ${(peakRss / 1048576).toFixed(0)} MiB`);
// On a shared machine wall time includes waiting for a core; CPU time shows the one-core rate.
console.log(`  CPU time ${cpuS.toFixed(2)} s -> ${Math.round(frames / cpuS)} frames per CPU-second (the JSON line reports the wall figure)`);
report({ bench: 'simulator', metric: 'frames/s', value: Math.round(fps), unit: 'frames/s', baseline: null, baselineName: null });
