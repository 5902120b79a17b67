import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/store/records.js';
import { FakeLink } from '../../helpers/fake-link.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * Restricted devices (docs/ERRORS.md "Restricted devices"): an AP reporting
 * capabilities.restrictions is refused rtty, DFS-overriding scans, unsigned firmware and
 * unsigned scripts before anything is sent or recorded. LOCKED is played by the test on a
 * FakeLink with rtty, dfs and upgrade locked; DEV has the same locks lifted by `developer`.
 * After a restart LOCKED's actor has not seen it connect: its stored capabilities still count.
 */

const LOCKED = 'aabbccdd0401';
const DEV = 'aabbccdd0402';
const LOCKS = { rtty: true, dfs: true, upgrade: true, country: ['US'] };

let s: TestServer;
const links = new Map<string, FakeLink>();

const history = async (serial: string) => (await s.gw('GET', `/commands?serialNumber=${serial}`)).body.commands as Command[];
const connected = async (serial: string) => ((await s.gw('GET', `/device/${serial}/status`)).body as { connected: boolean }).connected;

beforeAll(async () => {
  s = await startTestServer({ speed: 20 });
  for (const [serial, restrictions] of [[LOCKED, LOCKS], [DEV, { ...LOCKS, developer: true }]] as const) {
    expect((await s.gw('POST', `/device/${serial}`, { body: {} })).status).toBe(200);
    const link = new FakeLink(serial, () => s.running.clock.now());
    links.set(serial, link);
    s.running.fleet.attach(link);
    link.up();
    link.connect({ uuid: Math.max(1, (await s.gw('GET', `/device/${serial}`)).body.UUID as number), capabilities: { compatible: 'edgecore_eap101', platform: 'ap', restrictions } });
  }
  await until('both APs online', async () => [await connected(LOCKED), await connected(DEV)], (c) => c.every(Boolean));
}, 30_000);
afterAll(async () => s?.close());

