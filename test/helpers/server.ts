import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SERVE_DEFAULTS, type ServeConfig } from '../../src/config/schema.js';
import { startServe, type RunningServe, type ServeIo } from '../../src/runtime/serve.js';

export const ADMIN_TOKEN = 'test-admin-token-0001';
export const USER_TOKEN = 'test-user-token-0002';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface TestServer {
  running: RunningServe;
  dataDir: string;
  /** Request to the gateway; path starts after /api/v1 unless it starts with '/'+'docs' or '/openapi'. */
  gw<T = any>(method: string, path: string, init?: RequestOpts): Promise<Answer<T>>;
  rrm<T = any>(method: string, path: string, init?: RequestOpts): Promise<Answer<T>>;
  /** Close and start again on the same data dir (new ports). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface RequestOpts {
  body?: unknown;
  /** Raw body sent as is (for malformed JSON tests). */
  raw?: string | Buffer;
  token?: string | null;
  headers?: Record<string, string>;
}

const silent = new Writable({ write: (_c, _e, cb) => cb() });

async function call(base: string, method: string, path: string, init: RequestOpts = {}): Promise<Answer> {
  const url = path.startsWith('/docs') || path.startsWith('/openapi') ? `${base}${path}` : `${base}/api/v1${path}`;
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? ADMIN_TOKEN : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined;
  if (init.raw !== undefined) {
    body = init.raw;
    headers['content-type'] ??= 'application/json';
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}

/** A real server on free ports with a temporary data dir, on the `spec` wire unless `overrides.wire` says otherwise; close it in afterAll/afterEach. */
export async function startTestServer(overrides: Partial<ServeConfig> = {}, io: Partial<ServeIo> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'airtwin-test-'));
  const config: ServeConfig = {
    ...SERVE_DEFAULTS, dataDir, gatewayPort: 0, rrmPort: 0, sim: false, logLevel: 'silent',
    // The API documents' wire unless a test asks for another (tests of the openwifi wire do).
    wire: 'spec', apiTokens: [`${ADMIN_TOKEN}:admin`, USER_TOKEN], ...overrides,
  };
  const serveIo: ServeIo = { print: () => undefined, logDestination: silent, ...io };
  let running = await startServe(config, serveIo);
  const server: TestServer = {
    get running() {
      return running;
    },
    dataDir,
    gw: (method, path, init) => call(running.gatewayUrl, method, path, init),
    rrm: (method, path, init) => call(running.rrmUrl, method, path, init),
    async restart() {
      await running.close();
      running = await startServe(config, serveIo);
    },
    async close() {
      await running.close();
      if (!overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Asserts the error envelope shape and returns it. */
export function expectEnvelope(a: Answer, status: number): { ErrorCode: number; ErrorDetails: string; ErrorDescription: string } {
  if (a.status !== status) throw new Error(`expected ${status}, got ${a.status}: ${a.text}`);
  const b = a.body as Record<string, unknown>;
  if (b?.ErrorCode !== status || typeof b.ErrorDetails !== 'string' || typeof b.ErrorDescription !== 'string') {
    throw new Error(`not an error envelope: ${a.text}`);
  }
  return b as { ErrorCode: number; ErrorDetails: string; ErrorDescription: string };
}
