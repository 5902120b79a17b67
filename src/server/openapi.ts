import type { RouteOptions } from 'fastify';
import { errorResponses } from './schemas.js';

/**
 * What the OpenAPI document says beyond a route's validation schema. Some parameters are checked
 * by the route itself rather than by the schema, so that the 400 names them as the API documents
 * do (an RRM `zone` is `zone`, not `querystring.zone`), or so that a check runs after another
 * (an unknown zone is a 404 before a bad `mode` is a 400); a few are required only in some forms
 * of a request (a script's `type` unless a stored script gives it). The document still states
 * them as a client must send them: required, and one of the values the service knows.
 */
export interface OpenApiHints {
  /** A websocket route to document (@fastify/websocket hides them all). */
  websocket?: boolean;
  query?: PartHints;
  body?: PartHints;
}

interface PartHints {
  /** Properties a client must send. */
  required?: readonly string[];
  /** Properties whose value is one of these. */
  enums?: Readonly<Record<string, readonly string[]>>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OpenAPI statements beyond the validation schema (src/server/openapi.ts). */
    openapi?: OpenApiHints;
  }
}

type Schema = Record<string, unknown>;

const VERBS = ['get', 'set', 'modify', 'optimize', 'run'];
const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * A stable operationId from the method and the path, for routes that do not name one:
 * `GET /api/v1/device/:serialNumber/logs` -> `getDeviceLogs`; an RRM path that is a verb already
 * keeps it (`GET /api/v1/getTopology` -> `getTopology`, `PUT /api/v1/runRRM` -> `runRRM`).
 */
export function operationIdOf(method: string, url: string): string {
  const words = url.replace(/^\/api\/v1/, '').split('/')
    .filter((s) => s !== '' && !s.startsWith(':') && !s.startsWith('{') && s !== '*')
    .flatMap((s) => s.split(/[_-]/)).filter(Boolean);
  const first = words[0] ?? 'root';
  if (words.length === 1 && VERBS.some((v) => first.startsWith(v) && first.length > v.length && /[A-Z]/.test(first.charAt(v.length)))) return first;
  // One record of a collection (`/blacklist/:serialNumber` beside `/blacklist`) is named by its key.
  const last = /\/[:{]([A-Za-z0-9_]+)\}?$/.exec(url)?.[1];
  return method.toLowerCase() + words.map(capitalised).join('') + (last ? `By${capitalised(last)}` : '');
}

function withHints(part: unknown, hints: PartHints | undefined): unknown {
  if (!hints || typeof part !== 'object' || part === null) return part;
  const schema = part as Schema;
  const properties = { ...(schema.properties as Record<string, Schema> | undefined) };
  for (const [name, values] of Object.entries(hints.enums ?? {})) {
    if (properties[name]) properties[name] = { ...properties[name], enum: [...values] };
  }
  const required = [...new Set([...((schema.required as string[] | undefined) ?? []), ...(hints.required ?? [])])];
  return { ...schema, properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The `transform` of @fastify/swagger: every operation gets an operationId, a tag (the
 * service's when the route names none), the error answers of the HTTP layer, and the route's
 * OpenAPI hints.
 */
export function openApiTransform(defaultTag: string) {
  return ({ schema, url, route }: { schema: unknown; url: string; route: RouteOptions }) => {
    const s = { ...(schema as Schema | undefined) };
    const hints = (route.config as { openapi?: OpenApiHints } | undefined)?.openapi;
    if (hints?.websocket) delete s.hide;
    if (s.hide) return { schema: s, url };
    const method = [route.method].flat()[0] ?? 'GET';
    s.operationId ??= operationIdOf(method, url);
    if (!Array.isArray(s.tags) || s.tags.length === 0) s.tags = [defaultTag];
    // What the HTTP layer may answer on any route (a route's own statuses win).
    s.response = { ...errorResponses, ...(s.response as Schema | undefined) };
    if (hints?.query) s.querystring = withHints(s.querystring ?? { type: 'object', properties: {} }, hints.query);
    if (hints?.body) s.body = withHints(s.body, hints.body);
    return { schema: s, url };
  };
}

/**
 * The `transformObject` of @fastify/swagger: request and response schemas that have a title but
 * were written out inline (a route's top-level schema is) become named components referenced by
 * `$ref`, so that generated clients get named types. A second, different schema under a taken
 * title is named `<title>2`, `<title>3`, ...
 */
export function hoistNamedSchemas(document: { openapiObject: object } | { swaggerObject: object }): Record<string, unknown> {
  const openapiObject = 'openapiObject' in document ? document.openapiObject : document.swaggerObject;
  const doc = openapiObject as { paths?: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, unknown> } };
  const components = ((doc.components ??= {}).schemas ??= {});
  const named = (schema: Schema): Schema => {
    const title = typeof schema.title === 'string' ? schema.title.replace(/[^A-Za-z0-9._-]/g, '') : '';
    if (!title || schema.$ref) return schema;
    const text = JSON.stringify(schema);
    for (let i = 1; ; i++) {
      const name = i === 1 ? title : `${title}${i}`;
      const existing = components[name];
      if (existing === undefined) components[name] = schema;
      else if (JSON.stringify(existing) !== text) continue;
      return { $ref: `#/components/schemas/${name}` };
    }
  };
  const media = (content: unknown) => {
    for (const m of Object.values((content ?? {}) as Record<string, Schema>)) {
      if (m && typeof m.schema === 'object' && m.schema !== null) m.schema = named(m.schema as Schema);
    }
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null) continue;
      media((op.requestBody as Schema | undefined)?.content);
      for (const response of Object.values((op.responses ?? {}) as Record<string, Schema>)) media(response?.content);
    }
  }
  return openapiObject as Record<string, unknown>;
}
