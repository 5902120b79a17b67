import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/store/records.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/** GET rtty with the rtty server configured (--rtty-server/-port/-viewport/-timeout/-token). */

const A1 = 'a0b1c2000001';
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    sim: true, scenario: 'lab', speed: 20,
    rttyServer: 'rtty.example.net', rttyPort: 6000, rttyViewport: 6001, rttyTimeout: 90, rttyToken: 'shared-rtty-token',
  });
  await until(`${A1} online`, async () => ((await s.gw('GET', `/device/${A1}/status`)).body as { connected: boolean }).connected, Boolean);
}, 30_000);
afterAll(async () => s?.close());

describe('GET rtty with a configured rtty server', () => {
  it('points the AP and the session at the configured server, ports, timeout and token', async () => {
    const r = await s.gw('GET', `/device/${A1}/rtty`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ server: 'rtty.example.net', port: 6000, viewport: 6001, timeout: 90, token: 'shared-rtty-token' });
    const commands = (await s.gw('GET', `/commands?serialNumber=${A1}`)).body.commands as Command[];
    const sent = commands.find((c) => c.UUID === r.body.commandUUID);
    expect(JSON.parse(sent!.details)).toMatchObject({ server: 'rtty.example.net', port: 6000, timeout: 90, token: 'shared-rtty-token' });
  });
});
