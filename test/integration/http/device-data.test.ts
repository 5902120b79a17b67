import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceDataRepo } from '../../../src/store/device-data-repo.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
let data: DeviceDataRepo;
const A = 'aabbccdd0101';
const B = 'aabbccdd0102';
const EMPTY = 'aabbccdd0103';

beforeAll(async () => {
  s = await startTestServer();
  data = new DeviceDataRepo(s.running.store);
  for (const serial of [A, B, EMPTY]) expect((await s.gw('POST', `/device/${serial}`, { body: { firmware: 'fw-1' } })).status).toBe(200);
  // These rows normally come from APs through the ingest pipeline.
  await data.insertLogs([
    { serial: A, log: 'boot', data: '{}', severity: 6, recorded: 100, logType: 0, UUID: 1 },
    { serial: A, log: 'panic', data: '{"pc":1}', severity: 0, recorded: 110, logType: 1, UUID: 1 },
    { serial: A, log: 'reboot: upgrade', data: '{"info":[]}', severity: 6, recorded: 120, logType: 2, UUID: 1 },
    { serial: A, log: 'dhcp', data: '{}', severity: 5, recorded: 130, logType: 0, UUID: 2 },
    { serial: B, log: 'other device', data: '{}', severity: 5, recorded: 115, logType: 0, UUID: 1 },
  ]);
  await data.insertHealthChecks([10, 20, 30].map((t, i) => ({ serial: A, UUID: 1, sanity: 100 - i * 10, data: `{"n":${i}}`, recorded: t })));
  await data.insertStatistics([10, 20, 30, 40].map((t) => ({ serial: A, UUID: 2, data: `{"unit":{"uptime":${t}}}`, recorded: t })));
  await data.upsertCapabilities(A, '{"compatible":"edgecore_eap101","model":"EAP101","platform":"ap","wifi":{}}', 50);
});
afterAll(async () => s.close());

const logs = async (q = '') => (await s.gw('GET', `/device/${A}/logs${q}`)).body.values.map((v: { log: string }) => v.log);

describe('per-device endpoints: serials', () => {
  const paths = ['logs', 'healthchecks', 'statistics', 'capabilities', 'status', 'rtty'];
  it.each(paths)('GET %s answers 400 for a malformed serial and 404 for an unknown device', async (p) => {
    expectEnvelope(await s.gw('GET', `/device/not-a-serial/${p}`), 400);
    expectEnvelope(await s.gw('GET', `/device/ffffffffffff/${p}`), 404);
  });
  it.each(['logs', 'healthchecks', 'statistics', 'capabilities'])('DELETE %s answers 400 for a malformed serial and 404 for an unknown device', async (p) => {
    expectEnvelope(await s.gw('DELETE', `/device/12:34/${p}`), 400);
    expectEnvelope(await s.gw('DELETE', `/device/ffffffffffff/${p}`), 404);
  });
  it.each(['logs', 'healthchecks', 'statistics'])('GET %s answers 400 for bad dates, a negative offset and wrong types', async (p) => {
    for (const q of ['startDate=abc', 'endDate=-1', 'startDate=50&endDate=10', 'offset=-1', 'limit=x', 'newest=perhaps', 'bogus=1']) {
      expectEnvelope(await s.gw('GET', `/device/${A}/${p}?${q}`), 400);
    }
  });
});

