import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetEvent } from '../../../actors/fleet.js';
import { clockScheduler } from '../../../src/pipelines/clock-scheduler.js';
import type { PipelineLogger } from '../../../src/pipelines/duckdb-sink.js';
import { startIngest } from '../../../src/pipelines/ingest.js';
import { LatestDocuments } from '../../../src/rrm/latest-documents.js';
import { buildModel } from '../../../src/rrm/model/build.js';
import { deviceDocuments } from '../../../src/rrm/model-query.js';
import { Store } from '../../../src/store/duckdb.js';
import { labFleet } from '../../helpers/lab-fleet.js';

const quiet: PipelineLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openStore(): Promise<Store> {
  const d = mkdtempSync(join(tmpdir(), 'airtwin-latest-'));
  dirs.push(d);
  const store = await Store.open(d);
  stores.push(store);
  return store;
}

/** The lab venue with the ingest and an in-memory copy subscribed before any AP connects; every AP scanned twice. */
async function scannedLab() {
  const store = await openStore();
  let ingest!: ReturnType<typeof startIngest>;
  let latest!: LatestDocuments;
  const lab = labFleet({
    beforeAttach: (f, c) => {
      ingest = startIngest({ events$: f.events$, store, scheduler: clockScheduler(c), logger: quiet });
      latest = new LatestDocuments(f.events$);
    },
  });
  await lab.advance(60_000);
  for (let round = 0; round < 2; round++) {
    for (const s of lab.serials) await lab.settle(lab.svc.wifiscan(s, { serialNumber: s, verbose: true }));
    await lab.advance(30_000);
  }
  await ingest.flush();
  return { ...lab, store, ingest, latest };
}

describe('LatestDocuments: a run model from memory', () => {
  it('builds the same model as the newest state and scan read from DuckDB, without reading them', async () => {
    const { store, latest, serials, events } = await scannedLab();
    expect(events.filter((e) => e.type === 'wifiscan-result').length).toBeGreaterThanOrEqual(2 * serials.length);
    const fromStore = buildModel(await deviceDocuments(store, serials, 1));
    expect(Object.keys(fromStore.latestWifiScans).sort()).toEqual([...serials].sort());
    expect(Object.keys(fromStore.latestStates).sort()).toEqual([...serials].sort());
    expect(buildModel(await latest.documents(store, serials))).toEqual(fromStore);

    // With the stored states and scans gone, the memory still has them: it did not read them.
    await store.query('DELETE FROM wifi_scan_entries');
    await store.query('DELETE FROM statistics');
    expect(buildModel(await latest.documents(store, serials))).toEqual(fromStore);
    latest.stop();
  });

  it('reads from DuckDB what it has not seen since it started, and keeps a scan with a usable entry', async () => {
    const { store, serials } = await scannedLab();
    const fromStore = buildModel(await deviceDocuments(store, serials, 1));
    const events$ = new Subject<FleetEvent>();
    const late = new LatestDocuments(events$);
    // Nothing seen: everything comes from the store.
    expect(buildModel(await late.documents(store, serials))).toEqual(fromStore);
    // A scan of nothing the builder can use does not hide the stored one.
    events$.next({ serial: serials[0]!, at: Date.now(), type: 'wifiscan-result', payload: { source: 'notification', entries: [{ bssid: 'x' }] } });
    expect(buildModel(await late.documents(store, serials))).toEqual(fromStore);
    // A new usable scan of one AP replaces its stored one; the others still come from the store.
    const at = Date.parse('2031-01-01T00:00:00.700Z');
    const entry = { bssid: '02:00:00:00:00:01', ssid: 'n', frequency: 2437, channel: 6, signal: -50 };
    events$.next({ serial: serials[0]!, at, type: 'wifiscan-result', payload: { source: 'notification', entries: [entry] } });
    const mixed = buildModel(await late.documents(store, serials));
    expect(mixed.latestWifiScans[serials[0]!]).toEqual([[expect.objectContaining({ ...entry, unixTimeMs: Date.parse('2031-01-01T00:00:00Z') })]]);
    for (const s of serials.slice(1)) expect(mixed.latestWifiScans[s]).toEqual(fromStore.latestWifiScans[s]);
    expect(mixed.latestStates).toEqual(fromStore.latestStates);
    late.stop();
  });
});
