import { connect as netConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import WebSocket from 'ws';
import { InternalRttyServer } from '../../../src/rtty/server.js';
import { connectRttyClient, type RttyClient } from '../../../src/rtty/client.js';
import { encodeFrame, encodeUp } from '../../../src/rtty/frames.js';
import { until } from '../../helpers/until.js';

/**
 * The internal rtty server over real sockets on free ports, its clock virtual: an rtty client
 * (the one simulated APs run) registers as the device, a websocket plays the browser. The
 * device's terminal here answers each line with `you said: <line>`.
 */

const quiet = { info: () => undefined, warn: () => undefined };
let server: InternalRttyServer | undefined;
const clients: RttyClient[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const w of sockets.splice(0)) w.terminate();
  await server?.close();
  server = undefined;
});

async function start(opts: { timeoutS?: number; maxSessions?: number } = {}) {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  server = new InternalRttyServer({ clock, timeoutS: opts.timeoutS ?? 60, maxSessions: opts.maxSessions ?? 0, logger: quiet });
  const ports = await server.listen(0, 0, '127.0.0.1');
  return { clock, server, ...ports };
}

function echoDevice(port: number, clock: SimulatedClock, id: string, token: string): RttyClient {
  const client = connectRttyClient({
    host: '127.0.0.1', port, tls: false, devid: id, token, description: 'test AP', clock,
    openTerminal: (io) => {
      let line = '';
      io.write('$ ');
      return {
        input: (data) => {
          for (const ch of data.toString()) {
            if (ch !== '\r') { line += ch; continue; }
            if (line === 'exit') return io.exit();
            io.write(`you said: ${line}\r\n$ `);
            line = '';
          }
        },
        close: () => undefined,
      };
    },
  });
  clients.push(client);
  return client;
}

