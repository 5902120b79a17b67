/**
 * The edge's upload relay (`edge --upload-port --upload-target`): for APs that reach only the
 * edge, an HTTP(S) listener that passes `POST /v1/upload/<commandUUID>` on to serve's uploader,
 * body and answer streamed as they come (nothing is stored here: serve decides whether the
 * upload is expected and keeps the file). Point serve's `--upload-url` at this relay so the
 * `uri` of trace and script commands names it. Frames go through NATS; files do not: a 10 MB
 * capture is far past a NATS message, and serve's uploader is HTTP already.
 */
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { LinkLogger } from '../nats/connect.js';
import { applyServerLimits, nodeServerOptions, onClientError } from '../../server/http-limits.js';
import { uploadLimits } from '../../server/upload-limits.js';

export interface UploadRelayOptions {
  port: number;
  host: string;
  /** serve's uploader, e.g. https://serve.internal:16003 */
  target: string;
  /** The edge's server certificate (as for its websocket port), for HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  logger: LinkLogger;
}

export interface UploadRelay {
  url: string;
  close(): Promise<void>;
}

const UPLOAD_PATH = /^\/v1\/upload\/[0-9a-fA-F-]{36}\/?(\?.*)?$/;

function answer(res: ServerResponse, status: number, details: string, description: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify({ ErrorCode: status, ErrorDetails: details, ErrorDescription: description });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
  res.end(text);
}

export async function createUploadRelay(opts: UploadRelayOptions): Promise<UploadRelay> {
  const target = new URL(opts.target);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST' || !UPLOAD_PATH.test(req.url ?? '')) {
      answer(res, 404, 'path', 'Uploads go to POST /v1/upload/<commandUUID>.');
      req.resume();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const h of ['content-type', 'content-length', 'transfer-encoding']) {
      const v = req.headers[h];
      if (v !== undefined) headers[h] = v;
    }
    const upstream = send(new URL(req.url!, target), { method: 'POST', headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (err) => {
      opts.logger.warn({ err: err.message, target: opts.target }, 'upload relay: serve\'s uploader cannot be reached');
      answer(res, 502, 'uploader', 'The gateway\'s uploader cannot be reached from this edge; try again later.');
    });
    // An AP that goes away mid-upload: serve sees its request cut short too, and keeps nothing.
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  };
  const limits = uploadLimits();
  const options = nodeServerOptions(limits);
  const server: Server = opts.tls ? createHttpsServer({ ...options, cert: opts.tls.cert, key: opts.tls.key }, handle) : createHttpServer(options, handle);
  applyServerLimits(server, limits);
  server.on('clientError', onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : opts.port;
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
