import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CommandService } from '../../../actors/command-service.js';
import { Fleet } from '../../../actors/fleet.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { isAirtwinError } from '../../../src/errors.js';
import { registerTelemetryRoutes } from '../../../src/gateway/routes/telemetry-ws.js';
import { TelemetryRegistry, telemetryUri, type TelemetryRegistryOptions } from '../../../src/gateway/telemetry.js';
import { createAuthenticator } from '../../../src/server/auth.js';
import { wireProfile } from '../../../src/server/wire/install.js';
import { until } from '../../helpers/until.js';
import { buildServiceApp, registerApi } from '../../../src/server/build-app.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';

const TOKEN = 'telemetry-test-token-01';
const A = 'aabbccddeeff';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A gateway-shaped app with only the telemetry route, a fleet with one connected fake AP, on a VirtualClock. */
async function setup(registryOpts: Partial<TelemetryRegistryOptions> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-telemetry-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock = new VirtualClock(1_700_000_000_000);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const fleet = new Fleet({ clock, newId });
  const svc = new CommandService({ fleet, store: new MemoryCommandStore(), clock, newId });
  const telemetry = new TelemetryRegistry({ clock, events$: fleet.events$, ...registryOpts });
  const authenticator = await createAuthenticator({ apiTokens: [TOKEN], dataDir }, { now: () => clock.now() });
  const app: FastifyInstance = await buildServiceApp({
    name: 'test gateway', version: '0', description: 'telemetry only', logger: pino({ level: 'silent' }), authenticator, bodyLimit: 1 << 20,
    wire: wireProfile('spec'),
  });
  await registerApi(app, authenticator, async (api) => registerTelemetryRoutes(api, { telemetry, authenticator, clock }));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => app.close());
  cleanups.push(() => telemetry.close());

  const link = new FakeLink(A, () => clock.now());
  fleet.attach(link);
  link.up();
  link.connect();
  await flush();

  /** What the POST telemetry route does: the command, then the stream under its UUID. */
  const startStream = async (body: { interval: number; lifetime?: number }) => {
    const cmd = await svc.telemetry(A, body);
    telemetry.start({ serial: A, uuid: cmd.UUID, interval: body.interval, lifetime: body.lifetime });
    return { uuid: cmd.UUID, uri: telemetryUri(base, A, cmd.UUID) };
  };
  const sample = (i: number) => link.notify('telemetry', { data: { event: 'state', payload: { serial: A, uuid: 1, state: { unit: { uptime: i } } } } });
  return { clock, fleet, telemetry, base, link, startStream, sample };
}

