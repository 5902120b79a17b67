import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const serial = (n: number) => `0000000000${n.toString(16).padStart(2, '0')}`;

describe('POST /api/v1/device/:serial', () => {
  it('creates a device with defaults and returns the record', async () => {
    const a = await s.gw('POST', '/device/AA:BB:CC:DD:EE:01', { body: { serialNumber: 'aabbccddee01', manufacturer: 'Edgecore', venue: 'hq', locale: 'ca', configuration: { radios: [] }, notes: [{ note: 'first' }] } });
    expect(a.status).toBe(200);
    expect(a.body.serialNumber).toBe('aabbccddee01');
    expect(a.body.deviceType).toBe('AP');
    expect(a.body.macAddress).toBe('aa:bb:cc:dd:ee:01');
    expect(a.body.locale).toBe('CA');
    expect(typeof a.body.configuration).toBe('string');
    expect(JSON.parse(a.body.configuration).uuid).toBe(a.body.UUID);
    expect(a.body.notes).toEqual([expect.objectContaining({ note: 'first', createdBy: expect.any(String), created: expect.any(Number) })]);
  });

  it('accepts configuration as a JSON string', async () => {
    const a = await s.gw('POST', '/device/aabbccddee02', { body: { configuration: '{"uuid": 7, "radios": []}' } });
    expect(a.status).toBe(200);
    expect(a.body.UUID).toBe(7);
  });

  it('answers 409 when the serial exists', async () => {
    expectEnvelope(await s.gw('POST', '/device/aabbccddee01', { body: {} }), 409);
  });

  it('answers 400 for a body serial that differs from the path', async () => {
    const e = expectEnvelope(await s.gw('POST', '/device/aabbccddee09', { body: { serialNumber: 'aabbccddee08' } }), 400);
    expect(e.ErrorDetails).toBe('serialNumber');
  });

  it.each([
    ['an invalid serial', '/device/xyz', {}],
    ['a locale of 3 letters', '/device/aabbccddee0a', { locale: 'CAN' }],
    ['a configuration that is not JSON', '/device/aabbccddee0b', { configuration: '{nope' }],
    ['a configuration that is an array', '/device/aabbccddee0c', { configuration: '[1]' }],
    ['an unknown deviceType', '/device/aabbccddee0d', { deviceType: 'ROUTER' }],
    ['a UUID of the wrong type', '/device/aabbccddee0e', { UUID: 'abc' }],
    ['a number where a string belongs (bodies are never coerced)', '/device/aabbccddee0f', { manufacturer: 5 }],
    ['a UUID that is neither a number nor its digits', '/device/aabbccddee0f', { UUID: '12x' }],
  ])('answers 400 for %s', async (_name, path, body) => {
    expectEnvelope(await s.gw('POST', path, { body }), 400);
  });

  it('validateOnly checks without storing', async () => {
    const ok = await s.gw('POST', '/device/aabbccddee03?validateOnly=true', { body: { configuration: { radios: [] } } });
    expect(ok.body).toEqual({ valid: true });
    const bad = await s.gw('POST', '/device/aabbccddee03?validateOnly=true', { body: { configuration: '{' } });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.error).toMatch(/JSON/);
    expect((await s.gw('GET', '/device/aabbccddee03')).status).toBe(404);
  });
});

describe('GET /api/v1/device/:serial', () => {
  it('finds a device whatever the case and separators of the serial', async () => {
    const a = await s.gw('GET', '/device/AA-BB-CC-DD-EE-01');
    expect(a.status).toBe(200);
    expect(a.body.venue).toBe('hq');
    expect(a.body.blackListed).toBe(false);
  });
  it('answers 404 for an unknown device and 400 for a malformed serial', async () => {
    expectEnvelope(await s.gw('GET', '/device/ffffffffffff'), 404);
    expectEnvelope(await s.gw('GET', '/device/12345'), 400);
  });
});

describe('PUT /api/v1/device/:serial', () => {
  it('changes the editable fields, appends notes and bumps modified and UUID', async () => {
    const before = (await s.gw('GET', '/device/aabbccddee01')).body;
    const a = await s.gw('PUT', '/device/aabbccddee01', { body: { venue: 'branch', owner: 'ops', notes: [{ note: 'second' }], configuration: { radios: [{ band: '5G', channel: 36 }] }, firmware: 'ignored' } });
    expect(a.status).toBe(200);
    expect(a.body.venue).toBe('branch');
    expect(a.body.owner).toBe('ops');
    expect(a.body.firmware).toBe(before.firmware);
    expect(a.body.notes.map((n: { note: string }) => n.note)).toEqual(['first', 'second']);
    expect(a.body.UUID).toBeGreaterThan(before.UUID);
    expect(JSON.parse(a.body.configuration).uuid).toBe(a.body.UUID);
    expect(a.body.modified).toBeGreaterThanOrEqual(before.modified);
  });
  it('answers 404 for an unknown device and 400 for a bad configuration', async () => {
    expectEnvelope(await s.gw('PUT', '/device/ffffffffffff', { body: { venue: 'x' } }), 404);
    expectEnvelope(await s.gw('PUT', '/device/aabbccddee01', { body: { configuration: { radios: 'no' } } }), 400);
  });
});

