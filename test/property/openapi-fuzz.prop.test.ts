/**
 * Fuzzing both services from their own OpenAPI documents (#33): requests built from each
 * operation's parameters and body schema, with valid values, values out of range and junk, against
 * a running serve over a small simulated venue. Every answer must be declared by the document,
 * valid against its schema, an envelope when it is an error, and never a 5xx (but for the 504 a
 * ping documents when the AP does not answer). Bounded in runs and in time.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { answerChecker, operationsOf, resolveRef, type Operation } from '../helpers/openapi-check.js';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const SERIALS = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];
/** Per wire: the runs, and the wall time after which the property stops (not a failure). */
const RUNS = 400;
const TIME_LIMIT_MS = 20_000;

const junk = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '-1', '1e308', '9223372036854775808', 'null', '%zz', '{}', 'true'));

/** Values for a schema of the document: mostly what it declares, sometimes out of range or junk. */
function valueOf(doc: Json, schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(doc, schema);
  if (!s || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(s.enum as unknown[])) }, { weight: 1, arbitrary: junk });
  const alternatives = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((a) => valueOf(doc, a, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'integer':
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: s.minimum ?? -10, max: Math.min(s.maximum ?? 1_000, 1_000_000) }) },
        { weight: 1, arbitrary: fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, 2 ** 63, 1.79e308) },
      );
    case 'number':
      return fc.oneof(fc.integer({ min: -10, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...SERIALS, 'lab', 'default', 'shell', 'on') }, { weight: 2, arbitrary: fc.string({ maxLength: 16 }) });
    case 'array':
      return fc.array(valueOf(doc, s.items as Json, depth + 1), { maxLength: 3 });
    case 'object':
    case undefined: {
      const props = Object.entries((s.properties ?? {}) as Record<string, Json>);
      if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
      const required = ((s.required ?? []) as string[]).filter((k) => props.some(([p]) => p === k));
      return fc.record(Object.fromEntries(props.map(([name, p]) => [name, valueOf(doc, p, depth + 1)])), { requiredKeys: required });
    }
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

interface Built {
  op: Operation;
  url: string;
  token: string | null;
  body?: string;
}

/** A request for one operation: path parameters, the query, maybe a body. */
function requestOf(doc: Json, op: Operation): fc.Arbitrary<Built> {
  const params = (op.op.parameters ?? []) as Json[];
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const pathValue = (p: Json) => (/serial/i.test(p.name as string)
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SERIALS) }, { weight: 1, arbitrary: junk })
    : fc.oneof(fc.uuid(), valueOf(doc, p.schema as Json).map(String), junk));
  const queryValue = (p: Json) => fc.option(fc.oneof({ weight: 4, arbitrary: valueOf(doc, p.schema as Json) }, { weight: 1, arbitrary: junk }),
    { freq: p.required ? 10 : 2 });
  const bodySchema = op.op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const body = bodySchema
    ? fc.option(fc.oneof({ weight: 4, arbitrary: valueOf(doc, bodySchema).map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: fc.constantFrom('{', '[]', '""', '{"serialNumber":1}') }), { freq: 8 })
    : fc.constant(null);
  return fc.record({
    // Now and then no token, or one that is not known.
    token: fc.oneof({ weight: 8, arbitrary: fc.constant(ADMIN_TOKEN) }, { weight: 1, arbitrary: fc.constantFrom(null, 'not-a-known-token') }),
    path: fc.tuple(...pathParams.map(pathValue)),
    query: fc.tuple(...query.map(queryValue)),
    body,
  }).map(({ token, path, query: values, body: text }) => {
    let url = op.path;
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name as string}}`, encodeURIComponent(String(path[i])))));
    const search = new URLSearchParams();
    query.forEach((p, i) => {
      const v = values[i];
      if (v === null || v === undefined) return;
      for (const item of Array.isArray(v) ? v : [v]) search.append(p.name as string, typeof item === 'object' ? JSON.stringify(item) : String(item));
    });
    const q = search.toString();
    const built: Built = { op, url: q ? `${url}?${q}` : url, token, ...(text === null ? {} : { body: text }) };
    // What a failure prints: the request, not the document it came from.
    return Object.assign(built, { [fc.toStringMethod]: () => `${op.method} ${built.url}${built.body === undefined ? '' : ` ${built.body}`}${token === ADMIN_TOKEN ? '' : ` (token ${token})`}` });
  });
}

describe.each(['spec', 'openwifi'] as const)(`fuzzing both OpenAPI documents on the %s wire (seed ${SEED})`, (wire) => {
  let s: TestServer;
  beforeAll(async () => {
    // FUZZ_LOG=1 shows the server's error log (what a 500 was).
    const log = process.env.FUZZ_LOG ? { logLevel: 'error' as const } : {};
    s = await startTestServer({ wire, sim: true, scenario: 'lab', seed: SEED % 1000, speed: 100, ...log }, process.env.FUZZ_LOG ? { logDestination: process.stdout } : {});
  }, 60_000);
  afterAll(async () => s?.close());

  it('answers only what the documents declare: no 5xx, the envelope on every error, valid bodies', async () => {
    const services = await Promise.all([s.running.gatewayUrl, s.running.rrmUrl].map(async (base) => {
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as Json;
      // The websocket and the Prometheus text are not JSON answers to a request.
      const ops = operationsOf(doc).filter((o) => !o.path.endsWith('/ws_telemetry') && o.path !== '/metrics');
      return { base, doc, check: answerChecker(doc), ops };
    }));
    const arbitrary = fc.oneof(...services.map((svc) =>
      fc.constantFrom(...svc.ops).chain((op) => requestOf(svc.doc, op)).map((r) => Object.assign(r, { svc }))));
    const problems: string[] = [];
    let sent = 0;
    await fc.assert(fc.asyncProperty(arbitrary, async ({ svc, op, url, token, body }) => {
      sent++;
      const res = await fetch(`${svc.base}${url}`, {
        method: op.method,
        headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body }),
      });
      const text = await res.text();
      const where = `${op.method} ${url}${body === undefined ? '' : ` ${body.slice(0, 200)}`}`;
      const documented504 = res.status === 504 && op.path.endsWith('/ping');
      const problem = res.status >= 500 && !documented504
        ? `${where} -> ${res.status}: ${text.slice(0, 300)}`
        : svc.check(op, { status: res.status, contentType: res.headers.get('content-type') ?? '', text });
      if (problem) {
        problems.push(problem);
        throw new Error(`${problem}\n  request: ${where}`);
      }
    }), { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, endOnFailure: true });
    expect(problems, `seed ${SEED}`).toEqual([]);
    expect(sent).toBeGreaterThan(20);
  }, 120_000);
});

describe('failures the fuzz found, as examples', () => {
  it('GET /venue/charts with no AP known answers 200 with empty series (seed 2: a 500 from an empty list parameter)', async () => {
    const s = await startTestServer();
    try {
      const a = await s.gw('GET', '/venue/charts?band=5G');
      expect(a.status, a.text).toBe(200);
      expect(a.body).toMatchObject({ chanUtil: [], clients: [] });
    } finally {
      await s.close();
    }
  });
});
