import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { answerChecker, operationFor, operationsOf, resolveRef, type Operation } from '../../helpers/openapi-check.js';
import { until } from '../../helpers/until.js';

const AP = 'a0b1c2000001';

type Json = Record<string, any>;

describe.each(['spec', 'openwifi'] as const)('the OpenAPI documents on the %s wire (#33 point 14)', (wire) => {
  let s: TestServer;
  let gw: Json;
  let rrm: Json;
  beforeAll(async () => {
    s = await startTestServer({ wire, sim: true, scenario: 'lab', seed: 7, speed: 100 });
    gw = (await s.gw('GET', '/openapi.json')).body;
    rrm = (await s.rrm('GET', '/openapi.json')).body;
    await until('the AP connected', async () => (await s.gw('GET', `/device/${AP}/status`)).body as Json, (b) => b?.connected === true, 60_000);
  }, 90_000);
  afterAll(async () => s?.close());

  const param = (op: Operation, name: string) => (op.op.parameters as Json[] | undefined)?.find((p) => p.name === name);
  const find = (doc: Json, method: string, path: string) => {
    const op = operationsOf(doc).find((o) => o.method === method && o.path === path);
    if (!op) throw new Error(`${method} ${path} is not in the document`);
    return op;
  };
  const bodySchema = (doc: Json, op: Operation) => resolveRef(doc, op.op.requestBody?.content?.['application/json']?.schema);

  it('has a servers entry, and an operationId (unique) and a tag on every operation', () => {
    for (const doc of [gw, rrm]) {
      expect(doc.servers?.length).toBeGreaterThan(0);
      const ops = operationsOf(doc);
      for (const { method, path, op } of ops) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      }
      const ids = ops.map((o) => o.op.operationId as string);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('states the parameters the services require as required, and the values they know as enums', () => {
    for (const path of ['/api/v1/getDeviceConfig', '/api/v1/setDeviceApConfig', '/api/v1/modifyDeviceApConfig']) {
      const op = operationsOf(rrm).find((o) => o.path === path)!;
      expect(param(op, 'serial')?.required, path).toBe(true);
    }
    expect(param(find(rrm, 'POST', '/api/v1/setDeviceZoneConfig'), 'zone')?.required).toBe(true);
    for (const path of ['/api/v1/optimizeChannel', '/api/v1/optimizeTxPower']) {
      const op = find(rrm, 'GET', path);
      expect(param(op, 'zone')?.required).toBe(true);
      expect(param(op, 'mode')?.required).toBe(true);
      expect(param(op, 'mode')?.schema.enum).toContain('random');
    }
    const run = find(rrm, 'PUT', '/api/v1/runRRM');
    expect([param(run, 'venue')?.required, param(run, 'algorithm')?.required]).toEqual([true, true]);
    expect(param(run, 'algorithm')?.schema.enum).toEqual(['OptimizeChannel', 'OptimizeTxPower']);
    expect(bodySchema(gw, find(gw, 'POST', '/api/v1/device/{serialNumber}/telemetry'))?.required).toContain('interval');
    expect(bodySchema(gw, find(gw, 'POST', '/api/v1/device/{serialNumber}/script'))?.required).toContain('type');
    for (const doc of [gw, rrm]) {
      expect(param(find(doc, 'GET', '/api/v1/system'), 'command')?.schema.enum).toEqual(['info', 'resources']);
      expect(bodySchema(doc, find(doc, 'POST', '/api/v1/system'))?.properties.command.enum).toContain('setloglevel');
    }
  });

  it('declares the 414 and 415 answers the services give, and documents the telemetry websocket', () => {
    for (const doc of [gw, rrm]) {
      for (const { method, path, op } of operationsOf(doc)) {
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '414', '415', '431', '500']));
      }
    }
    const ws = find(gw, 'GET', '/api/v1/ws_telemetry');
    expect(param(ws, 'uuid')?.required).toBe(true);
    expect(ws.op.responses['101']).toBeDefined();
  });

  it('names the RRM schemas as components', () => {
    expect(Object.keys(rrm.components.schemas)).toEqual(expect.arrayContaining(
      ['Algorithm', 'Allocation', 'RunResult', 'DeviceConfig', 'EffectiveConfig', 'LayeredConfig', 'ProviderInfo', 'Topology']));
    expect(find(rrm, 'GET', '/api/v1/getDeviceConfig').op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/EffectiveConfig');
  });

  it('describes the answers the services really give (validated with ajv)', async () => {
    await s.rrm('POST', '/setTopology', { body: { lab: [AP] } });
    const calls: [svc: 'gw' | 'rrm', method: string, url: string, body?: unknown][] = [
      ['gw', 'GET', '/devices'], ['gw', 'GET', '/devices?deviceWithStatus=true'], ['gw', 'GET', `/device/${AP}`],
      ['gw', 'GET', `/device/${AP}/status`], ['gw', 'GET', `/device/${AP}/capabilities`], ['gw', 'GET', `/device/${AP}/statistics?newest=true&limit=2`],
      ['gw', 'GET', `/device/${AP}/healthchecks`], ['gw', 'GET', `/device/${AP}/logs`], ['gw', 'GET', '/commands?limit=5'],
      ['gw', 'POST', `/device/${AP}/ping`, {}], ['gw', 'POST', `/device/${AP}/leds`, { pattern: 'on', duration: 1 }],
      ['gw', 'GET', '/capabilities'], ['gw', 'GET', '/deviceDashboard'], ['gw', 'GET', '/blacklist'], ['gw', 'GET', '/default_configurations'],
      ['gw', 'GET', '/scripts'], ['gw', 'GET', '/default_firmwares'], ['gw', 'GET', '/system?command=info'], ['gw', 'GET', '/radiusProxyConfig'],
      ['gw', 'GET', '/device/nothex'], ['gw', 'GET', '/device/ffffffffffff'], ['gw', 'POST', `/device/${AP}/telemetry`, { interval: 999 }],
      ['gw', 'GET', `/commands?limit=${'9'.repeat(30)}`], ['gw', 'GET', `/device/${'a'.repeat(120)}`],
      ['rrm', 'GET', '/algorithms'], ['rrm', 'GET', '/provider'], ['rrm', 'GET', '/getTopology'], ['rrm', 'GET', '/getDeviceLayeredConfig'],
      ['rrm', 'GET', `/getDeviceConfig?serial=${AP}`], ['rrm', 'GET', '/getDeviceConfig'], ['rrm', 'GET', '/currentModel'],
      ['rrm', 'GET', '/optimizeChannel?mode=random&zone=lab&dry_run=true'], ['rrm', 'PUT', '/runRRM?algorithm=OptimizeTxPower&venue=lab&mock=true'],
      ['rrm', 'GET', '/optimizeChannel?mode=nope&zone=lab'], ['rrm', 'GET', '/system?command=resources'],
    ];
    const problems: string[] = [];
    for (const [svc, method, url, body] of calls) {
      const doc = svc === 'gw' ? gw : rrm;
      const op = operationFor(operationsOf(doc), method, `/api/v1${url.split('?')[0]}`);
      if (!op) {
        problems.push(`${method} ${url}: no operation`);
        continue;
      }
      const a = await (svc === 'gw' ? s.gw : s.rrm)(method, url, body === undefined ? {} : { body });
      const problem = answerChecker(doc)(op, { status: a.status, contentType: a.headers.get('content-type') ?? '', text: a.text });
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
