import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/store/records.js';
import type { CommandFrame } from '../../../src/protocol/frame.js';
import { multipartBody } from '../../../src/gateway/multipart.js';
import { FakeLink } from '../../helpers/fake-link.js';
import { startTestServer, type Answer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * The file uploader end to end: a scripted AP (FakeLink on the fleet) is sent a trace or a
 * deferred script with an upload `uri`, and the test POSTs to that uri over real HTTP as the AP's
 * curl would, good uploads and bad ones. Then the simulated venue: its APs upload real files,
 * which tcpdump and tar read.
 */

const AP = 'a0b1c2d30001';
const OTHER = 'a0b1c2d30002';
const MAX = 4096;

interface Upload {
  status: number;
  body: Record<string, unknown>;
}

async function postFile(uri: string, file: Buffer, opts: { raw?: boolean; serial?: string; body?: Buffer } = {}): Promise<Upload> {
  const url = new URL(uri);
  if (opts.serial) url.searchParams.set('serialNumber', opts.serial);
  const boundary = '----airtwin-test-boundary';
  const body = opts.body ?? (opts.raw ? file : multipartBody(url.pathname.split('/').pop()!, 'f.bin', file, boundary));
  const headers = { 'content-type': opts.raw ? 'application/octet-stream' : `multipart/form-data; boundary=${boundary}` };
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Declares `declared` bytes, sends `sent` of them, and closes the socket: an upload cut short. */
function cutShort(uri: string, declared: number, sent: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(uri, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': declared } });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(Buffer.alloc(sent, 1), () => setImmediate(() => req.destroy()));
  });
}

describe('the uploader with a scripted AP', () => {
  let s: TestServer;
  let link: FakeLink;
  let other: FakeLink;

  beforeAll(async () => {
    s = await startTestServer({ uploadMaxBytes: MAX });
    link = new FakeLink(AP, () => s.running.clock.now());
    other = new FakeLink(OTHER, () => s.running.clock.now());
    for (const l of [link, other]) {
      s.running.fleet.attach(l);
      l.up();
      l.connect();
    }
    await until('both APs online', async () => [s.running.fleet.status(AP)?.connected, s.running.fleet.status(OTHER)?.connected], (c) => c.every(Boolean));
  });
  afterAll(async () => s.close());

  /** POSTs a command to the AP and waits until the AP has been sent its frame. */
  async function sendCommand(command: string, body: unknown, to = link): Promise<{ frame: CommandFrame; answer: Promise<Answer<Command>> }> {
    const before = to.sent.length;
    const answer = s.gw<Command>('POST', `/device/${to.serial}/${command}`, { body });
    await until(`the ${command} sent to the AP`, async () => to.sent.length, (n) => n > before);
    return { frame: to.last(), answer };
  }

  const nothingKept = () => {
    const dir = join(s.dataDir, 'uploads');
    expect(readdirSync(join(dir, '.partial'))).toEqual([]);
    return readdirSync(dir).filter((n) => n !== '.partial');
  };

  it('a trace carries the uri; the file after the reply completes the command, which the files API then serves', async () => {
    const { frame, answer } = await sendCommand('trace', { network: 'up', duration: 1 });
    const uri = frame.params.uri as string;
    expect(uri).toBe(`${s.running.uploaderUrl}/v1/upload/${uri.split('/').pop()}`);
    const uuid = uri.split('/').pop()!;
    link.reply(frame.id, { error: 0, text: 'Trace completed', resultCode: 0, resultText: 'Done' });
    const waiting = await until('the record executed and waiting', async () => (await s.gw<Command>('GET', `/command/${uuid}`)).body, (c) => c.status === 'executed');
    expect(waiting.waitingForFile).toBe(1);
    expect((await s.gw('GET', `/file/${uuid}?serialNumber=${AP}`)).status).toBe(202);

    const bytes = Buffer.from('a capture');
    expect(await postFile(uri, bytes, { serial: AP })).toEqual({ status: 200, body: { filename: uuid, error: 0 } });
    const done = (await answer).body;
    expect(done).toMatchObject({ UUID: uuid, status: 'completed', waitingForFile: 0, attachSize: bytes.length, attachType: 'pcap' });
    expect(done.attachFile).toBeGreaterThan(0);
    const file = await s.gw('GET', `/file/${uuid}?serialNumber=${AP}`);
    expect([file.status, file.text, file.headers.get('content-disposition')]).toEqual([200, 'a capture', `attachment; filename=${uuid}.pcap`]);

    const again = await postFile(uri, bytes, { serial: AP });
    expect(again).toMatchObject({ status: 409, body: { ErrorCode: 409, ErrorDetails: 'uuid', ErrorDescription: expect.stringMatching(/uploaded already/) } });
  });

  it('a deferred shell script: the file may come before the reply; raw bodies are taken too', async () => {
    const { frame, answer } = await sendCommand('script', { type: 'shell', script: Buffer.from('uptime').toString('base64'), deferred: true });
    const uri = frame.params.uri as string;
    expect(frame.params.timeout).toBeUndefined();
    expect((await postFile(uri, Buffer.from('up 3 days\n'), { raw: true })).status).toBe(200);
    link.reply(frame.id, { error: 0, text: 'Pending' });
    const done = (await answer).body;
    expect(done).toMatchObject({ status: 'completed', waitingForFile: 0, attachSize: 10, attachType: 'txt', deferred: true });
    const file = await s.gw('GET', `/file/${done.UUID}?serialNumber=${AP}`);
    expect([file.headers.get('content-type'), file.text]).toEqual(['text/plain', 'up 3 days\n']);
  });

  it('refuses, each with a coded error and nothing kept: unknown or finished command, wrong serial, oversized, cut short, no file part, disk full', async () => {
    const { frame, answer } = await sendCommand('trace', { network: 'up', duration: 1 });
    const uri = frame.params.uri as string;
    const uuid = uri.split('/').pop()!;
    const base = s.running.uploaderUrl;
    const before = nothingKept();

    expect(await postFile(`${base}/v1/upload/99999999-2222-4333-8444-555555555555`, Buffer.from('x'))).toMatchObject({ status: 404, body: { ErrorDetails: 'uuid' } });
    const wrong = await postFile(uri, Buffer.from('x'), { serial: OTHER });
    expect(wrong).toMatchObject({ status: 404, body: { ErrorCode: 404, ErrorDescription: expect.stringMatching(/waits for a file/) } });
    expect((await postFile(`${base}/v2/elsewhere`, Buffer.from('x'))).status).toBe(404);

    const large = await postFile(uri, Buffer.alloc(MAX + 1, 7), { serial: AP });
    expect(large).toMatchObject({ status: 413, body: { ErrorCode: 413, ErrorDescription: expect.stringMatching(/larger than the upload limit of 4096 bytes/) } });
    expect((await postFile(uri, Buffer.alloc(MAX + 1, 7), { raw: true })).status).toBe(413);

    await cutShort(uri, 2000, 100);
    // The uploader sees the socket close a moment later; until then the upload counts as in progress (409).
    const noEnd = Buffer.from('--b\r\nContent-Disposition: form-data; name="data"; filename="x"\r\n\r\nhalf of a file');
    const post = async () => {
      const res = await fetch(uri, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body: noEnd });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const cut = await until('the cut-short upload dropped', post, (r) => r.status !== 409);
    expect(cut).toMatchObject({ status: 400, body: { ErrorCode: 400, ErrorDescription: expect.stringMatching(/cut short.*Nothing was kept/) } });
    const noFile = Buffer.from('--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n');
    expect((await fetch(uri, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body: noFile })).status).toBe(400);

    // A full disk, for real: the partial file of this upload is /dev/full, where writes fail with ENOSPC.
    symlinkSync('/dev/full', join(s.dataDir, 'uploads', '.partial', uuid));
    const full = await postFile(uri, Buffer.from('x'), { serial: AP });
    expect(full).toMatchObject({ status: 507, body: { ErrorCode: 507, ErrorDescription: expect.stringMatching(/no disk space/) } });

    expect(nothingKept()).toEqual(before);
    expect((await s.gw<Command>('GET', `/command/${uuid}`)).body).toMatchObject({ status: 'executed', waitingForFile: 1 });
    // After all that, the one good upload still counts.
    link.reply(frame.id, { error: 0, text: 'Trace completed' });
    expect((await postFile(uri, Buffer.from('the capture'), { serial: AP })).status).toBe(200);
    expect((await answer).body).toMatchObject({ status: 'completed', attachSize: 11 });
    // A finished command takes no file.
    expect((await postFile(uri, Buffer.from('late'))).status).toBe(409);
  });

  it('an AP error ends the wait: the command fails and a later upload is refused', async () => {
    const { frame, answer } = await sendCommand('trace', { network: 'up', duration: 1 });
    link.reply(frame.id, { error: 2, text: 'tcpdump not found' });
    expect((await answer).body).toMatchObject({ status: 'failed', errorCode: 2, waitingForFile: 0 });
    expect((await postFile(frame.params.uri as string, Buffer.from('x'))).status).toBe(404);
  });
});

