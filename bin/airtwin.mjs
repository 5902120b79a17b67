#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so `npm ci && npm start` needs no build step.
// libuv's pool (4 threads by default) runs DuckDB statements, file reads and gzip alike: ingest
// commits on the eight appender connections would hold it and stall a replay's file reads or an
// API query. Set before anything uses the pool, hence before the imports below.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli.ts');
