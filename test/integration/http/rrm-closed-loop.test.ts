import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * The RRM closed loop through `serve`: a seeded venue of 8 APs that all
 * start on 5 GHz channel 36 at 20 MHz, run 20x faster than wall time. The RRM's collector scans
 * every AP (30 s venue time apart); `optimizeChannel mode=least_used` is applied (AP layers,
 * then configure commands); the simulated radios really move, the next scans show it, the
 * co-channel interference measured from the scans drops. No churn: a second run of the same mode
 * on the new scans keeps every channel and pushes nothing, for `least_used` (which, unlike
 * upstream, counts the moves it already decided in the run: docs/rrm.md) and `unmanaged_aware`.
 * A zone schedule then fires on the accelerated clock.
 */

const dir = mkdtempSync(join(tmpdir(), 'airtwin-rrm-loop-'));
const SERIALS = Array.from({ length: 8 }, (_, i) => `c0ffee0000${String(i + 1).padStart(2, '0')}`);
const ZONE = 'floor1';

/**
 * 8 APs 6 m apart on an open floor, 5 GHz only, every one on channel 36 at 20 MHz: every AP
 * hears every other above -82 dBm, so each pair on one channel counts in the interference.
 */
const SCENARIO = `
name: rrm-loop
seed: 11
start: "2026-01-05T08:00:00Z"
country: US
intervals: { state: 10, healthcheck: 60, log: 0, wifiscan: 0, roam: 60 }
building:
  floorHeight: 3.5
  shadowing: { sigma: 0, decorrelation: 8 }
  floors:
    - { width: 30, depth: 15 }
ssids:
  - { name: loop, bands: [5G] }
aps:
${SERIALS.map((s, i) => `  - serial: "${s}"
    model: edgecore_eap101
    floor: 0
    at: [${4 + 6 * (i % 4)}, ${4 + 6 * Math.floor(i / 4)}]
    radios:
      - { band: 5G, channel: 36, width: 20, txPower: 20 }`).join('\n')}
`;

let s: TestServer;

interface ScanEntry { bssid: string; channel: number; signal: number }
interface Model {
  latestWifiScans: Record<string, ScanEntry[][]>;
  latestStates: Record<string, { radios: { channel: number }[]; interfaces?: { ssids?: { bssid?: string }[] }[] }[]>;
}

const model = async () => (await s.rrm('GET', '/currentModel')).body as Model;

/** serial -> newest scan time (ms) stored for it. */
async function lastScanAt(): Promise<Map<string, number>> {
  await s.running.ingest.flush();
  const rows = await s.running.store.query<{ serial: string; t: number }>('SELECT serial, max(recorded) * 1000 AS t FROM wifi_scan_entries GROUP BY serial');
  return new Map(rows.map((r) => [r.serial, r.t]));
}

/** Waits until every AP has a scan taken after `t` (venue ms) in the store. */
const scannedAfter = (t: number) => until(`scans after ${t}`, lastScanAt, (m) => SERIALS.every((x) => (m.get(x) ?? 0) > t), 30_000);

/**
 * Co-channel interference from the scans: over ordered pairs of managed APs where
 * the scanning AP's channel equals the heard AP's channel, received power above -82 dBm, in mW.
 */
function interferenceMw(m: Model): number {
  const owner = new Map<string, string>();
  for (const serial of SERIALS) {
    for (const itf of m.latestStates[serial]?.at(-1)?.interfaces ?? []) for (const ssid of itf.ssids ?? []) if (ssid.bssid) owner.set(ssid.bssid, serial);
  }
  let total = 0;
  for (const serial of SERIALS) {
    const own = m.latestStates[serial]!.at(-1)!.radios[0]!.channel;
    const heard = new Map<string, number>();
    for (const e of m.latestWifiScans[serial]?.at(-1) ?? []) {
      const other = owner.get(e.bssid);
      if (!other || other === serial || e.channel !== own || e.signal <= -82) continue;
      heard.set(other, Math.max(heard.get(other) ?? -Infinity, e.signal));
    }
    for (const dbm of heard.values()) total += 10 ** (dbm / 10);
  }
  return total;
}

/**
 * Applies one channel optimisation, waits until the simulated radios run the plan and every AP
 * has scanned again, and returns the plan and the interference the new scans show.
 */
interface Score { cci_mw: number; churn: number; conflictEdges: number }
interface RunView { zone: string; applied: boolean; score: { before: Score; after: Score }; measured: Score | null }
let lastAnswer: { score: { before: Score; after: Score } };

async function applyAndRescan(mode: string): Promise<{ plan: Record<string, { '5G': number }>; after: number }> {
  const r = await s.rrm('GET', `/optimizeChannel?mode=${mode}&zone=${ZONE}`);
  expect(r.status, r.text).toBe(200);
  lastAnswer = r.body as typeof lastAnswer;
  const plan = r.body.data as Record<string, { '5G': number }>;
  await until('radios on the planned channels', async () => Object.fromEntries(simChannels()), (ch) => Object.entries(plan).every(([x, b]) => ch[x] === b['5G']));
  await scannedAfter(s.running.clock.now() + 1000);
  const m = await until('states on the new channels', model, (mm) => Object.entries(plan).every(([x, b]) => mm.latestStates[x]!.at(-1)!.radios[0]!.channel === b['5G']));
  return { plan, after: interferenceMw(m) };
}

const simChannels = () => new Map(s.running.sim!.venue.aps.map((ap) => [ap.serial, ap.radios[0]!.channel]));

