import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { airtwinError, notFound } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { normalizeSerial } from '../../protocol/serial.js';
import { BlacklistEntry } from '../../store/records.js';
import { errorResponses, ok, Pagination, page, SerialParam } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';

/** What a client may send: `created` and `author` are read-only and ignored (spec BlacklistEntry). */
const BlacklistInput = Type.Object({
  serialNumber: Type.Optional(Type.String({ description: 'If given, must be the path serial.' })),
  reason: Type.Optional(Type.String({ maxLength: 4096 })),
  created: Type.Optional(Type.Integer({ description: 'Ignored: set by the server.' })),
  author: Type.Optional(Type.String({ description: 'Ignored: the token subject.' })),
}, { additionalProperties: true });
type Input = Static<typeof BlacklistInput>;

const ListQuery = Type.Object({
  ...Pagination,
  filter: Type.Optional(Type.String({ description: 'Case-insensitive substring of the serial, reason or author.' })),
  countOnly: Type.Optional(Type.Boolean({ description: 'Answer {"count": n} (after the filter) instead of the list.' })),
}, { additionalProperties: false });

const ListResponse = Type.Object({
  devices: Type.Optional(Type.Array(BlacklistEntry)),
  count: Type.Optional(Type.Integer()),
}, { description: 'devices ordered by serial, or count when countOnly=true.' });

function serialFrom(req: { params: unknown; body?: unknown }): string {
  const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
  const body = req.body as Input | undefined;
  // Upstream took the serial from the body and ignored the path
  // (docs/upstream.md#gateway-behaviour-airtwin-does-not-copy): the path rules here.
  if (body?.serialNumber !== undefined && normalizeSerial(body.serialNumber, 'body.serialNumber') !== serial) {
    throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${body.serialNumber} differs from the path serial ${serial}.`);
  }
  return serial;
}

/**
 * The blacklist (spec "Other operations"; docs/upstream.md#notifications). A listed AP is refused
 * at connect and dropped at its next frame (the fleet asks `deps.blacklist.has`); its device record
 * stays, with `blackListed: true`. Writes need the admin role.
 */
export async function blacklistRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/blacklist', {
    schema: { tags: ['blacklist'], summary: 'List blacklisted serials', querystring: ListQuery, response: { 200: ListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    let entries = deps.blacklist.all();
    const needle = q.filter?.trim().toLowerCase();
    if (needle) entries = entries.filter((e) => [e.serialNumber, e.reason, e.author].some((v) => v.toLowerCase().includes(needle)));
    if (q.countOnly) return { count: entries.length };
    return { devices: page(entries, q.offset, q.limit) };
  });

  api.get('/blacklist/:serialNumber', {
    schema: { tags: ['blacklist'], summary: 'Get a blacklist entry', params: SerialParam, response: { 200: BlacklistEntry, ...errorResponses } },
  }, async (req) => {
    const serial = serialFrom(req);
    const entry = deps.blacklist.get(serial);
    if (!entry) throw notFound('serialNumber', `Serial ${serial} is not blacklisted.`);
    return entry;
  });

  api.post('/blacklist/:serialNumber', {
    config: { wire: 'blacklistCreate' },
    schema: {
      tags: ['blacklist'], summary: 'Blacklist a serial (admin; 409 if listed already)',
      params: SerialParam, body: BlacklistInput, response: { 200: Type.Ref('OperationResult'), ...errorResponses },
    },
  }, async (req) => {
    const serial = serialFrom(req);
    if (deps.blacklist.has(serial)) throw airtwinError('ALREADY_EXISTS', 'serialNumber', `Serial ${serial} is blacklisted already.`);
    const body = req.body as Input;
    await deps.blacklist.insert({ serialNumber: serial, reason: body.reason ?? '', author: req.principal.subject, created: nowSeconds(deps.clock) });
    return ok('POST');
  });

  api.put('/blacklist/:serialNumber', {
    schema: {
      tags: ['blacklist'], summary: 'Change the reason of a blacklist entry (admin; 404 if absent)',
      params: SerialParam, body: BlacklistInput, response: { 200: Type.Ref('OperationResult'), ...errorResponses },
    },
  }, async (req) => {
    const serial = serialFrom(req);
    if (!deps.blacklist.has(serial)) throw notFound('serialNumber', `Serial ${serial} is not blacklisted.`);
    const reason = (req.body as Input).reason;
    if (reason !== undefined) await deps.blacklist.updateReason(serial, reason);
    return ok('PUT');
  });

  api.delete('/blacklist/:serialNumber', {
    schema: { tags: ['blacklist'], summary: 'Remove a serial from the blacklist (admin; 404 if absent)', params: SerialParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    await deps.blacklist.delete(serialFrom(req));
    return reply.deleted();
  });
}
