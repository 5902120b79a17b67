import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const base = { modelIds: ['edgecore_eap101'], description: 'office APs', configuration: { uuid: 1, radios: [] } };

describe('POST /api/v1/default_configuration/:name', () => {
  it('creates a configuration under the path name and answers an OperationResult', async () => {
    const a = await s.gw('POST', '/default_configuration/office', { body: base });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ Operation: 'POST', Details: 'Command completed.', Code: 0 });
    const got = await s.gw('GET', '/default_configuration/office');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: 'office', modelIds: ['edgecore_eap101'], description: 'office APs', platform: 'ap' });
    expect(JSON.parse(got.body.configuration)).toEqual({ uuid: 1, radios: [] });
    expect(got.body.created).toBeGreaterThan(0);
    expect(got.body.lastModified).toBe(got.body.created);
  });

  it('accepts the configuration as a JSON string, without a uuid (upstream needs one)', async () => {
    const a = await s.gw('POST', '/default_configuration/hall', { body: { modelIds: ['*'], configuration: '{"radios": []}', platform: 'AP' } });
    expect(a.status).toBe(200);
    expect(JSON.parse((await s.gw('GET', '/default_configuration/hall')).body.configuration)).toEqual({ radios: [] });
  });

  it('ignores created and lastModified sent by the client', async () => {
    await s.gw('POST', '/default_configuration/clock', { body: { ...base, created: 5, lastModified: 6 } });
    const got = (await s.gw('GET', '/default_configuration/clock')).body;
    expect(got.created).toBeGreaterThan(1_000_000_000);
  });

  it('answers 409 when the name exists', async () => {
    const e = expectEnvelope(await s.gw('POST', '/default_configuration/office', { body: base }), 409);
    expect(e.ErrorDetails).toBe('name');
  });

  it.each([
    ['no modelIds', { configuration: {} }, 'modelIds'],
    ['empty modelIds', { modelIds: [], configuration: {} }, 'modelIds'],
    ['no configuration', { modelIds: ['a'] }, 'configuration'],
    ['a configuration that is not JSON', { modelIds: ['a'], configuration: '{nope' }, 'configuration'],
    ['a configuration that is an array', { modelIds: ['a'], configuration: [1, 2] }, 'body.configuration'],
    ['a configuration string holding an array', { modelIds: ['a'], configuration: '[1]' }, 'configuration'],
    ['modelIds of the wrong type', { modelIds: 'a', configuration: {} }, 'body.modelIds'],
    ['an unknown platform', { modelIds: ['a'], configuration: {}, platform: 'router' }, 'body.platform'],
    ['a body name that differs from the path', { ...base, name: 'other' }, 'name'],
  ])('answers 400 for %s', async (_what, body, field) => {
    const e = expectEnvelope(await s.gw('POST', '/default_configuration/bad', { body }), 400);
    expect(e.ErrorDetails).toBe(field);
    expectEnvelope(await s.gw('GET', '/default_configuration/bad'), 404);
  });

  it('answers 400 for malformed JSON and 413 for a huge body', async () => {
    expectEnvelope(await s.gw('POST', '/default_configuration/bad', { raw: '{"modelIds": [' }), 400);
    const huge = JSON.stringify({ ...base, description: 'x'.repeat(2 * 1024 * 1024) });
    expectEnvelope(await s.gw('POST', '/default_configuration/bad', { raw: huge }), 413);
  });
});

describe('GET /api/v1/default_configurations', () => {
  it('lists configurations ordered by name with 1-based offset and limit', async () => {
    const all = (await s.gw('GET', '/default_configurations')).body.configurations.map((c: { name: string }) => c.name);
    expect(all).toEqual(['clock', 'hall', 'office']);
    const pageTwo = (await s.gw('GET', '/default_configurations?offset=2&limit=1')).body.configurations;
    expect(pageTwo.map((c: { name: string }) => c.name)).toEqual(['hall']);
    expect((await s.gw('GET', '/default_configurations?offset=0&limit=1')).body.configurations[0].name).toBe('clock');
  });
  it('counts with countOnly=true', async () => {
    expect((await s.gw('GET', '/default_configurations?countOnly=true')).body).toEqual({ count: 3 });
  });
  it('answers 400 for a negative offset or a limit that is not a number', async () => {
    expectEnvelope(await s.gw('GET', '/default_configurations?offset=-1'), 400);
    expectEnvelope(await s.gw('GET', '/default_configurations?limit=many'), 400);
  });
  it('is readable with a user token', async () => {
    expect((await s.gw('GET', '/default_configurations', { token: USER_TOKEN })).status).toBe(200);
  });
});

describe('PUT /api/v1/default_configuration/:name', () => {
  it('replaces modelIds, description and configuration and bumps lastModified', async () => {
    const a = await s.gw('PUT', '/default_configuration/office', { body: { modelIds: ['edgecore_eap102'], description: 'new', configuration: '{"uuid": 2}' } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ Operation: 'PUT', Details: 'Command completed.', Code: 0 });
    const got = (await s.gw('GET', '/default_configuration/office')).body;
    expect(got).toMatchObject({ modelIds: ['edgecore_eap102'], description: 'new' });
    expect(JSON.parse(got.configuration)).toEqual({ uuid: 2 });
    expect(got.lastModified).toBeGreaterThanOrEqual(got.created);
  });
  it('keeps fields the body does not name', async () => {
    await s.gw('PUT', '/default_configuration/office', { body: { description: 'only this' } });
    const got = (await s.gw('GET', '/default_configuration/office')).body;
    expect(got).toMatchObject({ modelIds: ['edgecore_eap102'], description: 'only this' });
  });
  it('answers 404 for an unknown name and 400 for bad fields', async () => {
    expectEnvelope(await s.gw('PUT', '/default_configuration/nope', { body: { description: 'x' } }), 404);
    expectEnvelope(await s.gw('PUT', '/default_configuration/office', { body: { modelIds: [] } }), 400);
    expectEnvelope(await s.gw('PUT', '/default_configuration/office', { body: { configuration: 'not json' } }), 400);
    expectEnvelope(await s.gw('PUT', '/default_configuration/office', { body: { description: { text: 'x' } } }), 400);
    expectEnvelope(await s.gw('PUT', '/default_configuration/office', { raw: 'nope' }), 400);
  });
});

describe('DELETE /api/v1/default_configuration/:name', () => {
  it('deletes with 204, then 404', async () => {
    const a = await s.gw('DELETE', '/default_configuration/clock');
    expect(a.status).toBe(204);
    expect(a.text).toBe('');
    expectEnvelope(await s.gw('DELETE', '/default_configuration/clock'), 404);
    expectEnvelope(await s.gw('GET', '/default_configuration/clock'), 404);
  });
  it('answers 401 without a token', async () => {
    expectEnvelope(await s.gw('DELETE', '/default_configuration/office', { token: null }), 401);
  });
});

describe('default configurations across a restart', () => {
  it('finds the stored configurations again', async () => {
    const before = (await s.gw('GET', '/default_configurations')).body;
    await s.restart();
    const after = (await s.gw('GET', '/default_configurations')).body;
    expect(after).toEqual(before);
    expect(after.configurations.map((c: { name: string }) => c.name)).toEqual(['hall', 'office']);
  });
});
