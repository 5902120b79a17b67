import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/store/records.js';
import { startTestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

const A2 = 'a0b1c2000002';

describe('uploads are recorded and replayed like other traffic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-upload-rr-'));
  const file = join(dir, 'lab.ndjson');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serve --record keeps the uploaded capture; serve --replay has the replayed trace complete with the same file', async () => {
    const live = await startTestServer({ sim: true, scenario: 'lab', speed: 20, record: file, dataDir: join(dir, 'live') });
    let capture: Buffer;
    try {
      await until('A2 online', async () => (await live.gw('GET', `/device/${A2}/status`)).body as { connected: boolean }, (st) => st.connected);
      const trace = await live.gw<Command>('POST', `/device/${A2}/trace`, { body: { network: 'up', duration: 1 } });
      expect(trace.body).toMatchObject({ status: 'completed', attachType: 'pcap' });
      const res = await fetch(`${live.running.gatewayUrl}/api/v1/file/${trace.body.UUID}?serialNumber=${A2}`, { headers: { authorization: 'Bearer test-admin-token-0001' } });
      capture = Buffer.from(await res.arrayBuffer());
    } finally {
      await live.close();
    }
    const uploads = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.upload);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ serial: A2, upload: { type: 'pcap' } });
    expect(Buffer.from(uploads[0]!.upload.data_64 as string, 'base64').equals(capture)).toBe(true);

    const replay = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'replayed') });
    try {
      const summary = await replay.running.replay!.done;
      expect([summary.rejectedCount, summary.unmatchedCount]).toEqual([0, 0]);
      const traces = await until('the replayed trace completed', async () => ((await replay.gw<{ commands: Command[] }>('GET', `/commands?serialNumber=${A2}`)).body.commands ?? [])
        .filter((c) => c.command === 'trace'), (t) => t.length === 1 && t[0]!.status === 'completed');
      expect(traces[0]).toMatchObject({ submittedBy: 'replay', waitingForFile: 0, attachType: 'pcap', attachSize: capture.length });
      const res = await fetch(`${replay.running.gatewayUrl}/api/v1/file/${traces[0]!.UUID}?serialNumber=${A2}`, { headers: { authorization: 'Bearer test-admin-token-0001' } });
      expect(Buffer.from(await res.arrayBuffer()).equals(capture)).toBe(true);
    } finally {
      await replay.close();
    }
  }, 60_000);
});
