#!/usr/bin/env node
// `npm run bench` runs every bench/*.ts in turn; `npm run bench -- <name>` runs one.
// Each benchmark is its own process so one's memory and JIT state cannot skew the next.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'bench');
const available = readdirSync(benchDir).filter((f) => f.endsWith('.ts') && !f.startsWith('_')).map((f) => f.slice(0, -3)).sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
// Flags (`npm run bench -- fleet --quick`) go to every benchmark run.
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(', ')} (available: ${available.join(', ')})`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : available) {
  // The same libuv pool and young generation as bin/airtwin.mjs, so benchmarks run as the CLI does.
  const env = { UV_THREADPOOL_SIZE: '16', ...process.env };
  const r = spawnSync(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', '--expose-gc', join(benchDir, `${name}.ts`), ...flags], { stdio: 'inherit', cwd: root, env });
  if (r.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
