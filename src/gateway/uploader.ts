import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { rm, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { airtwinError, isNoSpaceError, storeFailure, type AirtwinError } from '../errors.js';
import type { Clock } from '../protocol/clock.js';
import { normalizeSerial } from '../protocol/serial.js';
import type { FilesRepo, FileRetention } from '../store/files-repo.js';
import { fileType } from '../store/files-repo.js';
import type { FileWaits } from '../../actors/file-waits.js';
import { uploadedFile } from './multipart.js';
import { applyServerLimits, nodeServerOptions, onClientError, type HttpLimits } from '../server/http-limits.js';
import { uploadLimits } from '../server/upload-limits.js';

/** Settings of the file uploader (`serve --upload-*`). */
export interface UploaderOptions {
  files: FilesRepo;
  waits: FileWaits;
  clock: Clock;
  logger: Logger;
  /** Largest file accepted, bytes (upstream `openwifi.fileuploader.maxsize`, 10 MB; here 10 MiB). */
  maxBytes: number;
  retention: FileRetention;
  /** TLS with the APIs' certificate; plain HTTP without. */
  https?: { cert: Buffer; key: Buffer };
  /** Uploads received at once; more are answered 503 at once. */
  maxConcurrent?: number;
  /** Timeouts and connection cap, as the APIs' (with room for a large body: uploadLimits). */
  limits?: HttpLimits;
  /** A stored upload, for the recorder (`--record`). */
  onStored?: (upload: { uuid: string; serial: string; type: string; bytes: Buffer; at: number }) => void;
}

/** The uploader's port unless configured (upstream's FileUploader port). */
export const DEFAULT_UPLOAD_PORT = 16003;
const UPLOAD_PATH = /^\/v1\/upload\/([0-9a-fA-F-]{36})\/?$/;
/** Room for multipart headers and boundaries beyond the file itself. */
const MULTIPART_SLACK = 64 * 1024;
const RETENTION_EVERY_MS = 10 * 60_000;

/**
 * The file uploader (docs/upstream.md#other-gateway-routes): an HTTP(S)
 * listener of its own where an AP POSTs the file of a command to `/v1/upload/<commandUUID>`,
 * multipart (as real APs' curl sends it) or raw. Only an expected upload is read: a command that
 * waits for a file (FileWaits), once, from its serial when the request names one
 * (`?serialNumber=`); a body past the size limit, cut short, or that the disk cannot hold is
 * refused with the error envelope and leaves nothing behind (bytes are written to a partial
 * file, renamed into place when whole). Success answers upstream's `{"filename": uuid, "error": 0}`.
 */
export class Uploader {
  readonly server: Server;
  private readonly busy = new Set<string>();
  private active = 0;
  private retentionTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: UploaderOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const limits = uploadLimits(opts.limits);
    const options = nodeServerOptions(limits);
    this.server = opts.https ? createHttpsServer({ ...options, cert: opts.https.cert, key: opts.https.key }, handler) : createHttpServer(options, handler);
    applyServerLimits(this.server, limits);
    this.server.on('clientError', onClientError);
  }

  /** Listens; resolves with the base URL (`http(s)://host:port`). Starts the retention sweep. */
  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    const bound = address !== null && typeof address === 'object' ? address.port : port;
    void this.prune();
    // Wall time: retention is about disk, not the simulation's clock.
    this.retentionTimer = setInterval(() => void this.prune(), RETENTION_EVERY_MS);
    this.retentionTimer.unref();
    const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
    return `${this.opts.https ? 'https' : 'http'}://${shown}:${bound}`;
  }

  /** Applies the retention limits now; resolves with how many files went. */
  async prune(): Promise<number> {
    try {
      const partials = new Set([...this.busy]);
      const removed = await this.opts.files.prune(this.opts.retention, Math.floor(this.opts.clock.now() / 1000), partials);
      if (removed > 0) this.opts.logger.info({ removed }, 'uploaded files removed by retention');
      return removed;
    } catch (e) {
      this.opts.logger.warn({ err: e }, 'file retention sweep failed');
      return 0;
    }
  }

  async close(): Promise<void> {
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://uploader');
    const m = UPLOAD_PATH.exec(url.pathname);
    if (!m) return this.refuse(req, res, airtwinError('NOT_FOUND', 'path', 'Uploads go to POST /v1/upload/<commandUUID>.'));
    if (req.method !== 'POST') return this.refuse(req, res, airtwinError('NOT_FOUND', 'method', 'Uploads are POSTed.'));
    const uuid = m[1]!.toLowerCase();
    let serial: string | undefined;
    const named = url.searchParams.get('serialNumber');
    if (named !== null) {
      try {
        serial = normalizeSerial(named);
      } catch (e) {
        return this.refuse(req, res, e as AirtwinError);
      }
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    const limit = this.opts.maxBytes + (req.headers['content-type']?.startsWith('multipart/') ? MULTIPART_SLACK : 0);
    if (Number.isFinite(declared) && declared > limit) return this.refuse(req, res, tooLarge(this.opts.maxBytes));
    if (this.active >= (this.opts.maxConcurrent ?? 32)) {
      return this.refuse(req, res, airtwinError('UPLOAD_BUSY', 'uploader', 'Too many uploads at once; try again shortly.'));
    }
    const claim = this.opts.waits.claim(uuid, serial);
    if (typeof claim === 'string') return this.refuse(req, res, refusal(claim, uuid, serial));
    this.active++;
    const partial = this.opts.files.partialPath(uuid);
    this.busy.add(partial);
    try {
      const body = await readBody(req, limit);
      if ('error' in body) throw body.error === 'large' ? tooLarge(this.opts.maxBytes) : incomplete('The upload was cut short before its end.');
      const parsed = uploadedFile(body.bytes, req.headers['content-type']);
      if ('error' in parsed) throw incomplete(parsed.error);
      if (parsed.file.length > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes);
      if (parsed.file.length === 0) throw incomplete('The uploaded file is empty.');
      await this.keep(uuid, claim, parsed.file, partial);
      send(res, 200, { filename: uuid, error: 0 });
    } catch (e) {
      this.opts.waits.release(uuid);
      await rm(partial, { force: true });
      const err = isCoded(e) ? e : airtwinError('INTERNAL', 'upload', undefined, e);
      this.opts.logger.warn({ uuid, code: err.code, err: isCoded(e) ? undefined : e }, 'upload refused');
      this.refuse(req, res, err);
    } finally {
      this.busy.delete(partial);
      this.active--;
    }
  }

  /**
   * Takes a file without HTTP (a replayed recording's upload), with the same checks and effects
   * as a POST. Rejects with the coded error a POST would answer.
   */
  async accept(uuid: string, serial: string, bytes: Buffer): Promise<void> {
    const claim = this.opts.waits.claim(uuid, serial);
    if (typeof claim === 'string') throw refusal(claim, uuid, serial);
    const partial = this.opts.files.partialPath(uuid);
    this.busy.add(partial);
    try {
      if (bytes.length > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes);
      await this.keep(uuid, claim, bytes, partial);
    } catch (e) {
      this.opts.waits.release(uuid);
      await rm(partial, { force: true });
      throw e;
    } finally {
      this.busy.delete(partial);
    }
  }

  /** Writes the claimed file whole, renames it into place, indexes it, and tells the waiting command. */
  private async keep(uuid: string, claim: { type: string; serial: string }, file: Buffer, partial: string): Promise<void> {
    try {
      await writeFile(partial, file);
    } catch (e) {
      throw isNoSpaceError(e)
        ? airtwinError('INSUFFICIENT_STORAGE', 'file', 'The gateway has no disk space left for this file; nothing was kept. Retry once space is freed.', e)
        : airtwinError('STORE_FAILURE', 'file', 'The file could not be written; nothing was kept.', e);
    }
    const at = this.opts.clock.now();
    try {
      await this.opts.files.commit({ uuid, serialNumber: claim.serial, type: fileType(claim.type), created: Math.floor(at / 1000), size: file.length }, partial);
    } catch (e) {
      throw isCoded(e) ? e : storeFailure('INSERT INTO files', e);
    }
    this.opts.waits.arrived(uuid, file.length);
    this.opts.onStored?.({ uuid, serial: claim.serial, type: claim.type, bytes: file, at });
    this.opts.logger.info({ uuid, serial: claim.serial, bytes: file.length, type: claim.type }, 'file uploaded');
  }

  /** Answers an error and closes the connection: what the client may still send is not read. */
  private refuse(req: IncomingMessage, res: ServerResponse, err: AirtwinError): void {
    if (res.headersSent || res.destroyed) return;
    res.setHeader('connection', 'close');
    send(res, err.status, { ErrorCode: err.status, ErrorDetails: err.details, ErrorDescription: err.message });
    if (!req.complete) req.resume();
  }
}

