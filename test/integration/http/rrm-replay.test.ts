import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIOS_DIR } from '../../../simulator/scenario.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * The RRM model comes only from what APs report: an optimisation on a replayed
 * recording equals the one on the live run it was recorded from. The live `lab` venue runs at
 * full speed with `--record`; every AP scans through the gateway API; seeded mock runs are
 * taken and the server closes. `serve --replay` of that file into a fresh data dir, with the
 * same topology, gives the same plans.
 */

const dir = mkdtempSync(join(tmpdir(), 'airtwin-rrm-replay-'));
const file = join(dir, 'lab.ndjson');
const SERIALS = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];
const RUNS = [
  'algorithm=OptimizeChannel&args=mode=least_used,seed=7',
  'algorithm=OptimizeChannel&args=mode=unmanaged_aware,seed=7',
  'algorithm=OptimizeTxPower&args=mode=measure_ap_ap,seed=7',
];
// The collector stays quiet and so do the APs (no periodic scans of their own): the recording
// holds only the scans asked for here, and the live run's model is the recording's last one.
const quiet = { rrmWifiScanInterval: 0, rrmCollectInterval: 1_000_000 };
const quietLab = join(dir, 'lab-quiet.yaml');
writeFileSync(quietLab, readFileSync(join(SCENARIOS_DIR, 'lab.yaml'), 'utf8').replace(/^ {2}wifiscan: \d+/m, '  wifiscan: 0'));

async function plans(s: TestServer): Promise<unknown[]> {
  expect((await s.rrm('POST', '/setTopology', { body: { lab: SERIALS } })).status).toBe(200);
  const out: unknown[] = [];
  for (const q of RUNS) {
    const r = await s.rrm('PUT', `/runRRM?venue=lab&mock=true&${q}`);
    expect(r.status, r.text).toBe(200);
    // The plan and its CCI come from the scans, which the recording holds as they were; the
    // power figures read the clients of the newest state, which the live run took mid-recording.
    const { score, ...plan } = r.body as { score: { before: Record<string, unknown>; after: Record<string, unknown> } };
    const cci = (x: Record<string, unknown>) => ({ cci_mw: x.cci_mw, conflictEdges: x.conflictEdges, churn: x.churn });
    out.push({ ...plan, cci: [cci(score.before), cci(score.after)] });
  }
  return out;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('RRM on a replayed recording', () => {
  it('gives the same plans as on the live run it was recorded from', async () => {
    const live = await startTestServer({ sim: true, scenario: quietLab, speed: 'max', record: file, dataDir: join(dir, 'live'), ...quiet });
    let livePlans: unknown[];
    try {
      await until('APs online', async () => Promise.all(SERIALS.map(async (x) => (await live.gw('GET', `/device/${x}/status`)).body.connected)), (v) => v.every(Boolean));
      for (const x of SERIALS) {
        const w = await live.gw('POST', `/device/${x}/wifiscan`, { body: { serialNumber: x, verbose: true } });
        expect(w.body.status, w.text).toBe('completed');
      }
      await live.running.ingest.flush();
      livePlans = await plans(live);
    } finally {
      await live.close();
    }
    expect(Object.keys((livePlans[0] as { channelMap: object }).channelMap).sort()).toEqual(SERIALS);

    const replay = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'replayed'), ...quiet });
    try {
      const summary = await replay.running.replay!.done;
      expect([summary.rejectedCount, summary.dropped]).toEqual([0, 0]);
      await replay.running.ingest.flush();
      expect(await plans(replay)).toEqual(livePlans);
    } finally {
      await replay.close();
    }
  }, 60_000);

  it('asks no replayed AP for scans, and refuses an API command to one (409) with no record', async () => {
    // The recording without the disconnects of the live server's shutdown: the APs stay connected.
    const open = join(dir, 'open.ndjson');
    writeFileSync(open, readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes('"event":"disconnect"')).join('\n'));
    const replay = await startTestServer({ sim: false, replay: open, speed: 'max', dataDir: join(dir, 'open-data'), ...quiet });
    try {
      await replay.running.replay!.done;
      expect(SERIALS.every((x) => replay.running.fleet.status(x)?.connected === true)).toBe(true);
      expect((await replay.rrm('POST', '/setTopology', { body: { lab: SERIALS } })).status).toBe(200);
      for (const x of SERIALS) expect((await replay.rrm('POST', `/setDeviceApConfig?serial=${x}`, { body: { enableWifiScan: true } })).status).toBe(200);
      // Connected, in a zone, scans on, never scanned: each would be due. A scan could only fail
      // and fill the history with a failed `rrm` wifiscan per AP and interval.
      expect(replay.running.rrmService.collector.tick()).toEqual({ wifiScan: [], capabilities: [] });
      const before = (await replay.gw('GET', `/commands?serialNumber=${SERIALS[0]}`)).body.commands.length;
      const led = await replay.gw('POST', `/device/${SERIALS[0]}/leds`, { body: { serialNumber: SERIALS[0], pattern: 'on', duration: 10 } });
      expect(led.status, led.text).toBe(409);
      expect(led.body.ErrorDescription).toMatch(/replayed from a recording/);
      expect((await replay.gw('GET', `/commands?serialNumber=${SERIALS[0]}`)).body.commands.length).toBe(before);

      // An applied run writes the layers and says that it sent nothing to these APs, and why.
      const run = await replay.rrm('GET', '/optimizeTxPower?mode=random&zone=lab');
      expect(run.status, run.text).toBe(200);
      expect(Object.keys(run.body.data).length).toBeGreaterThan(0);
      expect(Object.keys(run.body.notPushed).sort()).toEqual(Object.keys(run.body.data).sort());
      for (const why of Object.values(run.body.notPushed)) expect(why).toMatch(/^replayed from a recording/);
      await replay.running.rrmService.applier.settled();
      expect((await replay.gw('GET', `/commands?serialNumber=${SERIALS[0]}`)).body.commands.length).toBe(before);
      const dry = await replay.rrm('PUT', '/runRRM?venue=lab&mock=true&algorithm=OptimizeChannel&args=mode=random');
      expect(dry.body).not.toHaveProperty('notPushed');
    } finally {
      await replay.close();
    }
  }, 60_000);
});
