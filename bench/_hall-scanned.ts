/**
 * The `hall` venue (200 APs) under `serve` at --speed 20, run until every AP has a stored state
 * and a stored scan (its own periodic scans), for the benches that time RRM work on it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SERVE_DEFAULTS } from '../src/config/schema.js';
import { startServe, type RunningServe } from '../src/runtime/serve.js';

export interface ScannedHall {
  serve: RunningServe;
  dataDir: string;
  serials: string[];
  /** Wall ms when the venue started. */
  began: number;
}

export async function startScannedHall(name: string, apiTokens?: string[]): Promise<ScannedHall> {
  const dataDir = mkdtempSync(join(tmpdir(), `airtwin-bench-${name}-`));
  const silent = new Writable({ write: (_c, _e, cb) => cb() });
  const serve = await startServe(
    { ...SERVE_DEFAULTS, dataDir, gatewayPort: 0, rrmPort: 0, scenario: 'hall', speed: 20, logLevel: 'silent', ...(apiTokens ? { apiTokens } : {}) },
    { print: () => undefined, logDestination: silent },
  );
  const serials = serve.sim!.venue.aps.map((a) => a.serial);
  const began = Date.now();
  for (;;) {
    await serve.ingest.flush();
    const [st] = await serve.store.query<{ n: number }>('SELECT count(DISTINCT serial)::INTEGER AS n FROM statistics');
    const [sc] = await serve.store.query<{ n: number }>('SELECT count(DISTINCT serial)::INTEGER AS n FROM wifi_scan_entries');
    if (st!.n >= serials.length && sc!.n >= serials.length) break;
    if (Date.now() - began > 180_000) {
      await serve.close();
      throw new Error(`after 3 minutes: ${st!.n} APs with a state, ${sc!.n} with a scan`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { serve, dataDir, serials, began };
}
