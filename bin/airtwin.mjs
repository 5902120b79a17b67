#!/usr/bin/env -S node --max-semi-space-size=64
// Runs the TypeScript sources through tsx's loader, so `npm ci && npm start` needs no build step.

// libuv's pool (4 threads by default) runs DuckDB statements, file reads and gzip alike: ingest
// inserts on the eight inserter connections would hold it and stall a replay's file reads or an
// API query. Set before anything uses the pool, hence before the imports below.
process.env.UV_THREADPOOL_SIZE ??= '16';
// Every frame allocates a parsed document that dies young: a 64 MiB young generation (V8's
// default is 16) scavenges a quarter as often and promotes less. V8 sizes its heap before any
// code runs (v8.setFlagsFromString here would be ignored), so the flag is on the shebang line
// (`npx airtwin`, ./bin/airtwin.mjs) and in package.json's start script.
// tsx keeps its compile cache under TMPDIR: one that is a file made every command, `--help`
// too, die with a stack trace from inside tsx. Say what is wrong instead.
const { statSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
try {
  if (!statSync(tmpdir()).isDirectory()) {
    process.stderr.write(`airtwin: TMPDIR ${tmpdir()} is not a folder; set TMPDIR to a folder (or unset it)\n`);
    process.exit(1);
  }
} catch {
  // Missing: tsx makes it.
}
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/index.ts');
