import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, startTestServer, USER_TOKEN, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s.close());

const server = (ip: string, extra: Record<string, unknown> = {}) => ({ name: `r-${ip}`, ip, port: 1812, secret: 's3cret', ...extra });
const config = () => ({
  pools: [{
    name: 'main',
    description: 'campus',
    authConfig: { strategy: 'weighted', monitor: false, monitorMethod: 'none', methodParameters: [], servers: [server('10.0.0.1', { weight: 10 }), server('2001:db8::1', { weight: 5 })] },
    acctConfig: { strategy: 'round_robin', servers: [server('10.0.0.2', { port: 1813 })] },
    coaConfig: { servers: [] },
  }],
});

describe('GET /api/v1/radiusProxyConfig', () => {
  it('answers {"pools":[]} when nothing is configured', async () => {
    const a = await s.gw('GET', '/radiusProxyConfig', { token: USER_TOKEN });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ pools: [] });
  });
});

describe('PUT /api/v1/radiusProxyConfig', () => {
  it('stores the configuration and answers it with defaults filled', async () => {
    const a = await s.gw('PUT', '/radiusProxyConfig', { body: config() });
    expect(a.status).toBe(200);
    const pool = a.body.pools[0];
    expect(pool).toMatchObject({ name: 'main', description: 'campus', useByDefault: false, radsecKeepAlive: 25, radsecPoolType: 'generic', enabled: true });
    expect(pool.authConfig.servers[1]).toMatchObject({ ip: '2001:db8::1', port: 1812, weight: 5, radsec: false, radsecPort: 2083, ignore: false });
    expect(pool.acctConfig).toMatchObject({ strategy: 'round_robin', monitor: false, monitorMethod: 'none', methodParameters: [] });
    expect(pool.coaConfig).toEqual({ strategy: 'random', monitor: false, monitorMethod: 'none', methodParameters: [], servers: [] });
    expect((await s.gw('GET', '/radiusProxyConfig')).body).toEqual(a.body);
  });

  it('replaces the whole configuration', async () => {
    const next = { pools: [{ name: 'other', authConfig: { servers: [server('192.0.2.9')] } }] };
    expect((await s.gw('PUT', '/radiusProxyConfig', { body: next })).status).toBe(200);
    const got = (await s.gw('GET', '/radiusProxyConfig')).body;
    expect(got.pools.map((p: { name: string }) => p.name)).toEqual(['other']);
  });

  it('reads radsecKeepAlive 0 as 25 and accepts every monitorMethod and strategy', async () => {
    for (const monitorMethod of ['none', 'https', 'radius']) {
      for (const strategy of ['random', 'round_robin', 'weighted']) {
        const body = { pools: [{ name: 'p', radsecKeepAlive: 0, authConfig: { strategy, monitorMethod, servers: [server('10.1.1.1', { weight: 1 })] } }] };
        const a = await s.gw('PUT', '/radiusProxyConfig', { body });
        expect(a.status, `${strategy}/${monitorMethod}: ${a.text}`).toBe(200);
        expect(a.body.pools[0].radsecKeepAlive).toBe(25);
      }
    }
  });

  const withAuth = (authConfig: Record<string, unknown>) => ({ pools: [{ name: 'main', authConfig }] });
  it.each([
    ['an unknown strategy', withAuth({ strategy: 'fastest', servers: [server('10.0.0.1')] }), 'pools[0].authConfig.strategy', /random, round_robin, weighted/],
    ['an unknown monitorMethod', withAuth({ monitorMethod: 'ping', servers: [server('10.0.0.1')] }), 'pools[0].authConfig.monitorMethod', /none, https, radius/],
    ['an invalid server IP', withAuth({ servers: [server('10.0.0.1'), server('10.0.0.300')] }), 'pools[0].authConfig.servers[1].ip', /not an IPv4 or IPv6/],
    ['a host name instead of an IP', withAuth({ servers: [server('radius.example.com')] }), 'pools[0].authConfig.servers[0].ip', /not an IPv4/],
    ['port 0', withAuth({ servers: [server('10.0.0.1', { port: 0 })] }), 'pools[0].authConfig.servers[0].port', /1/],
    ['port 65536', withAuth({ servers: [server('10.0.0.1', { port: 65536 })] }), 'pools[0].authConfig.servers[0].port', /65535/],
    ['a missing port', withAuth({ servers: [{ ip: '10.0.0.1' }] }), 'pools[0].authConfig.servers[0].port', /required/],
    ['a port of the wrong type', withAuth({ servers: [server('10.0.0.1', { port: 'radius' })] }), 'pools[0].authConfig.servers[0].port', /integer/],
    ['weighted without a weight', withAuth({ strategy: 'weighted', servers: [server('10.0.0.1', { weight: 1 }), server('10.0.0.2')] }), 'pools[0].authConfig.servers[1].weight', /greater than 0/],
    ['weighted with weight 0', withAuth({ strategy: 'weighted', servers: [server('10.0.0.1', { weight: 0 })] }), 'pools[0].authConfig.servers[0].weight', /greater than 0/],
    ['a negative weight', withAuth({ servers: [server('10.0.0.1', { weight: -1 })] }), 'pools[0].authConfig.servers[0].weight', /0/],
    ['a pool without servers', withAuth({ servers: [] }), 'pools[0]', /at least one RADIUS server/],
    ['a pool without a name', { pools: [{ authConfig: { servers: [server('10.0.0.1')] } }] }, 'pools[0].name', /required/],
    ['an empty pool name', { pools: [{ name: '', authConfig: { servers: [server('10.0.0.1')] } }] }, 'pools[0].name', /fewer than 1/],
    ['duplicate pool names', { pools: [{ name: 'a', authConfig: { servers: [server('10.0.0.1')] } }, { name: 'a', authConfig: { servers: [server('10.0.0.2')] } }] }, 'pools[1].name', /earlier pool/],
    ['an unknown radsecPoolType', { pools: [{ name: 'a', radsecPoolType: 'x', authConfig: { servers: [server('10.0.0.1')] } }] }, 'pools[0].radsecPoolType', /generic/],
    ['an unknown field', withAuth({ stratgy: 'random', servers: [server('10.0.0.1')] }), 'pools[0].authConfig.stratgy', /not a field/],
    ['no pools', { pools: [] }, 'pools', /at least one pool/],
    ['no pools field', {}, 'pools', /required/],
    ['pools of the wrong type', { pools: 'all' }, 'pools', /array/],
  ])('answers 400 naming the field for %s', async (_what, body, field, why) => {
    const e = expectEnvelope(await s.gw('PUT', '/radiusProxyConfig', { body }), 400);
    expect(e.ErrorDetails).toBe(field);
    expect(e.ErrorDescription).toMatch(why);
  });

  it('keeps the stored configuration when a PUT is rejected', async () => {
    const before = (await s.gw('GET', '/radiusProxyConfig')).body;
    expectEnvelope(await s.gw('PUT', '/radiusProxyConfig', { body: withAuth({ strategy: 'fastest', servers: [] }) }), 400);
    expect((await s.gw('GET', '/radiusProxyConfig')).body).toEqual(before);
  });

  it('answers 400 for malformed JSON, 413 for a huge body, 403 for a user token', async () => {
    expectEnvelope(await s.gw('PUT', '/radiusProxyConfig', { raw: '{"pools": [' }), 400);
    const huge = { pools: [{ name: 'x'.repeat(2 * 1024 * 1024), authConfig: { servers: [server('10.0.0.1')] } }] };
    expectEnvelope(await s.gw('PUT', '/radiusProxyConfig', { body: huge }), 413);
    expectEnvelope(await s.gw('PUT', '/radiusProxyConfig', { body: config(), token: USER_TOKEN }), 403);
  });
});

describe('RADIUS proxy config across a restart', () => {
  it('finds the stored configuration again', async () => {
    const stored = (await s.gw('PUT', '/radiusProxyConfig', { body: config() })).body;
    await s.restart();
    expect((await s.gw('GET', '/radiusProxyConfig')).body).toEqual(stored);
  });
});

describe('DELETE /api/v1/radiusProxyConfig', () => {
  it('needs the admin role', async () => {
    expectEnvelope(await s.gw('DELETE', '/radiusProxyConfig', { token: USER_TOKEN }), 403);
  });
  it('removes the configuration with 204, and answers 204 again when none is left', async () => {
    const a = await s.gw('DELETE', '/radiusProxyConfig');
    expect(a.status).toBe(204);
    expect((await s.gw('GET', '/radiusProxyConfig')).body).toEqual({ pools: [] });
    expect((await s.gw('DELETE', '/radiusProxyConfig')).status).toBe(204);
    await s.restart();
    expect((await s.gw('GET', '/radiusProxyConfig')).body).toEqual({ pools: [] });
  });
});