describe('GET /api/v1/device/:serial/logs', () => {
  it('lists the spec fields oldest first, data as JSON text', async () => {
    const a = await s.gw('GET', `/device/AA-BB-CC-DD-01-01/logs`);
    expect(a.status).toBe(200);
    expect(a.body.serialNumber).toBe(A);
    expect(a.body.values[1]).toEqual({ log: 'panic', recorded: 110, severity: 0, data: '{"pc":1}', logType: 1, UUID: 1 });
    expect(a.body.values.map((v: { log: string }) => v.log)).toEqual(['boot', 'panic', 'reboot: upgrade', 'dhcp']);
  });
  it('logType 0 is any kind, 1 normal (reboot logs included), 2 crash', async () => {
    expect(await logs('?logType=0')).toHaveLength(4);
    expect(await logs('?logType=1')).toEqual(['boot', 'reboot: upgrade', 'dhcp']);
    expect(await logs('?logType=2')).toEqual(['panic']);
    expectEnvelope(await s.gw('GET', `/device/${A}/logs?logType=3`), 400);
  });
  it('filters inclusive dates, pages 1-based and gives the newest first on request', async () => {
    expect(await logs('?startDate=110&endDate=120')).toEqual(['panic', 'reboot: upgrade']);
    expect(await logs('?offset=2&limit=2')).toEqual(['panic', 'reboot: upgrade']);
    expect(await logs('?offset=0&limit=1')).toEqual(['boot']);
    expect(await logs('?newest=true&limit=2')).toEqual(['dhcp', 'reboot: upgrade']);
    expect(await logs('?limit=0')).toEqual([]);
  });
});

describe('DELETE /api/v1/device/:serial/logs', () => {
  it('uses the same logType meaning as GET and leaves other devices alone', async () => {
    expectEnvelope(await s.gw('DELETE', `/device/${A}/logs?logType=9`), 400);
    expect((await s.gw('DELETE', `/device/${A}/logs?logType=2`)).status).toBe(204);
    expect(await logs()).toEqual(['boot', 'reboot: upgrade', 'dhcp']);
    expect((await s.gw('DELETE', `/device/${A}/logs?logType=1&startDate=120&endDate=125`)).status).toBe(204);
    expect(await logs()).toEqual(['boot', 'dhcp']);
    expect((await s.gw('GET', `/device/${B}/logs`)).body.values).toHaveLength(1);
  });
});

describe('GET /api/v1/device/:serial/healthchecks', () => {
  it('lists {UUID, sanity, data, recorded}; lastOnly gives the latest stored', async () => {
    const all = await s.gw('GET', `/device/${A}/healthchecks`);
    expect(all.body).toEqual({ serialNumber: A, values: [
      { UUID: 1, sanity: 100, data: '{"n":0}', recorded: 10 }, { UUID: 1, sanity: 90, data: '{"n":1}', recorded: 20 },
      { UUID: 1, sanity: 80, data: '{"n":2}', recorded: 30 }] });
    const last = await s.gw('GET', `/device/${A}/healthchecks?lastOnly=true&startDate=0&endDate=15`);
    expect(last.body.values).toEqual([{ UUID: 1, sanity: 80, data: '{"n":2}', recorded: 30 }]);
    expect((await s.gw('GET', `/device/${A}/healthchecks?newest=true&limit=1`)).body.values[0].recorded).toBe(30);
    expect((await s.gw('GET', `/device/${A}/healthchecks?startDate=20`)).body.values).toHaveLength(2);
  });
  it('lastOnly answers 404 when the device has none', async () => {
    expectEnvelope(await s.gw('GET', `/device/${EMPTY}/healthchecks?lastOnly=true`), 404);
    expect((await s.gw('GET', `/device/${EMPTY}/healthchecks`)).body).toEqual({ serialNumber: EMPTY, values: [] });
  });
  it('DELETE removes the range only', async () => {
    expectEnvelope(await s.gw('DELETE', `/device/${A}/healthchecks?startDate=x`), 400);
    expect((await s.gw('DELETE', `/device/${A}/healthchecks?endDate=10`)).status).toBe(204);
    expect((await s.gw('GET', `/device/${A}/healthchecks`)).body.values.map((v: { recorded: number }) => v.recorded)).toEqual([20, 30]);
  });
});