function isCoded(e: unknown): e is AirtwinError {
  return e instanceof Error && 'code' in e && 'status' in e && typeof (e as AirtwinError).status === 'number';
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const tooLarge = (max: number) => airtwinError('PAYLOAD_TOO_LARGE', 'file', `The file is larger than the upload limit of ${max} bytes; nothing was kept.`);
const incomplete = (why: string) => airtwinError('UPLOAD_INCOMPLETE', 'file', `${why} Nothing was kept.`);

function refusal(why: 'unexpected' | 'done' | 'busy', uuid: string, serial: string | undefined): AirtwinError {
  if (why === 'done') return airtwinError('UPLOAD_DONE', 'uuid', `The file of command ${uuid} was uploaded already.`);
  if (why === 'busy') return airtwinError('UPLOAD_DONE', 'uuid', `The file of command ${uuid} is being uploaded right now.`);
  return airtwinError('UPLOAD_NOT_EXPECTED', 'uuid',
    `No command ${uuid}${serial ? ` of device ${serial}` : ''} waits for a file: unknown, finished, timed out, or of another device.`);
}

/** The whole body, or why not: past `limit` bytes, or the client went away before its end. */
function readBody(req: IncomingMessage, limit: number): Promise<{ bytes: Buffer } | { error: 'large' | 'cut' }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (v: { bytes: Buffer } | { error: 'large' | 'cut' }) => {
      if (settled) return;
      settled = true;
      resolve(v);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.pause();
        done({ error: 'large' });
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => done({ bytes: Buffer.concat(chunks) }));
    req.on('aborted', () => done({ error: 'cut' }));
    req.on('close', () => done(req.complete ? { bytes: Buffer.concat(chunks) } : { error: 'cut' }));
    req.on('error', () => done({ error: 'cut' }));
  });
}

