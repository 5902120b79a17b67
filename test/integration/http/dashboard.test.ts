import { resolveRef } from '../../helpers/openapi-check.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // Two Edgecore serials (OUI 90:3c:b3), one unregistered prefix.
  await s.gw('POST', '/device/903cb3000001', { body: { firmware: 'OpenWrt 23.05', compatible: 'edgecore_eap101' } });
  await s.gw('POST', '/device/903cb3000002', { body: { firmware: 'OpenWrt 23.05' } });
  await s.gw('POST', '/device/ffffff000003', { body: {} });
  const store = s.running.store;
  const command = (uuid: string, serial: string, name: string) => store.run(
    `INSERT INTO commands (uuid, serial, command, status, submitted_by, details, results, error_text, error_code, submitted, executed,
       completed, run_at, custom, waiting_for_file, attach_file, attach_size, attach_type, execution_time)
     VALUES ($1, $2, $3, 'completed', 'test', '{}', '{}', '', 0, 1, 1, 1, 0, 0, 0, 0, 0, '', 0)`, [uuid, serial, name]);
  await command('00000000-0000-4000-8000-000000000001', '903cb3000001', 'reboot');
  await command('00000000-0000-4000-8000-000000000002', '903cb3000002', 'reboot');
  await command('00000000-0000-4000-8000-000000000003', '903cb3000001', 'configure');
  const health = (serial: string, sanity: number, recorded: number) =>
    store.run('INSERT INTO health_checks (serial, uuid, data, sanity, recorded) VALUES ($1, 1, $2, $3, $4)', [serial, '{}', sanity, recorded]);
  await health('903cb3000001', 50, 100);
  await health('903cb3000001', 95, 200); // the last one counts
  await health('903cb3000002', 100, 150);
});
afterAll(async () => s.close());

const tags = (list: { tag: string; value: number }[]) => Object.fromEntries(list.map((e) => [e.tag, e.value]));

describe('GET /api/v1/deviceDashboard', () => {
  it('counts devices by vendor, model, firmware, status, health and commands by type', async () => {
    const a = await s.gw('GET', '/deviceDashboard', { token: USER_TOKEN });
    expect(a.status).toBe(200);
    const d = a.body;
    expect(d.numberOfDevices).toBe(3);
    expect(d.snapshot).toBeGreaterThan(1_000_000_000);
    expect(d.commands).toEqual([{ tag: 'configure', value: 1 }, { tag: 'reboot', value: 2 }]);
    expect(d.vendors).toEqual([{ tag: 'Edgecore Networks Corporation', value: 2 }, { tag: 'unknown', value: 1 }]);
    expect(tags(d.deviceType)).toEqual({ edgecore_eap101: 1, unknown: 2 });
    expect(tags(d.firmware)).toEqual({ 'OpenWrt 23.05': 2, unknown: 1 });
    expect(d.status).toEqual([{ tag: 'connected', value: 0 }, { tag: 'not connected', value: 3 }]);
    expect(tags(d.healths)).toEqual({ '100%': 1, '>90%': 1, '>60%': 0, '<60%': 0, unknown: 1 });
    expect(tags(d.lastContact)).toMatchObject({ never: 3, '>month': 0 });
  });

  it('lists every bucket of the fixed-bucket arrays, zeros included, and nothing live for offline devices', async () => {
    const d = (await s.gw('GET', '/deviceDashboard')).body;
    expect(d.upTimes.map((e: { tag: string }) => e.tag)).toEqual(['now', '>hour', '>day', '>week', '>month', 'unknown']);
    expect(d.memoryUsed.map((e: { tag: string }) => e.tag)).toEqual(['< 5%', '< 25%', '< 50%', '< 75%', '>75%', 'unknown']);
    expect(d.associations).toEqual([{ tag: '2G', value: 0 }, { tag: '5G', value: 0 }, { tag: '6G', value: 0 }]);
    for (const key of ['certificates', 'upTimes', 'memoryUsed', 'load', 'associations']) {
      expect(d[key].every((e: { value: number }) => e.value === 0), key).toBe(true);
    }
  });

  it('follows deletions: a deleted device and its commands and health checks leave the counts', async () => {
    expect((await s.gw('DELETE', '/device/903cb3000002')).status).toBe(204);
    const d = (await s.gw('GET', '/deviceDashboard')).body;
    expect(d.numberOfDevices).toBe(2);
    expect(d.commands).toEqual([{ tag: 'configure', value: 1 }, { tag: 'reboot', value: 1 }]);
    expect(tags(d.healths)).toMatchObject({ '100%': 0, '>90%': 1, unknown: 1 });
  });

  it('is documented in the OpenAPI with its arrays of {tag, value}', async () => {
    const doc = (await s.gw('GET', '/openapi.json', { token: null })).body;
    const schema = resolveRef(doc, doc.paths['/api/v1/deviceDashboard'].get.responses['200'].content['application/json'].schema)!;
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['commands', 'vendors', 'deviceType', 'firmware', 'healths', 'upTimes', 'memoryUsed', 'load', 'associations']));
    expect(schema.properties.healths.items.properties).toHaveProperty('tag');
  });

  it('answers 401 without a token and 404 for an unknown method', async () => {
    expectEnvelope(await s.gw('GET', '/deviceDashboard', { token: null }), 401);
    expectEnvelope(await s.gw('POST', '/deviceDashboard', { body: {} }), 404);
  });
});