describe('GET /api/v1/device/:serial/statistics', () => {
  it('lists {serialNumber, recorded, UUID, data}; newest and lastOnly', async () => {
    const all = await s.gw('GET', `/device/${A}/statistics?offset=2&limit=2`);
    expect(all.body).toEqual({ serialNumber: A, values: [
      { serialNumber: A, recorded: 20, UUID: 2, data: '{"unit":{"uptime":20}}' }, { serialNumber: A, recorded: 30, UUID: 2, data: '{"unit":{"uptime":30}}' }] });
    expect((await s.gw('GET', `/device/${A}/statistics?newest=true&limit=2`)).body.values.map((v: { recorded: number }) => v.recorded)).toEqual([40, 30]);
    expect((await s.gw('GET', `/device/${A}/statistics?lastOnly=true`)).body.values).toEqual([{ serialNumber: A, recorded: 40, UUID: 2, data: '{"unit":{"uptime":40}}' }]);
    expectEnvelope(await s.gw('GET', `/device/${EMPTY}/statistics?lastOnly=true`), 404);
  });
  it('DELETE removes the inclusive range', async () => {
    expect((await s.gw('DELETE', `/device/${A}/statistics?startDate=20&endDate=30`)).status).toBe(204);
    expect((await s.gw('GET', `/device/${A}/statistics`)).body.values.map((v: { recorded: number }) => v.recorded)).toEqual([10, 40]);
  });
});

describe('GET/DELETE /api/v1/device/:serial/capabilities', () => {
  it('returns the stored capabilities as JSON text and keeps firstUpdate on a new connect', async () => {
    await data.upsertCapabilities(A, '{"compatible":"edgecore_eap101","model":"EAP101","platform":"ap","wifi":{"x":1}}', 80);
    const a = await s.gw('GET', `/device/${A}/capabilities`);
    expect(a.body).toEqual({ serialNumber: A, capabilities: '{"compatible":"edgecore_eap101","model":"EAP101","platform":"ap","wifi":{"x":1}}', firstUpdate: 50, lastUpdate: 80 });
  });
  it('answers 404 when none are stored, for GET and DELETE', async () => {
    expectEnvelope(await s.gw('GET', `/device/${EMPTY}/capabilities`), 404);
    expectEnvelope(await s.gw('DELETE', `/device/${EMPTY}/capabilities`), 404);
  });
  it('DELETE removes them', async () => {
    await data.upsertCapabilities(B, '{"model":"X"}', 1);
    expect((await s.gw('DELETE', `/device/${B}/capabilities`)).status).toBe(204);
    expectEnvelope(await s.gw('GET', `/device/${B}/capabilities`), 404);
  });
});

describe('GET /api/v1/device/:serial/status and rtty (no AP connected; rtty with an AP: rtty.test.ts)', () => {
  it('status is offline: connected false, NO_CERTIFICATE, firmware and UUID from the record', async () => {
    const device = (await s.gw('GET', `/device/${A}`)).body;
    const a = await s.gw('GET', `/device/${A}/status`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ serialNumber: A, connected: false, verifiedCertificate: 'NO_CERTIFICATE', firmware: 'fw-1', UUID: device.UUID });
  });
  it('rtty answers 409 DEVICE_OFFLINE for a device that is not connected', async () => {
    const e = expectEnvelope(await s.gw('GET', `/device/${A}/rtty`), 409);
    expect(e.ErrorDetails).toBe('rtty');
  });
});

describe('per-device data after a restart', () => {
  it('finds the rows again', async () => {
    await s.restart();
    expect(await logs()).toEqual(['boot', 'dhcp']);
    expect((await s.gw('GET', `/device/${A}/healthchecks`)).body.values).toHaveLength(2);
    expect((await s.gw('GET', `/device/${A}/statistics`)).body.values).toHaveLength(2);
    expect((await s.gw('GET', `/device/${A}/capabilities`)).body.firstUpdate).toBe(50);
  });
  it('deleting the device removes its records', async () => {
    data = new DeviceDataRepo(s.running.store);
    expect((await s.gw('DELETE', `/device/${A}`)).status).toBe(204);
    expect(await data.logs(A)).toEqual([]);
    expect(await data.capabilities(A)).toBeUndefined();
  });
});
