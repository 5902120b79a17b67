import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceDataRepo } from '../../../src/store/device-data-repo.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
const caps = (compatible: string, extra = '') => `{"compatible":"${compatible}","model":"M","platform":"ap","wifi":{}${extra}}`;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

describe('GET /api/v1/capabilities', () => {
  it('is empty before any device reported capabilities', async () => {
    const a = await s.gw('GET', '/capabilities');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ device_types: [] });
  });

  it('lists one entry per compatible with the latest capabilities, as JSON text', async () => {
    // Normally stored when APs connect.
    const data = new DeviceDataRepo(s.running.store);
    await data.upsertCapabilities('aabbccdd0301', caps('edgecore_eap101', ',"v":1'), 100);
    await data.upsertCapabilities('aabbccdd0302', caps('edgecore_eap101', ',"v":2'), 200);
    await data.upsertCapabilities('aabbccdd0303', caps('cig_wf188n'), 150);
    await data.upsertCapabilities('aabbccdd0304', '{"model":"only-model","wifi":{}}', 120);
    await data.upsertCapabilities('aabbccdd0305', '{"wifi":{}}', 130);
    const a = await s.gw('GET', '/capabilities');
    expect(a.body.device_types).toEqual([
      { deviceType: 'cig_wf188n', capabilities: caps('cig_wf188n') },
      { deviceType: 'edgecore_eap101', capabilities: caps('edgecore_eap101', ',"v":2') },
      { deviceType: 'only-model', capabilities: '{"model":"only-model","wifi":{}}' },
    ]);
  });

  it('answers the same after a restart', async () => {
    const before = (await s.gw('GET', '/capabilities')).body;
    await s.restart();
    expect((await s.gw('GET', '/capabilities')).body).toEqual(before);
  });

  it('answers 401 without a token', async () => {
    expectEnvelope(await s.gw('GET', '/capabilities', { token: null }), 401);
  });
});
