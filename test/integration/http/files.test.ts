import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankCommand } from '../../../actors/device/command-lifecycle.js';
import { CommandsRepo } from '../../../src/store/commands-repo.js';
import { FilesRepo } from '../../../src/store/files-repo.js';
import { expectEnvelope, startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
const A = 'aabbccdd0201';
const B = 'aabbccdd0202';
const TRACE = '11111111-2222-4333-8444-555555555555';
const WAITING = '11111111-2222-4333-8444-666666666666';
const BYTES = Buffer.from([0xd4, 0xc3, 0xb2, 0xa1, 0x00, 0xff, 0x0a, 0x0d]);
/** Now, in epoch seconds: older files would go at the start by the retention limit (7 days). */
const NOW = Math.floor(Date.now() / 1000);

async function seed(server: TestServer): Promise<void> {
  // Normally the AP uploads these after a trace or script command.
  const commands = new CommandsRepo(server.running.store);
  await commands.insert({ ...blankCommand({ UUID: TRACE, command: 'trace', serialNumber: A, submitted: 10, submittedBy: 't' }), status: 'completed', attachFile: NOW, attachSize: BYTES.length, attachType: 'pcap' });
  await commands.insert({ ...blankCommand({ UUID: WAITING, command: 'trace', serialNumber: A, submitted: 20, submittedBy: 't' }), waitingForFile: 1 });
  await new FilesRepo(server.running.store).put({ uuid: TRACE, serialNumber: A, type: 'pcap', created: NOW, content: BYTES });
}

beforeAll(async () => {
  s = await startTestServer();
  for (const serial of [A, B]) expect((await s.gw('POST', `/device/${serial}`, { body: {} })).status).toBe(200);
  await seed(s);
});
afterAll(async () => s.close());

async function download(uuid: string, serial: string) {
  const res = await fetch(`${s.running.gatewayUrl}/api/v1/file/${uuid}?serialNumber=${serial}`, { headers: { authorization: 'Bearer test-admin-token-0001' } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('GET /api/v1/file/:uuid', () => {
  it('returns the bytes with the type of a capture and a Content-Disposition', async () => {
    const a = await download(TRACE, 'AA:BB:CC:DD:02:01');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/vnd.tcpdump.pcap');
    expect(a.headers.get('content-disposition')).toBe(`attachment; filename=${TRACE}.pcap`);
    expect(a.bytes.equals(BYTES)).toBe(true);
  });
  it('answers 202 with no body while the device has not uploaded yet', async () => {
    const a = await download(WAITING, A);
    expect(a.status).toBe(202);
    expect(a.bytes.length).toBe(0);
  });
  it("answers 404 for another device's file (no 202 leak) and for an unknown uuid", async () => {
    expectEnvelope(await s.gw('GET', `/file/${TRACE}?serialNumber=${B}`), 404);
    expectEnvelope(await s.gw('GET', `/file/${WAITING}?serialNumber=${B}`), 404);
    expectEnvelope(await s.gw('GET', `/file/99999999-2222-4333-8444-555555555555?serialNumber=${A}`), 404);
  });
  it.each([
    ['a missing serialNumber', `/file/${TRACE}`],
    ['a malformed serialNumber', `/file/${TRACE}?serialNumber=zz`],
    ['a uuid that is not a uuid', `/file/abc?serialNumber=${A}`],
    ['an unknown parameter', `/file/${TRACE}?serialNumber=${A}&x=1`],
  ])('answers 400 for %s', async (_name, path) => {
    expectEnvelope(await s.gw('GET', path), 400);
  });
  it('answers 401 without a token', async () => {
    expectEnvelope(await s.gw('GET', `/file/${TRACE}?serialNumber=${A}`, { token: null }), 401);
  });
});

describe('DELETE /api/v1/file/:uuid', () => {
  it('needs a valid serialNumber and uuid', async () => {
    expectEnvelope(await s.gw('DELETE', `/file/${TRACE}`), 400);
    expectEnvelope(await s.gw('DELETE', `/file/nope?serialNumber=${A}`), 400);
    expectEnvelope(await s.gw('DELETE', `/file/${TRACE}?serialNumber=${B}`), 404);
  });
  it('finds the file after a restart, deletes it, and keeps the command', async () => {
    await s.restart();
    expect((await download(TRACE, A)).bytes.equals(BYTES)).toBe(true);
    expect((await s.gw('DELETE', `/file/${TRACE}?serialNumber=${A}`)).status).toBe(204);
    expectEnvelope(await s.gw('GET', `/file/${TRACE}?serialNumber=${A}`), 404);
    expectEnvelope(await s.gw('DELETE', `/file/${TRACE}?serialNumber=${A}`), 404);
    expect((await s.gw('GET', `/command/${TRACE}`)).status).toBe(200);
  });
});