describe('commands to a restricted AP', () => {
  it('refuses rtty and a scan overriding DFS with 403 DEVICE_RESTRICTED, sending and recording nothing', async () => {
    const rtty = expectEnvelope(await s.gw('GET', `/device/${LOCKED}/rtty`), 403);
    expect(rtty).toMatchObject({ ErrorDetails: 'rtty' });
    expect(rtty.ErrorDescription).toContain('rtty');
    expectEnvelope(await s.gw('POST', `/device/${LOCKED}/wifiscan`, { body: { serialNumber: LOCKED } }), 403);
    expectEnvelope(await s.gw('POST', `/device/${LOCKED}/wifiscan`, { body: { serialNumber: LOCKED, override_dfs: true } }), 403);
    // The generic endpoint applies the same rules.
    expectEnvelope(await s.gw('POST', `/device/${LOCKED}/command`, { body: { serialNumber: LOCKED, command: 'rtty', payload: {} } }), 403);
    expect(links.get(LOCKED)!.sent).toEqual([]);
    expect(await history(LOCKED)).toEqual([]);
  });

  it('takes a scan that leaves DFS alone', async () => {
    const link = links.get(LOCKED)!;
    const pending = s.gw('POST', `/device/${LOCKED}/wifiscan`, { body: { serialNumber: LOCKED, override_dfs: false } });
    await until('the wifiscan at the AP', async () => link.sent.length, (n) => n > 0);
    expect(link.last()).toMatchObject({ method: 'wifiscan', params: { override_dfs: false } });
    link.reply(link.last().id, { error: 0, text: 'ok', scan: [] });
    const a = await pending;
    expect(a.status, a.text).toBe(200);
    expect(a.body).toMatchObject({ command: 'wifiscan', status: 'completed' });
  });

  it('asks for a signature for firmware (400 SIGNATURE_REQUIRED) and sends a signed upgrade', async () => {
    const link = links.get(LOCKED)!;
    const before = link.sent.length;
    const e = expectEnvelope(await s.gw('POST', `/device/${LOCKED}/upgrade`, { body: { serialNumber: LOCKED, uri: 'https://fw.example/img.bin' } }), 400);
    expect(e.ErrorDetails).toBe('upgrade');
    expect(link.sent.length).toBe(before);
    const pending = s.gw('POST', `/device/${LOCKED}/upgrade?FWsignature=c2lnbmF0dXJl`, { body: { serialNumber: LOCKED, uri: 'https://fw.example/img.bin' } });
    await until('the upgrade at the AP', async () => link.sent.length, (n) => n > before);
    expect(link.last()).toMatchObject({ method: 'upgrade', params: { signature: 'c2lnbmF0dXJl' } });
    link.reply(link.last().id);
    expect((await pending).body).toMatchObject({ command: 'upgrade', status: 'completed' });
  });

  it('asks for a signature for scripts on any restricted AP', async () => {
    const e = expectEnvelope(await s.gw('POST', `/device/${LOCKED}/script`, { body: { serialNumber: LOCKED, type: 'shell', script: 'ZWNobyBoaQ==' } }), 400);
    expect(e.ErrorDescription).toContain('signature');
  });

  it('lets developer lift every lock', async () => {
    const link = links.get(DEV)!;
    const pending = s.gw('GET', `/device/${DEV}/rtty`);
    await until('the rtty at the AP', async () => link.sent.length, (n) => n > 0);
    expect(link.last().method).toBe('rtty');
    link.reply(link.last().id);
    const a = await pending;
    expect(a.status, a.text).toBe(200);
    expect(a.body).toHaveProperty('connectionId');
  });

  it('fails a command queued before the AP reported its restrictions when it would be sent, and sends nothing', async () => {
    const LATE = 'aabbccdd0403';
    expect((await s.gw('POST', `/device/${LATE}`, { body: {} })).status).toBe(200);
    // Nothing is known of LATE's restrictions yet: the unsigned upgrade queues.
    const queued = await s.gw('POST', `/device/${LATE}/upgrade`, { body: { serialNumber: LATE, uri: 'https://fw.example/img.bin' } });
    expect(queued.body).toMatchObject({ command: 'upgrade', status: 'pending' });
    const link = new FakeLink(LATE, () => s.running.clock.now());
    s.running.fleet.attach(link);
    link.up();
    link.connect({ uuid: Math.max(1, (await s.gw('GET', `/device/${LATE}`)).body.UUID as number), capabilities: { compatible: 'edgecore_eap101', platform: 'ap', restrictions: { upgrade: true } } });
    const uuid = (queued.body as Command).UUID;
    const done = await until('the queued upgrade settles', async () => (await s.gw('GET', `/command/${uuid}`)).body as Command, (c) => c.status !== 'pending');
    expect(done).toMatchObject({ status: 'failed', executed: 0 });
    expect(done.errorText).toContain('signature');
    expect(link.sent.filter((f) => f.method === 'upgrade')).toEqual([]);
  });

  it('keeps refusing after a restart, from the stored capabilities, while the AP is away', async () => {
    await until('capabilities stored', async () => (await s.gw('GET', `/device/${LOCKED}/capabilities`)).status, (st) => st === 200);
    await s.running.ingest.flush();
    await s.restart();
    expect(await connected(LOCKED)).toBe(false);
    // upgrade queues for an offline AP: the refusal comes from the stored restrictions.
    expectEnvelope(await s.gw('POST', `/device/${LOCKED}/upgrade`, { body: { serialNumber: LOCKED, uri: 'https://fw.example/img.bin' } }), 400);
    const queued = await s.gw('POST', `/device/${LOCKED}/upgrade`, { body: { serialNumber: LOCKED, uri: 'https://fw.example/img.bin', signature: 'c2ln' } });
    expect(queued.status, queued.text).toBe(200);
    expect(queued.body).toMatchObject({ command: 'upgrade', status: 'pending' });
  }, 30_000);
});
