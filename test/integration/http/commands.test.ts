import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { CommandService } from '../../../actors/command-service.js';
import { Fleet } from '../../../actors/fleet.js';
import type { CommandStore } from '../../../actors/command-store.js';
import { blankCommand } from '../../../actors/device/command-lifecycle.js';
import { CommandsRepo } from '../../../src/store/commands-repo.js';
import { FilesRepo } from '../../../src/store/files-repo.js';
import type { Command } from '../../../src/store/records.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
let repo: CommandsRepo;
const A = 'aabbccdd0001';
const B = 'aabbccdd0002';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function command(n: number, serial: string, submitted: number, extra: Partial<Command> = {}): Command {
  return { ...blankCommand({ UUID: uuid(n), command: 'reboot', serialNumber: serial, submitted, submittedBy: 'test' }), ...extra };
}

beforeAll(async () => {
  s = await startTestServer();
  repo = new CommandsRepo(s.running.store);
  for (const serial of [A, B]) expect((await s.gw('POST', `/device/${serial}`, { body: {} })).status).toBe(200);
  // These rows normally come from the command service as APs answer.
  for (let i = 1; i <= 5; i++) await repo.insert(command(i, A, 1000 + i * 10));
  await repo.insert(command(6, B, 1005, { command: 'ping' }));
});
afterAll(async () => s.close());

describe('CommandsRepo as the CommandStore port', () => {
  it('satisfies the port and keeps the whole record through insert and update', async () => {
    const port: CommandStore = repo;
    const c = blankCommand({ UUID: uuid(100), command: 'configure', serialNumber: B, submitted: 2000, submittedBy: 'ops' });
    await port.insert(c);
    await port.update({ ...c, status: 'completed', executed: 2001, completed: 2003, results: '{"status":{"error":0}}', errorText: '', attachSize: 4, attachType: 'txt' });
    const a = await s.gw('GET', `/command/${uuid(100)}`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ ...c, status: 'completed', executed: 2001, completed: 2003, results: '{"status":{"error":0}}', attachSize: 4, attachType: 'txt' });
    await expect(port.insert(c)).rejects.toMatchObject({ code: 'STORE_FAILURE' });
  });
});

describe('CommandService persisting through CommandsRepo', () => {
  it('stores every change of a real ping, readable over HTTP', async () => {
    const clock = new SimulatedClock();
    clock.set(1_700_000_000_000);
    let n = 500;
    const newId = () => uuid(++n);
    const fleet = new Fleet({ clock, newId });
    const svc = new CommandService({ fleet, store: repo, clock, newId });
    const link = new FakeLink(B, () => clock.now());
    fleet.attach(link);
    link.up();
    link.connect({ uuid: 7 });
    await flush();
    const p = svc.ping(B, { submittedBy: 'alice' });
    await flush();
    clock.increment(20);
    link.reply(link.last().id, { error: 0 }, { deviceUTCTime: 1_699_999_999_000, uuid: 7 });
    const { command } = await p;
    await svc.flush();
    svc.close();
    fleet.stopAll();
    const a = await s.gw('GET', `/command/${command.UUID}`);
    expect(a.body).toMatchObject({ UUID: command.UUID, command: 'ping', serialNumber: B, status: 'completed', submittedBy: 'alice' });
    expect(JSON.parse(a.body.results)).toMatchObject({ status: { error: 0 } });
    expect((await s.gw('DELETE', `/command/${command.UUID}`)).status).toBe(204);
  });
});

