import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * The RRM's background work through `serve` on the `lab` venue at 20x: the collector scans only
 * zone members with effective enableWifiScan, and the scheduler runs each zone's schedule (a
 * network schedule applies to every zone) on the accelerated clock and stops when it is removed.
 */

const A1 = 'a0b1c2000001';
const A2 = 'a0b1c2000002';
const A3 = 'a0b1c2000003';
let s: TestServer;

const rrmScans = async (serial: string) => ((await s.gw('GET', `/commands?serialNumber=${serial}`)).body.commands as { command: string; submittedBy: string }[])
  .filter((c) => c.command === 'wifiscan' && c.submittedBy === 'rrm').length;

/** A bound on each wait, wide enough for a loaded 2-core machine (the venue runs at 20x wall time). */
const WAIT_MS = 60_000;

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20, rrmCollectInterval: 2, rrmWifiScanInterval: 20 });
  await until('APs online', async () => Promise.all([A1, A2, A3].map(async (x) => (await s.gw('GET', `/device/${x}/status`)).body.connected)), (v) => v.every(Boolean), WAIT_MS);
}, 2 * WAIT_MS);
afterAll(async () => s?.close());

describe('RRM background work', () => {
  it('scans only zone members with enableWifiScan, again after the interval', async () => {
    // Off for the network first, so A3 is never due, then on for A1 and A2 in their AP layers.
    expect((await s.rrm('POST', '/setDeviceNetworkConfig', { body: { enableWifiScan: false } })).status).toBe(200);
    expect((await s.rrm('POST', '/setTopology', { body: { a: [A1, A3], b: [A2] } })).status).toBe(200);
    const [a1, a2] = await Promise.all([rrmScans(A1), rrmScans(A2)]);
    for (const x of [A1, A2]) expect((await s.rrm('POST', `/setDeviceApConfig?serial=${x}`, { body: { enableWifiScan: true } })).status).toBe(200);
    await until('two RRM scans of A1 and A2', async () => Promise.all([rrmScans(A1), rrmScans(A2)]), ([a, b]) => a >= a1 + 2 && b >= a2 + 2, WAIT_MS);
    // A3 is in zone a but has enableWifiScan off: it is not scanned while A1 and A2 are, again.
    const a3 = await rrmScans(A3);
    await until('a third RRM scan of A1 and A2', async () => Promise.all([rrmScans(A1), rrmScans(A2)]), ([a, b]) => a >= a1 + 3 && b >= a2 + 3, WAIT_MS);
    expect(await rrmScans(A3)).toBe(a3);
    expect(a3).toBe(0);
  }, 3 * WAIT_MS);

  it('a network schedule fires in every zone on the accelerated clock, and stops when removed', async () => {
    const schedule = { cron: '*/30 * * * * *', algorithms: [{ name: 'OptimizeTxPower', args: { mode: 'measure_ap_ap' } }] };
    expect((await s.rrm('POST', '/setDeviceNetworkConfig', { body: { schedule } })).status).toBe(200);
    const fired = s.running.rrmService.scheduler.fired;
    await until('both zones fired twice', async () => [fired.get('a') ?? 0, fired.get('b') ?? 0], ([a, b]) => a! >= 2 && b! >= 2, WAIT_MS);
    const runs = await s.running.rrmService.store.runs(20);
    expect(new Set(runs.filter((r) => r.source === 'scheduler').map((r) => `${r.zone}:${r.algorithm}:${r.mode}`))).toEqual(new Set(['a:OptimizeTxPower:measure_ap_ap', 'b:OptimizeTxPower:measure_ap_ap']));

    expect((await s.rrm('POST', '/setDeviceNetworkConfig')).status).toBe(200);
    // A pass that fired before the removal counts when it ends.
    const scheduler = s.running.rrmService.scheduler as unknown as { running: Set<string> };
    await until('no scheduled pass under way', async () => scheduler.running.size, (n) => n === 0);
    const stopped = [fired.get('a'), fired.get('b')];
    // 60 s of venue time: two fire times pass without a run.
    const clock = s.running.clock;
    const from = clock.now();
    await until('60 s of venue time', async () => clock.now() - from, (ms) => ms >= 60_000, WAIT_MS);
    await until('no scheduled pass under way', async () => scheduler.running.size, (n) => n === 0);
    expect([fired.get('a'), fired.get('b')]).toEqual(stopped);
  }, 4 * WAIT_MS);
});