describe('files the simulated APs upload', () => {
  let s: TestServer;
  const A2 = 'a0b1c2000002';
  const A3 = 'a0b1c2000003';
  const scratch = mkdtempSync(join(tmpdir(), 'airtwin-upload-'));

  beforeAll(async () => {
    s = await startTestServer({ sim: true, scenario: 'lab', speed: 20, wire: 'openwifi' });
    for (const serial of [A2, A3]) {
      await until(`${serial} online`, async () => (await s.gw('GET', `/device/${serial}/status`)).body as { connected: boolean }, (st) => st.connected);
    }
  });
  afterAll(async () => s.close());

  async function download(uuid: string, serial: string) {
    const res = await s.gw('GET', `/file/${uuid}?serialNumber=${serial}`);
    const bytes = Buffer.from(await (await fetch(`${s.running.gatewayUrl}/api/v1/file/${uuid}?serialNumber=${serial}`, { headers: { authorization: 'Bearer test-admin-token-0001' } })).arrayBuffer());
    return { res, bytes };
  }

  it('trace: a pcap that tcpdump reads, frames of the AP\'s clients', async () => {
    const c = await s.gw('POST', `/device/${A2}/trace`, { body: { serialNumber: A2, when: 0, duration: 2, numberOfPackets: 0, network: 'up', interface: 'up' } });
    expect(c.status, c.text).toBe(200);
    expect(c.body).toMatchObject({ status: 'completed', waitingForFile: 0, details: { uri: expect.stringContaining('/v1/upload/') } });
    const { res, bytes } = await download(c.body.UUID, A2);
    expect(res.headers.get('content-type')).toBe('application/vnd.tcpdump.pcap');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Content-Disposition/i);
    const path = join(scratch, 'trace.pcap');
    writeFileSync(path, bytes);
    const r = spawnSync('tcpdump', ['-nn', '-r', path], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBe(20);
    expect(r.stdout).toMatch(/ARP, Request who-has/);
  });

  it('deferred shell script: its output as text', async () => {
    const c = await s.gw('POST', `/device/${A2}/script`, { body: { type: 'shell', script: Buffer.from('uptime').toString('base64'), deferred: true } });
    expect(c.body).toMatchObject({ status: 'completed', waitingForFile: 0, attachType: 'txt' });
    const { res, bytes } = await download(c.body.UUID, A2);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(bytes.toString()).toMatch(new RegExp(`^# shell on ${A2} at \\d+\n# 6 bytes of script, exit 0\n$`));
  });

  it('diagnostic script: a .tar.gz that tar lists; delete removes it (200 on this wire)', async () => {
    const body = { serialNumber: A3, timeout: 30, type: 'diagnostic', script: '', scriptId: '', when: 0, signature: '', deferred: true, uri: '' };
    const c = await s.gw('POST', `/device/${A3}/script`, { body });
    expect(c.body).toMatchObject({ status: 'completed', waitingForFile: 0, deferred: true });
    const { res, bytes } = await download(c.body.UUID, A3);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/gzip']);
    const path = join(scratch, 'bundle.tgz');
    writeFileSync(path, bytes);
    const r = spawnSync('tar', ['-tzf', path], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['diagnostic/state.json', 'diagnostic/system.log', 'diagnostic/config.json']);
    const del = await s.gw('DELETE', `/file/${c.body.UUID}?serialNumber=${A3}`);
    expect([del.status, del.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect((await s.gw('GET', `/file/${c.body.UUID}?serialNumber=${A3}`)).status).toBe(404);
  });
});

describe('the uploader over TLS', () => {
  let s: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-upload-tls-'));
  const A1 = 'a0b1c2000001';

  beforeAll(async () => {
    // A lab's self-signed certificate, as the real-client runners make one.
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'),
      '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    s = await startTestServer({ sim: true, scenario: 'lab', speed: 20, tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') });
  });
  afterAll(async () => s.close());

  it('listens with the APIs\' certificate; the simulated APs upload over HTTPS', async () => {
    expect(s.running.uploaderUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const gw = (path: string, init: RequestInit = {}) => new Promise<{ status: number; body: any }>((resolve, reject) => {
      const url = new URL(`${s.running.gatewayUrl}/api/v1${path}`);
      const req = httpsRequest(url, { method: init.method ?? 'GET', ca: readFileSync(join(dir, 'cert.pem')), headers: { authorization: 'Bearer test-admin-token-0001', 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += c.toString(); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      });
      req.on('error', reject);
      req.end(init.body as string | undefined);
    });
    await until('A1 online', () => gw(`/device/${A1}/status`), (r) => r.body?.connected === true);
    const c = await gw(`/device/${A1}/trace`, { method: 'POST', body: JSON.stringify({ network: 'up', duration: 1 }) });
    expect(c.body).toMatchObject({ status: 'completed', waitingForFile: 0, attachType: 'pcap' });
    expect(JSON.parse(c.body.details as string).uri).toBe(`${s.running.uploaderUrl}/v1/upload/${c.body.UUID}`);
  });
});

describe('the uploader\'s HTTP limits', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ headersTimeout: 1 });
  });
  afterAll(async () => s.close());

  it('answers a client whose headers do not come in time with 408 and the envelope, and closes it', async () => {
    const url = new URL(s.running.uploaderUrl);
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    socket.on('data', (d: Buffer) => { text += d.toString(); });
    socket.write('POST /v1/upload/11111111-2222-4333-8444-555555555555 HTTP/1.1\r\nHost: x\r\n');
    await once(socket, 'close');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ ErrorCode: 408 });
  });
});
