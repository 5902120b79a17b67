import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdge, type RunningEdge } from '../../../src/runtime/edge.js';
import { multipartBody } from '../../../src/gateway/multipart.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import { silentLogger } from '../../../src/links/nats/connect.js';
import type { CommandFrame } from '../../../src/protocol/frame.js';
import { freePort, startNats, type TestNats } from '../../helpers/nats.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';
import { connectFrame } from './frames.js';

/**
 * A real AP's upload path: the AP on a websocket to `edge`, serve behind NATS (`serve --nats`),
 * and the file POSTed over HTTP to the uri of the command, which names the edge's upload relay
 * (`edge --upload-target`, serve `--upload-url`): the AP reaches nothing but the edge.
 */
describe('uploads through edge + serve --nats', () => {
  const serial = 'a0b1c2d3e0f1';
  let nats: TestNats;
  let serve: TestServer;
  let edge: RunningEdge;
  let ap: WsApClient;
  const commands: CommandFrame[] = [];

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    const uploaderPort = await freePort();
    edge = await runEdge({ port: 0, host: '127.0.0.1', nats: nats.url, logger: silentLogger, uploadTarget: `http://127.0.0.1:${uploaderPort}`, uploadPort: 0 });
    serve = await startTestServer({ sim: false, nats: nats.url, uploadPort: uploaderPort, uploadUrl: edge.uploadRelay!.url });
    ap = new WsApClient({ url: `${edge.edge.url}/ws`, onCommand: (f) => commands.push(f as CommandFrame) });
    await ap.opened;
    ap.send(connectFrame(serial));
    await until('the AP online in serve', async () => serve.running.fleet.status(serial)?.connected, (c) => c === true);
  });
  afterAll(async () => {
    ap?.terminate();
    await edge?.close();
    await serve?.close();
    await nats?.stop();
  });

  it('a trace: the uri names the edge relay; the AP replies over the websocket and uploads over HTTP; the command completes', async () => {
    const answer = serve.gw('POST', `/device/${serial}/trace`, { body: { network: 'up', duration: 1 } });
    const frame = await until('the trace at the AP', async () => commands.find((c) => c.method === 'trace'), (c) => c !== undefined);
    const uri = frame!.params.uri as string;
    expect(uri.startsWith(`${edge.uploadRelay!.url}/v1/upload/`)).toBe(true);
    ap.send({ jsonrpc: '2.0', id: frame!.id, result: { serial, status: { error: 0, text: 'Trace completed', resultCode: 0, resultText: 'Done' } } });
    const capture = Buffer.concat([Buffer.from('d4c3b2a1', 'hex'), Buffer.alloc(20)]);
    const boundary = 'ap-curl-boundary';
    const up = await fetch(uri, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: multipartBody(uri.split('/').pop()!, 'trace.pcap', capture, boundary) });
    expect([up.status, await up.json()]).toEqual([200, { filename: uri.split('/').pop(), error: 0 }]);
    const done = (await answer).body as { UUID: string; status: string; attachSize: number };
    expect(done).toMatchObject({ status: 'completed', attachSize: capture.length, waitingForFile: 0 });
    const file = await fetch(`${serve.running.gatewayUrl}/api/v1/file/${done.UUID}?serialNumber=${serial}`, { headers: { authorization: 'Bearer test-admin-token-0001' } });
    expect(Buffer.from(await file.arrayBuffer()).equals(capture)).toBe(true);
    // A second upload through the relay gets serve's refusal, passed on as it is.
    const again = await fetch(uri, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: capture });
    expect([again.status, ((await again.json()) as { ErrorCode: number }).ErrorCode]).toEqual([409, 409]);
  });

  it('the relay refuses anything but an upload POST, and says so when serve cannot be reached', async () => {
    expect((await fetch(`${edge.uploadRelay!.url}/api/v1/devices`)).status).toBe(404);
    const port = await freePort();
    const lonely = await runEdge({ port: 0, host: '127.0.0.1', nats: nats.url, logger: silentLogger, uploadTarget: `http://127.0.0.1:${port}`, uploadPort: 0 });
    try {
      const r = await fetch(`${lonely.uploadRelay!.url}/v1/upload/11111111-2222-4333-8444-555555555555`, { method: 'POST', body: 'x' });
      expect([r.status, ((await r.json()) as { ErrorDetails: string }).ErrorDetails]).toEqual([502, 'uploader']);
    } finally {
      await lonely.close();
    }
  });
});
