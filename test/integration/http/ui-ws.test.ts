import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * GET /api/v1/ws, the OpenWiFi UI's notification socket, end to end on the
 * `lab` venue at 20x: no header on the upgrade, the token as first frame, the notification types,
 * a serial search, and notifications live from the fleet (a rebooting AP disconnects, connects
 * and reports statistics). The same on both wires.
 */

const A2 = 'a0b1c2000002';
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ wire: 'openwifi', sim: true, scenario: 'lab', speed: 20 });
  await until('lab online', async () => (await s.gw('GET', '/devices?connectionStatistics=true')).body, (b) => b.connectedDevices === 3);
}, 60_000);
afterAll(async () => s?.close());

function open(): { ws: WebSocket; messages: Record<string, any>[]; opened: Promise<void>; closed: Promise<number>; next: (pred: (m: Record<string, any>) => boolean) => Promise<Record<string, any>> } {
  const ws = new WebSocket(`${s.running.gatewayUrl.replace('http', 'ws')}/api/v1/ws`);
  const messages: Record<string, any>[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const opened = new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = (pred: (m: Record<string, any>) => boolean) => until('a message', async () => messages.find(pred), (m) => m !== undefined) as Promise<Record<string, any>>;
  return { ws, messages, opened, closed, next };
}

describe('GET /api/v1/ws', () => {
  it('opens without a header, welcomes a token frame, searches serials and relays the fleet', async () => {
    const c = open();
    await c.opened;
    c.ws.send(`token:${ADMIN_TOKEN}`);
    const welcome = await c.next((m) => m.success !== undefined);
    expect(welcome.notificationTypes.map((t: { id: number }) => t.id)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    c.ws.send(JSON.stringify({ command: 'serial_number_search', serial_prefix: 'a0b1c20000', id: 1 }));
    expect((await c.next((m) => m.serialNumbers !== undefined)).serialNumbers).toEqual(['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003']);
    expect((await s.gw('POST', `/device/${A2}/reboot`)).status).toBe(200);
    const down = await c.next((m) => m.notification?.type_id === 5000);
    expect(down.notification).toEqual({ notification_id: expect.any(Number), type_id: 5000, content: { serialNumber: A2 } });
    expect((await c.next((m) => m.notification?.type_id === 4000 && m.notification.content.serialNumber === A2)).notification.notification_id)
      .toBeGreaterThan(down.notification.notification_id);
    await c.next((m) => m.notification?.type_id === 6000);
    const stats = await c.next((m) => m.notification?.type_id === 1000);
    expect(stats.notification.content).toEqual({
      numberOfDevices: expect.any(Number), averageConnectedTime: expect.any(Number), numberOfConnectingDevices: expect.any(Number), rx: expect.any(Number), tx: expect.any(Number),
    });
    c.ws.send(JSON.stringify({ command: 'exit' }));
    expect(await c.closed).toBe(1000);
  });

  it('closes with 1008 after an error frame when the first frame is not a good token', async () => {
    for (const first of ['token:not-a-token', JSON.stringify({ command: 'serial_number_search', serial_prefix: 'a0' })]) {
      const c = open();
      await c.opened;
      c.ws.send(first);
      expect(await c.closed).toBe(1008);
      expect(c.messages).toEqual([{ error: 'Invalid token. Closing connection.' }]);
    }
  });
});
