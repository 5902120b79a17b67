import { STATUS_CODES, type IncomingMessage, type Server, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { airtwinError, type AirtwinError } from '../errors.js';
import { envelope } from './wire/profile.js';

/**
 * Time and connection limits of an HTTP listener (both APIs, and any other listener of airtwin):
 * a client that sends nothing, sends its headers or its body slowly, or keeps idle connections
 * open is dropped instead of holding a file descriptor for ever.
 */
export interface HttpLimits {
  /** The request line and headers must arrive within this time of the connection or of the previous request. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this time; not the time to answer it. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves either way for this time is closed (0: never). Longer than the longest answer (a command waits up to 130 s). */
  connectionTimeoutMs: number;
  /** Connections open at once on the listener; more are closed as they arrive (0: no cap). */
  maxConnections: number;
}

export const HTTP_LIMIT_DEFAULTS: Readonly<HttpLimits> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 72_000,
  connectionTimeoutMs: 300_000,
  maxConnections: 400,
});

/**
 * Node checks the header and request timeouts of open connections every this many ms (its
 * default, 30 s, would let a 1 s timeout run for up to 31 s).
 */
function checkingInterval(limits: HttpLimits): number {
  return Math.max(100, Math.min(30_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/**
 * Options for `http.createServer` / `https.createServer` (merge TLS options in). A request
 * without `Host` is not refused by Node (an answer without the envelope) but by the service,
 * which answers with the envelope (`missingHost`).
 */
export function nodeServerOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingInterval(limits),
    requireHostHeader: false,
  };
}

/** Applies the limits a server takes after it is created (and those createServer options Fastify overrides). */
export function applyServerLimits(server: Server, limits: HttpLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.setTimeout(limits.connectionTimeoutMs);
  server.maxConnections = limits.maxConnections === 0 ? Infinity : limits.maxConnections;
}

/** The coded error a request that Node's parser refused (or that timed out) is answered with. */
export function clientErrorAnswer(err: Error & { code?: string }): AirtwinError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return airtwinError('REQUEST_TIMEOUT', 'request', 'The request did not arrive in time (headers or body too slow); the connection is closed.');
    case 'HPE_HEADER_OVERFLOW':
      return airtwinError('HEADERS_TOO_LARGE', 'headers', 'The request line and headers are larger than 16 KB.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return airtwinError('PAYLOAD_TOO_LARGE', 'body', 'The chunk extensions of the body are too large.');
    default:
      return airtwinError('BAD_REQUEST', 'request', `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`);
  }
}

/** How long a client refused by the parser has to read its answer before the socket is destroyed. */
const CLIENT_ERROR_LINGER_MS = 5_000;

/**
 * The `clientError` handler (Node's parser refused a request, or it timed out): answers with
 * the envelope and closes the connection, as Node does with a bare status line. Nothing is
 * written once an answer to this request has started, or on a socket that is gone.
 */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const e = clientErrorAnswer(err);
    const status = e.status;
    const text = JSON.stringify(envelope(e.status, e.details, e.message));
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
    // end() flushes the answer, then closes; a client that never reads it must not hold the socket.
    setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
    return;
  }
  socket.destroy();
}

/**
 * The most of a refused body (413) that is read and dropped so that the client reads the answer:
 * a connection closed with request bytes unread is reset, and the reset makes the client drop the
 * answer it had not read yet. A larger declared body is answered and the connection closed.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Whether the rest of a refused request body is read and dropped on a kept-alive connection
 * (Node reads it once the answer is sent; the request timeout bounds how long) rather than the
 * connection closed under the client. `true` resumes the body stream for that.
 */
export function drainRefusedBody(request: IncomingMessage): boolean {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (!(declared <= DRAIN_MAX_BYTES)) return false;
  request.resume();
  return true;
}