/** A browser's websocket on the session: everything it got, text and terminal bytes apart. */
async function viewer(viewport: number, id: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${viewport}/connect/${id}`);
  sockets.push(ws);
  const got = { text: [] as Record<string, unknown>[], term: '' };
  ws.on('message', (data: Buffer, binary: boolean) => {
    if (binary) got.term += data.toString();
    else got.text.push(JSON.parse(data.toString()) as Record<string, unknown>);
  });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { ws, got };
}

const SESSION = { id: 'a'.repeat(32), token: 'b'.repeat(32), serial: 'a0b1c2000001' };

describe('internal rtty server', () => {
  it('relays a terminal between a registered device and the session page', async () => {
    const { clock, port, viewport } = await start();
    expect(server!.open(SESSION)).toBe(true);
    const device = echoDevice(port, clock, SESSION.id, SESSION.token);
    await device.registered;

    const page = await fetch(`http://127.0.0.1:${viewport}/connect/${SESSION.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(SESSION.serial);

    const { ws, got } = await viewer(viewport, SESSION.id);
    await until('login', async () => got.text, (t) => t.some((m) => m.type === 'login'));
    expect(got.text).toContainEqual({ type: 'login', err: 0 });
    ws.send(Buffer.from('hello\r'));
    await until('the answer', async () => got.term, (t) => t.includes('you said: hello'));
    ws.send(JSON.stringify({ type: 'winsize', cols: 100, rows: 30 }));
    ws.send(Buffer.from('exit\r'));
    await until('logout', async () => got.text, (t) => t.some((m) => m.type === 'logout'));
    await until('session gone', async () => server!.has(SESSION.id), (h) => !h);
    expect(server!.stats()).toMatchObject({ sessionsOpened: 1, devicesRegistered: 1, viewers: 1, badFrames: 0, sessions: 0 });
  });

  it('a viewer that comes first waits; the device logs in when it registers', async () => {
    const { clock, port, viewport } = await start();
    server!.open(SESSION);
    const { ws, got } = await viewer(viewport, SESSION.id);
    await until('waiting', async () => got.text, (t) => t.some((m) => m.type === 'waiting'));
    echoDevice(port, clock, SESSION.id, SESSION.token);
    await until('login', async () => got.text, (t) => t.some((m) => m.type === 'login'));
    ws.send(Buffer.from('x\r'));
    await until('the answer', async () => got.term, (t) => t.includes('you said: x'));
  });

  it('answers 404 with the error envelope for an unknown session, page and websocket alike', async () => {
    const { viewport } = await start();
    const a = await fetch(`http://127.0.0.1:${viewport}/connect/nosuchsession`);
    expect(a.status).toBe(404);
    expect(a.headers.get('content-type')).toBe('application/json');
    expect(await a.json()).toMatchObject({ ErrorCode: 404, ErrorDetails: 'connect', ErrorDescription: expect.stringContaining('rtty') });
    expect((await fetch(`http://127.0.0.1:${viewport}/elsewhere`)).status).toBe(404);
    const ws = new WebSocket(`ws://127.0.0.1:${viewport}/connect/nosuchsession`);
    sockets.push(ws);
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.once('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  it('ends a session nobody took up when the rtty timeout passes on its clock', async () => {
    const { clock, viewport } = await start({ timeoutS: 60 });
    server!.open(SESSION);
    clock.increment(59_000);
    expect((await fetch(`http://127.0.0.1:${viewport}/connect/${SESSION.id}`)).status).toBe(200);
    clock.increment(1_000);
    expect(server!.has(SESSION.id)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${viewport}/connect/${SESSION.id}`)).status).toBe(404);
    expect(server!.stats()).toMatchObject({ sessionsExpired: 1, sessions: 0 });
  });

  it('holds at most maxSessions, counting the refusals', async () => {
    await start({ maxSessions: 1 });
    expect(server!.open(SESSION)).toBe(true);
    expect(server!.open({ ...SESSION, id: 'c'.repeat(32) })).toBe(false);
    server!.end(SESSION.id);
    expect(server!.open({ ...SESSION, id: 'c'.repeat(32) })).toBe(true);
    expect(server!.stats()).toMatchObject({ sessionsRefused: 1, sessionsOpened: 2, sessions: 1 });
  });

  it('refuses a device with a wrong token or an unknown id, and keeps the session for the right one', async () => {
    const { clock, port } = await start();
    server!.open(SESSION);
    await expect(echoDevice(port, clock, SESSION.id, 'wrong').registered).rejects.toThrow(/refused: unknown session/);
    await expect(echoDevice(port, clock, 'f'.repeat(32), SESSION.token).registered).rejects.toThrow(/refused/);
    await echoDevice(port, clock, SESSION.id, SESSION.token).registered;
    expect(server!.stats()).toMatchObject({ devicesRefused: 2, devicesRegistered: 1, sessions: 1 });
  });

  it('drops and counts a device that sends bad frames; the server keeps serving', async () => {
    const { clock, port } = await start();
    server!.open(SESSION);
    const bad = [Buffer.from([0x47, 0x45, 0x54, 0x20]), encodeFrame(0, Buffer.from('no nul')), encodeUp({ type: 'termdata', sid: 0, data: Buffer.from('x') })];
    for (const bytes of bad) {
      const socket = netConnect({ host: '127.0.0.1', port });
      socket.on('error', () => undefined);
      socket.write(bytes);
      await new Promise((resolve) => socket.once('close', resolve));
    }
    expect(server!.stats().badFrames).toBe(3);
    await echoDevice(port, clock, SESSION.id, SESSION.token).registered;
  });

  it('drops a device that stays silent past its idle limit, on the clock', async () => {
    const { clock, port } = await start();
    server!.open(SESSION);
    const socket = netConnect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    await until('accepted', async () => server!.stats().devices, (n) => n === 1);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    clock.increment(30_000);
    await closed;
    expect(server!.stats().devices).toBe(0);
  });

  it('closes every session and connection on close', async () => {
    const { clock, port, viewport } = await start();
    server!.open(SESSION);
    const device = echoDevice(port, clock, SESSION.id, SESSION.token);
    await device.registered;
    const { ws } = await viewer(viewport, SESSION.id);
    const wsClosed = new Promise((resolve) => ws.once('close', resolve));
    await server!.close();
    await wsClosed;
    expect(await device.ended).toBeTruthy();
    expect(server!.stats()).toMatchObject({ sessions: 0, devices: 0 });
  });
});