describe('GET /api/v1/devices', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 12; i++) {
      await s.gw('POST', `/device/${serial(i)}`, { body: { manufacturer: i % 2 ? 'Edgecore' : 'Linksys', venue: i <= 6 ? 'north' : 'south', firmware: `fw-${i}` } });
    }
  });

  it('lists every device when no limit is given, ordered by serial', async () => {
    const a = await s.gw('GET', '/devices');
    expect(a.body.devices.length).toBe(14);
    const serials = a.body.devices.map((d: { serialNumber: string }) => d.serialNumber);
    expect(serials).toEqual([...serials].sort());
  });

  it('pages with a 1-based offset; 0 reads as 1; negative is 400', async () => {
    const all = (await s.gw('GET', '/devices?serialOnly=true')).body.serialNumbers;
    expect((await s.gw('GET', '/devices?serialOnly=true&offset=1&limit=3')).body.serialNumbers).toEqual(all.slice(0, 3));
    expect((await s.gw('GET', '/devices?serialOnly=true&offset=0&limit=3')).body.serialNumbers).toEqual(all.slice(0, 3));
    expect((await s.gw('GET', '/devices?serialOnly=true&offset=4&limit=2')).body.serialNumbers).toEqual(all.slice(3, 5));
    expectEnvelope(await s.gw('GET', '/devices?offset=-1'), 400);
  });

  it('counts, selects and filters', async () => {
    expect((await s.gw('GET', '/devices?countOnly=true')).body).toEqual({ count: 14 });
    expect((await s.gw('GET', '/devices?countOnly=true&filter=linksys')).body).toEqual({ count: 6 });
    expect((await s.gw('GET', '/devices?countOnly=true&filter=venue:north manufacturer:edgecore')).body).toEqual({ count: 3 });
    expect((await s.gw('GET', `/devices?select=${serial(1)},${serial(2)},ffffffffffff`)).body.devices.length).toBe(2);
    expect((await s.gw('GET', '/devices?serialOnly=true&filter=00:00:00:00:00:0b')).body.serialNumbers).toEqual([serial(11)]);
    expect((await s.gw('GET', '/devices?countOnly=true&filter=second')).body).toEqual({ count: 1 });
    expectEnvelope(await s.gw('GET', '/devices?filter=colour:red'), 400);
    expectEnvelope(await s.gw('GET', '/devices?select=nothex'), 400);
  });

  it('orders by any listed field and rejects unknown ones', async () => {
    const a = await s.gw('GET', '/devices?orderBy=firmware:d&serialOnly=true&filter=venue:south');
    expect(a.body.serialNumbers[0]).toBe(serial(9));
    expect((await s.gw('GET', '/devices?orderSpec=true')).body.list).toContain('venue');
    expectEnvelope(await s.gw('GET', '/devices?orderBy=created:d'), 400);
    expectEnvelope(await s.gw('GET', '/devices?orderBy=venue:up'), 400);
  });

  it('adds the status of each device with deviceWithStatus', async () => {
    const a = await s.gw('GET', `/devices?deviceWithStatus=true&select=${serial(1)}`);
    expect(a.body.devicesWithStatus[0]).toMatchObject({ serialNumber: serial(1), connected: false, verifiedCertificate: 'NO_CERTIFICATE', manufacturer: 'Edgecore' });
  });

  it('reports connection statistics', async () => {
    expect((await s.gw('GET', '/devices?connectionStatistics=true')).body).toEqual({ averageConnectionTime: 0, connectedDevices: 0, connectingDevices: 0 });
  });

  it('rejects unknown query parameters and wrong types', async () => {
    expectEnvelope(await s.gw('GET', '/devices?limit=abc'), 400);
    expectEnvelope(await s.gw('GET', '/devices?colour=red'), 400);
  });
});

describe('DELETE /api/v1/device/:serial', () => {
  it('needs the admin role', async () => {
    expectEnvelope(await s.gw('DELETE', '/device/aabbccddee02', { token: USER_TOKEN }), 403);
  });
  it('deletes and answers 204, then 404', async () => {
    const a = await s.gw('DELETE', '/device/aabbccddee02', { token: ADMIN_TOKEN });
    expect(a.status).toBe(204);
    expect(a.text).toBe('');
    expectEnvelope(await s.gw('GET', '/device/aabbccddee02'), 404);
    expectEnvelope(await s.gw('DELETE', '/device/aabbccddee02'), 404);
  });
});

describe('persistence', () => {
  it('finds the devices again after a restart', async () => {
    const before = (await s.gw('GET', '/devices')).body.devices;
    await s.restart();
    const after = (await s.gw('GET', '/devices')).body.devices;
    expect(after).toEqual(before);
  });
});