describe('GET /api/v1/commands', () => {
  it('lists every command oldest first without parameters', async () => {
    const a = await s.gw('GET', '/commands');
    expect(a.status).toBe(200);
    expect(a.body.commands.map((c: Command) => c.UUID)).toEqual([uuid(6), uuid(1), uuid(2), uuid(3), uuid(4), uuid(5), uuid(100)]);
    expect(typeof a.body.commands[0].details).toBe('string');
  });

  it("filters by serial (any case and separators), inclusive dates, and pages 1-based", async () => {
    const bySerial = await s.gw('GET', '/commands?serialNumber=AA:BB:CC:DD:00:01');
    expect(bySerial.body.commands).toHaveLength(5);
    const range = await s.gw('GET', `/commands?serialNumber=${A}&startDate=1020&endDate=1040`);
    expect(range.body.commands.map((c: Command) => c.submitted)).toEqual([1020, 1030, 1040]);
    const paged = await s.gw('GET', `/commands?serialNumber=${A}&offset=2&limit=2`);
    expect(paged.body.commands.map((c: Command) => c.UUID)).toEqual([uuid(2), uuid(3)]);
    const zero = await s.gw('GET', `/commands?serialNumber=${A}&offset=0&limit=1`);
    expect(zero.body.commands.map((c: Command) => c.UUID)).toEqual([uuid(1)]);
  });

  it('newest=true gives the newest first; limit picks how many', async () => {
    const a = await s.gw('GET', `/commands?serialNumber=${A}&newest=true&limit=2`);
    expect(a.body.commands.map((c: Command) => c.UUID)).toEqual([uuid(5), uuid(4)]);
  });

  it('lists nothing for a serial without commands', async () => {
    expect((await s.gw('GET', '/commands?serialNumber=ffffffffffff')).body).toEqual({ commands: [] });
  });

  it.each([
    ['a malformed serial', '?serialNumber=xyz'],
    ['a negative offset', '?offset=-1'],
    ['a non-numeric limit', '?limit=ten'],
    ['a negative startDate', '?startDate=-5'],
    ['a date that is not a number', '?endDate=yesterday'],
    ['startDate after endDate', '?startDate=20&endDate=10'],
    ['newest that is not a boolean', '?newest=maybe'],
    ['an unknown parameter', '?colour=red'],
  ])('answers 400 for %s', async (_name, q) => {
    expectEnvelope(await s.gw('GET', `/commands${q}`), 400);
  });

  it('answers 401 without a token', async () => {
    expectEnvelope(await s.gw('GET', '/commands', { token: null }), 401);
  });
});

describe('GET /api/v1/command/:uuid', () => {
  it('returns one command with every spec field, and upstream\'s deferred, executionTime and lastTry', async () => {
    const a = await s.gw('GET', `/command/${uuid(3).toUpperCase()}`);
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['UUID', 'attachFile', 'attachSize', 'attachType', 'command', 'completed', 'custom', 'details',
      'errorCode', 'errorText', 'executed', 'results', 'serialNumber', 'status', 'submitted', 'submittedBy', 'waitingForFile', 'when',
      'deferred', 'executionTime', 'lastTry'].sort());
    expect(a.body).toMatchObject({ deferred: false, executionTime: 0, lastTry: 0 });
    expect(a.body).toMatchObject({ UUID: uuid(3), serialNumber: A, command: 'reboot', status: 'pending', submitted: 1030 });
  });
  it('answers 404 for an unknown uuid and 400 for something that is not a uuid', async () => {
    expectEnvelope(await s.gw('GET', `/command/${uuid(999)}`), 404);
    const e = expectEnvelope(await s.gw('GET', '/command/not-a-uuid'), 400);
    expect(e.ErrorDetails).toBe('commandUUID');
  });
});

describe('DELETE /api/v1/command/:uuid', () => {
  it('deletes the command and its file; a second delete is 404', async () => {
    const files = new FilesRepo(s.running.store);
    await files.put({ uuid: uuid(5), serialNumber: A, type: 'txt', created: 1, content: Buffer.from('x') });
    expect((await s.gw('DELETE', `/command/${uuid(5)}`)).status).toBe(204);
    expect(await files.get(uuid(5), A)).toBeUndefined();
    expectEnvelope(await s.gw('GET', `/command/${uuid(5)}`), 404);
    expectEnvelope(await s.gw('DELETE', `/command/${uuid(5)}`), 404);
    expectEnvelope(await s.gw('DELETE', '/command/12345'), 400);
  });
});

describe('DELETE /api/v1/commands', () => {
  it('requires serialNumber', async () => {
    expectEnvelope(await s.gw('DELETE', '/commands'), 400);
    expectEnvelope(await s.gw('DELETE', '/commands?serialNumber=nope'), 400);
    expectEnvelope(await s.gw('DELETE', `/commands?serialNumber=${A}&startDate=x`), 400);
  });

  it("deletes only that device's commands in the inclusive range", async () => {
    expect((await s.gw('DELETE', `/commands?serialNumber=${A}&startDate=1010&endDate=1020`)).status).toBe(204);
    const left = (await s.gw('GET', '/commands')).body.commands.map((c: Command) => c.UUID);
    expect(left).toEqual([uuid(6), uuid(3), uuid(4), uuid(100)]);
  });

  it('finds the history again after a restart, and deletes all of a device without dates', async () => {
    await s.restart();
    expect((await s.gw('GET', `/commands?serialNumber=${A}`)).body.commands.map((c: Command) => c.UUID)).toEqual([uuid(3), uuid(4)]);
    expect((await s.gw('DELETE', `/commands?serialNumber=${A}`)).status).toBe(204);
    expect((await s.gw('GET', `/commands?serialNumber=${A}`)).body.commands).toEqual([]);
    expect((await s.gw('GET', `/commands?serialNumber=${B}`)).body.commands).toHaveLength(2);
  });
});