/** Opens a websocket; resolves once open, or with the HTTP status the server refused it with. */
function connect(uri: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const ws = new WebSocket(uri, { headers });
  const messages: string[] = [];
  const waiting: (() => void)[] = [];
  ws.on('message', (d) => {
    messages.push(d.toString());
    waiting.splice(0).forEach((w) => w());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const opened = new Promise<{ status: number; body?: any }>((resolve, reject) => {
    ws.on('open', () => resolve({ status: 101 }));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    ws.on('error', (e) => reject(e));
  });
  cleanups.push(() => ws.terminate());
  const received = async (count: number) => {
    while (messages.length < count) await new Promise<void>((r) => waiting.push(r));
    return messages.slice(0, count).map((m) => JSON.parse(m));
  };
  return { ws, opened, closed, received, messages };
}

describe('GET /api/v1/ws_telemetry', () => {
  it('streams each telemetry frame of the device as JSON and closes with a reason at interval 0', async () => {
    const { startStream, sample, telemetry, clock } = await setup();
    const { uuid, uri } = await startStream({ interval: 2 });
    expect(uri).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/api\/v1\/ws_telemetry\?uuid=.+&serialNumber=aabbccddeeff$/);
    const a = connect(uri);
    const b = connect(uri);
    expect((await a.opened).status).toBe(101);
    expect((await b.opened).status).toBe(101);
    expect(telemetry.status(A)).toMatchObject({ running: true, interval: 2, websocketClients: 2 });

    sample(1);
    clock.increment(2000);
    sample(2);
    const frames = await a.received(2);
    expect(frames.map((f) => f.payload.state.unit.uptime)).toEqual([1, 2]);
    expect(frames[1]).toMatchObject({ event: 'state', timestamp: Math.floor(clock.now() / 1000) });
    expect(await b.received(2)).toEqual(frames);

    expect(telemetry.stop(A, uuid)).toBe(1);
    expect(await a.closed).toEqual({ code: 1000, reason: 'telemetry stopped (interval 0)' });
    expect(await b.closed).toEqual({ code: 1000, reason: 'telemetry stopped (interval 0)' });
    expect(telemetry.status(A).running).toBe(false);
  });

  it('ends the stream when its lifetime is over, and reports the device as runaway after that', async () => {
    const runaway: string[] = [];
    const { startStream, sample, clock } = await setup({ onRunaway: (s) => runaway.push(s) });
    const { uri } = await startStream({ interval: 1, lifetime: 30 });
    const c = connect(uri);
    await c.opened;
    sample(1);
    await c.received(1);
    clock.increment(30_000);
    expect(await c.closed).toEqual({ code: 1000, reason: 'telemetry lifetime of 30 s ended' });
    sample(2);
    sample(3);
    expect(runaway).toEqual([A]); // once, not per frame
    expect(c.messages).toHaveLength(1);
  });

  it('refuses a wrong header or ?token= with 401, and accepts ?token= for browsers', async () => {
    const { startStream, sample } = await setup();
    const { uri } = await startStream({ interval: 5 });
    const refused = await connect(uri, { authorization: 'Bearer wrong-token-000' }).opened;
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ ErrorCode: 401 });
    expect((await connect(`${uri}&token=not-the-token`, {}).opened).status).toBe(401);
    const browser = connect(`${uri}&token=${TOKEN}`, {});
    expect((await browser.opened).status).toBe(101);
    sample(7);
    expect((await browser.received(1))[0].payload.state.unit.uptime).toBe(7);
  });

  it('takes the token as the first frame (token:<t>), as the OpenWiFi UI sends it, and sends nothing before', async () => {
    const { startStream, sample, telemetry } = await setup();
    const { uri } = await startStream({ interval: 5 });
    const ui = connect(uri, {});
    expect((await ui.opened).status).toBe(101);
    sample(1);
    expect(telemetry.status(A).websocketClients).toBe(0);
    ui.ws.send(`token:${TOKEN}`);
    await until('the socket joins the stream', async () => telemetry.status(A).websocketClients, (n) => n === 1);
    sample(2);
    expect((await ui.received(1))[0].payload.state.unit.uptime).toBe(2);
    expect(ui.messages).toHaveLength(1);
  });

  it('closes with 1008 after an error frame for a bad token frame, another first frame, or none in 30 s', async () => {
    const { startStream, clock } = await setup();
    const { uri } = await startStream({ interval: 5 });
    for (const first of ['token:not-the-token', 'hello']) {
      const c = connect(uri, {});
      await c.opened;
      c.ws.send(first);
      expect((await c.closed).code).toBe(1008);
      expect(JSON.parse(c.messages[0]!)).toEqual({ error: 'Invalid token. Closing connection.' });
    }
    const silent = connect(uri, {});
    await silent.opened;
    clock.increment(30_000);
    expect(await silent.closed).toEqual({ code: 1008, reason: 'no token frame in time' });
  });

  it('answers 404 for an unknown stream and 400 without the query parameters', async () => {
    const { base } = await setup();
    const unknown = await connect(telemetryUri(base, A, '00000000-0000-4000-8000-999999999999')).opened;
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ErrorCode: 404, ErrorDetails: 'uuid' });
    const bare = await connect(`${base.replace('http', 'ws')}/api/v1/ws_telemetry`).opened;
    expect(bare.status).toBe(400);
  });
});

describe('TelemetryRegistry: messagebus', () => {
  it('refuses messagebus streams with NOT_CONFIGURED (400) when no message bus is configured', async () => {
    const { telemetry } = await setup();
    expect(telemetry.messagebusConfigured).toBe(false);
    let caught: unknown;
    try {
      telemetry.check({ messagebus: true });
    } catch (e) {
      caught = e;
    }
    expect(isAirtwinError(caught) && { code: caught.code, status: caught.status, details: caught.details }).toEqual({
      code: 'NOT_CONFIGURED', status: 400, details: 'messagebus',
    });
    expect(() => telemetry.start({ serial: A, uuid: 'u', interval: 1, messagebus: true })).toThrow(/--nats/);
  });

  it('publishes frames to telemetry.<serial> instead of websockets when messagebus is set', async () => {
    const published: [string, any][] = [];
    const { telemetry, sample } = await setup({ publish: (subject, data) => published.push([subject, JSON.parse(data)]) });
    telemetry.start({ serial: A, uuid: 'bus-1', interval: 1, messagebus: true });
    expect(telemetry.has(A, 'bus-1')).toBe(false); // no websocket for a bus stream
    sample(4);
    expect(published).toHaveLength(1);
    expect(published[0]![0]).toBe(`telemetry.${A}`);
    expect(published[0]![1].payload.state.unit.uptime).toBe(4);
    expect(telemetry.status(A)).toMatchObject({ running: true, messagebusClients: 1, messagebusPackets: 1 });
  });
});
