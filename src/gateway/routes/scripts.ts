import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { badRequest, notFound } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { ScriptEntry, USER_ROLES } from '../../store/records.js';
import { errorResponses, Pagination, page } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';

/**
 * Stored scripts (beyond the API documents; upstream RESTAPI_script(s)_handler): what a device
 * `script` command runs by `scriptId`. Anyone may read; writes need the admin role (upstream: root).
 */
const tags = ['scripts'];
const IdParam = Type.Object({ id: Type.String({ description: 'The script id (POST: ignored, a new one is made; the UI posts to /script/0).' }) });

const ScriptInput = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  uri: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  type: Type.Optional(Type.String({ enum: ['shell', 'bundle'] })),
  author: Type.Optional(Type.String({ description: 'Default: the token subject.' })),
  restricted: Type.Optional(Type.Array(Type.String({ enum: [...USER_ROLES] }))),
  deferred: Type.Optional(Type.Boolean()),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  defaultUploadURI: Type.Optional(Type.String()),
}, { additionalProperties: true });
type ScriptInput = Static<typeof ScriptInput>;

const ListQuery = Type.Object({ ...Pagination }, { additionalProperties: false });
const ListResponse = Type.Object({ scripts: Type.Array(ScriptEntry) });

const REQUIRED = ['name', 'content', 'version', 'type'] as const;

function checkUri(field: 'uri' | 'defaultUploadURI', value: string | undefined): void {
  if (value && !/^https?:\/\/\S+$/.test(value)) throw badRequest(field, `${field} must be an http or https URL.`);
}

/** Fields present must not be empty (name, content, version, type); URIs must be http(s). */
function checkFields(body: ScriptInput, creating: boolean): void {
  for (const f of REQUIRED) {
    const v = body[f];
    if ((creating && v === undefined) || v === '') throw badRequest(f, `${f} is required and may not be empty.`);
  }
  checkUri('uri', body.uri);
  checkUri('defaultUploadURI', body.defaultUploadURI);
}

export async function scriptsRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const found = (id: string): ScriptEntry => {
    const s = deps.scripts.get(id);
    if (!s) throw notFound('id', `Script ${id} does not exist.`);
    return s;
  };

  api.get('/scripts', {
    schema: { tags, summary: 'List stored scripts (by name)', querystring: ListQuery, response: { 200: ListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    return { scripts: page(deps.scripts.all(), q.offset, q.limit) };
  });

  api.get('/script/:id', {
    schema: { tags, summary: 'Get a stored script', params: IdParam, response: { 200: ScriptEntry, ...errorResponses } },
  }, async (req) => found((req.params as Static<typeof IdParam>).id));

  api.post('/script/:id', {
    schema: {
      tags, summary: 'Store a script (admin): name, type shell|bundle, content and version are required',
      params: IdParam, body: ScriptInput, response: { 200: ScriptEntry, ...errorResponses },
    },
  }, async (req) => {
    const body = req.body as ScriptInput;
    checkFields(body, true);
    const now = nowSeconds(deps.clock);
    return deps.scripts.insert({
      id: randomUUID(), name: body.name!, description: body.description ?? '', uri: body.uri ?? '', content: body.content!,
      version: body.version!, type: body.type!, created: now, modified: now, author: body.author || req.principal.subject,
      restricted: [...new Set(body.restricted ?? [])].sort(), deferred: body.deferred ?? false, timeout: body.timeout ?? 30,
      defaultUploadURI: body.defaultUploadURI ?? '',
    });
  });

  api.put('/script/:id', {
    schema: { tags, summary: 'Change a stored script (admin); fields absent stay', params: IdParam, body: ScriptInput, response: { 200: ScriptEntry, ...errorResponses } },
  }, async (req) => {
    const current = found((req.params as Static<typeof IdParam>).id);
    const body = req.body as ScriptInput;
    checkFields(body, false);
    const next: ScriptEntry = { ...current, modified: nowSeconds(deps.clock) };
    for (const f of ['name', 'description', 'uri', 'content', 'version', 'type', 'defaultUploadURI'] as const) {
      if (body[f] !== undefined) next[f] = body[f];
    }
    if (body.deferred !== undefined) next.deferred = body.deferred;
    if (body.timeout !== undefined) next.timeout = body.timeout;
    if (body.restricted !== undefined) next.restricted = [...new Set(body.restricted)].sort();
    return deps.scripts.update(next);
  });

  api.delete('/script/:id', {
    schema: { tags, summary: 'Delete a stored script (admin; 404 if absent)', params: IdParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    await deps.scripts.delete(found((req.params as Static<typeof IdParam>).id).id);
    return reply.deleted();
  });
}