beforeAll(async () => {
  const file = join(dir, 'rrm-loop.yaml');
  writeFileSync(file, SCENARIO);
  s = await startTestServer({ sim: true, scenario: file, speed: 20, rrmCollectInterval: 2, rrmWifiScanInterval: 30, rrmConfigDebounce: 30 });
  await until('APs online', async () => Promise.all(SERIALS.map(async (x) => (await s.gw('GET', `/device/${x}/status`)).body.connected)), (v) => v.every(Boolean));
  expect((await s.rrm('POST', '/setTopology', { body: { [ZONE]: SERIALS } })).status).toBe(200);
}, 30_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RRM closed loop on a simulated venue', () => {
  it('the collector scans every zone member with commands submitted by the RRM', async () => {
    await scannedAfter(0);
    const cmds = (await s.gw('GET', `/commands?serialNumber=${SERIALS[0]}`)).body.commands as { command: string; submittedBy: string }[];
    expect(cmds.some((c) => c.command === 'wifiscan' && c.submittedBy === 'rrm')).toBe(true);
    const m = await until('a state of every AP', model, (mm) => SERIALS.every((x) => mm.latestStates[x] !== undefined));
    for (const x of SERIALS) expect(m.latestStates[x]!.at(-1)!.radios[0]!.channel).toBe(36);
  }, 40_000);

  it('least_used applied: radios move, the configure changes only the channel, interference from the new scans drops', async () => {
    const before = interferenceMw(await model());
    expect(before).toBeGreaterThan(0);
    const { plan, after } = await applyAndRescan('least_used');
    const moved = SERIALS.filter((x) => plan[x] && plan[x]['5G'] !== 36);
    expect(moved.length).toBeGreaterThan(0);
    const layers = (await s.rrm('GET', '/getDeviceLayeredConfig')).body;
    for (const x of Object.keys(plan)) expect(layers.apConfig[x].autoChannels).toEqual(plan[x]);
    const cmd = (await s.gw('GET', `/commands?serialNumber=${moved[0]}`)).body.commands.find((c: { command: string }) => c.command === 'configure');
    expect(cmd).toMatchObject({ submittedBy: 'rrm', status: 'completed' });
    const sent = JSON.parse(cmd.details).config as { radios: Record<string, unknown>[] };
    expect(sent.radios).toEqual([{ band: '5G', channel: plan[moved[0]!]!['5G'], 'channel-width': 20, 'tx-power': 20, country: 'US' }]);
    expect(after).toBeLessThan(before);
    // the answer's score, and the run kept with it; the measured effect follows the next scans
    expect(lastAnswer.score.before.cci_mw).toBeGreaterThan(lastAnswer.score.after.cci_mw);
    expect(lastAnswer.score.after.churn).toBe(moved.length);
    const runs = await until('the run measured', async () => (await s.rrm('GET', `/runs?zone=${ZONE}`)).body as RunView[], (r) => r[0]?.measured != null, 30_000);
    expect(runs[0]).toMatchObject({ zone: ZONE, algorithm: 'OptimizeChannel', mode: 'least_used', applied: true, dryRun: false });
    expect(runs[0]!.score).toEqual(lastAnswer.score);
    // the simulated venue has no shadowing here, so what the new scans show is what was predicted
    expect(runs[0]!.measured!.cci_mw).toBeLessThan(runs[0]!.score.before.cci_mw);
    expect((await s.rrm('GET', '/runs?zone=nowhere')).body).toEqual([]);
  }, 60_000);

  it('no churn: after least_used is applied, a second least_used run on the new scans keeps every channel and pushes nothing', async () => {
    const again = await s.rrm('GET', `/optimizeChannel?mode=least_used&zone=${ZONE}`);
    expect(again.status, again.text).toBe(200);
    const channels = simChannels();
    const data = again.body.data as Record<string, { '5G': number }>;
    expect(Object.keys(data).sort()).toEqual([...SERIALS].sort());
    for (const [x, b] of Object.entries(data)) expect(b['5G']).toBe(channels.get(x));
    expect((await s.running.rrmService.store.runs(1))[0]!.pushed).toEqual([]);
  }, 40_000);

  it('no churn: after unmanaged_aware is applied, a second run on the new scans keeps every channel and pushes nothing', async () => {
    const before = interferenceMw(await model());
    const { after } = await applyAndRescan('unmanaged_aware');
    expect(after).toBeLessThanOrEqual(before);
    const again = await s.rrm('GET', `/optimizeChannel?mode=unmanaged_aware&zone=${ZONE}`);
    const channels = simChannels();
    for (const [x, b] of Object.entries(again.body.data as Record<string, { '5G': number }>)) expect(b['5G']).toBe(channels.get(x));
    expect((await s.running.rrmService.store.runs(1))[0]!.pushed).toEqual([]);
  }, 40_000);

  it('a zone schedule fires on the accelerated clock and records scheduler runs', async () => {
    const schedule = { crons: ['*/20 * * * * *'], algorithms: [{ name: 'OptimizeChannel', args: { mode: 'least_used' } }] };
    expect((await s.rrm('POST', `/setDeviceZoneConfig?zone=${ZONE}`, { body: { schedule } })).status).toBe(200);
    await until('two scheduled passes', async () => s.running.rrmService.scheduler.fired.get(ZONE) ?? 0, (n) => n >= 2, 20_000);
    const runs = await s.running.rrmService.store.runs(5);
    expect(runs.some((x) => x.source === 'scheduler' && x.algorithm === 'OptimizeChannel' && x.mode === 'least_used')).toBe(true);
    await s.rrm('POST', `/setDeviceZoneConfig?zone=${ZONE}`);
  }, 30_000);
});
