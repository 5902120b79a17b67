import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, type Answer, type TestServer } from '../../helpers/server.js';

/**
 * Writes of one record that reach the gateway at the same time, over real sockets: each
 * read-modify-write sees the record as the one before left it, memory and DuckDB agree after
 * any interleaving (checked across a restart), and a create that loses a race is a 409.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const serial = (n: number) => `c0ffee0000${n.toString(16).padStart(2, '0')}`;

/** The statuses of answers, counted: `{200: 1, 409: 9}`. */
function statuses(answers: Answer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
}

describe('PUT /api/v1/device/:serial at the same time', () => {
  it('keeps every note of 20 concurrent PUTs, in memory and in DuckDB', async () => {
    expect((await s.gw('POST', `/device/${serial(1)}`, { body: {} })).status).toBe(200);
    const puts = await Promise.all(Array.from({ length: 20 }, (_, i) => s.gw('PUT', `/device/${serial(1)}`, { body: { notes: [{ note: `n${i}` }] } })));
    expect(statuses(puts)).toEqual({ 200: 20 });
    const notes = (a: Answer) => (a.body.notes as { note: string }[]).map((n) => n.note).sort();
    const want = Array.from({ length: 20 }, (_, i) => `n${i}`).sort();
    expect(notes(await s.gw('GET', `/device/${serial(1)}`))).toEqual(want);
    await s.restart();
    expect(notes(await s.gw('GET', `/device/${serial(1)}`))).toEqual(want);
  });

  it('gives every configuration its own UUID, each larger than the one before', async () => {
    expect((await s.gw('POST', `/device/${serial(2)}`, { body: {} })).status).toBe(200);
    const puts = await Promise.all(Array.from({ length: 10 }, (_, i) => s.gw('PUT', `/device/${serial(2)}`, { body: { configuration: { radios: [], n: i } } })));
    expect(statuses(puts)).toEqual({ 200: 10 });
    expect(new Set(puts.map((a) => a.body.UUID)).size).toBe(10);
  });
});

describe('DELETE and PUT of one device at the same time', () => {
  it('leaves memory and DuckDB agreeing whichever comes first (compared across a restart)', async () => {
    const serials = Array.from({ length: 12 }, (_, i) => serial(0x20 + i));
    for (const sn of serials) expect((await s.gw('POST', `/device/${sn}`, { body: {} })).status).toBe(200);
    const answers = await Promise.all(serials.flatMap((sn, i) => {
      const put = () => s.gw('PUT', `/device/${sn}`, { body: { notes: [{ note: 'racing' }], venue: 'v' } });
      const del = () => s.gw('DELETE', `/device/${sn}`);
      return i % 2 === 0 ? [put(), del()] : [del(), put()];
    }));
    // A PUT after the DELETE is a 404, never a 200 that resurrects the record in memory only.
    for (const a of answers) expect([200, 204, 404]).toContain(a.status);
    const served = async () => {
      const all = await s.gw('GET', '/devices?serialOnly=true');
      return (all.body.serialNumbers as string[]).filter((sn) => serials.includes(sn));
    };
    const before = await served();
    expect(before).toEqual([]);
    await s.restart();
    expect(await served()).toEqual(before);
  });
});

describe('creates of one key at the same time', () => {
  it('answer one 200 and 409s for the rest: devices, blacklist entries, default configurations', async () => {
    const n = 8;
    const devices = await Promise.all(Array.from({ length: n }, () => s.gw('POST', `/device/${serial(0x40)}`, { body: {} })));
    expect(statuses(devices)).toEqual({ 200: 1, 409: n - 1 });
    for (const a of devices.filter((x) => x.status === 409)) expect(expectEnvelope(a, 409).ErrorDetails).toBe('serialNumber');

    const listed = await Promise.all(Array.from({ length: n }, () => s.gw('POST', `/blacklist/${serial(0x41)}`, { body: { reason: 'r' } })));
    expect(statuses(listed)).toEqual({ 200: 1, 409: n - 1 });
    for (const a of listed.filter((x) => x.status === 409)) expectEnvelope(a, 409);

    const body = { modelIds: ['*'], configuration: { radios: [] } };
    const configs = await Promise.all(Array.from({ length: n }, () => s.gw('POST', '/default_configuration/racing', { body })));
    expect(statuses(configs)).toEqual({ 200: 1, 409: n - 1 });
    for (const a of configs.filter((x) => x.status === 409)) expectEnvelope(a, 409);

    await s.restart();
    expect((await s.gw('GET', `/device/${serial(0x40)}`)).status).toBe(200);
    expect((await s.gw('GET', `/blacklist/${serial(0x41)}`)).status).toBe(200);
    expect((await s.gw('GET', '/default_configuration/racing')).status).toBe(200);
  });

  it('keeps a blacklist entry and a default configuration consistent under concurrent PUT and DELETE', async () => {
    expect((await s.gw('POST', `/blacklist/${serial(0x50)}`, { body: { reason: 'a' } })).status).toBe(200);
    expect((await s.gw('POST', '/default_configuration/racing2', { body: { modelIds: ['*'], configuration: {} } })).status).toBe(200);
    const answers = await Promise.all([
      s.gw('PUT', `/blacklist/${serial(0x50)}`, { body: { reason: 'b' } }),
      s.gw('DELETE', `/blacklist/${serial(0x50)}`),
      s.gw('PUT', '/default_configuration/racing2', { body: { description: 'd' } }),
      s.gw('DELETE', '/default_configuration/racing2'),
    ]);
    for (const a of answers) expect([200, 204, 404]).toContain(a.status);
    const seen = [(await s.gw('GET', `/blacklist/${serial(0x50)}`)).status, (await s.gw('GET', '/default_configuration/racing2')).status];
    expect(seen).toEqual([404, 404]);
    await s.restart();
    expect([(await s.gw('GET', `/blacklist/${serial(0x50)}`)).status, (await s.gw('GET', '/default_configuration/racing2')).status]).toEqual(seen);
  });
});
