import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { alreadyExists, badRequest, notFound, nothingToDelete } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { DefaultFirmware } from '../../store/records.js';
import { errorResponses, Pagination, page } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';

/**
 * The default firmware of each device type (beyond the API documents; upstream
 * RESTAPI_default_firmware(s)): what the OpenWiFi UI's Defaults > Firmware page shows and edits.
 */
const tags = ['default firmwares'];
const TypeParam = Type.Object({ deviceType: Type.String({ minLength: 1, maxLength: 128, description: 'The `compatible` model id.' }) });

const FirmwareInput = Type.Object({
  deviceType: Type.Optional(Type.String({ description: 'If given, must equal the path.' })),
  description: Type.Optional(Type.String()),
  uri: Type.Optional(Type.String({ description: 'http(s) URL of the image; required on POST.' })),
  revision: Type.Optional(Type.String({ description: 'Required on POST.' })),
  imageCreationDate: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: true });
type FirmwareInput = Static<typeof FirmwareInput>;

const ListQuery = Type.Object({ ...Pagination, countOnly: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const ListResponse = Type.Object({ firmwares: Type.Optional(Type.Array(DefaultFirmware)), count: Type.Optional(Type.Integer()) });

function check(path: string, body: FirmwareInput, creating: boolean): void {
  if (body.deviceType !== undefined && body.deviceType !== path) {
    throw badRequest('deviceType', `body.deviceType '${body.deviceType}' differs from the path '${path}'.`);
  }
  for (const f of ['uri', 'revision'] as const) {
    if ((creating && body[f] === undefined) || body[f] === '') throw badRequest(f, `${f} is required and may not be empty.`);
  }
  if (body.uri !== undefined && !/^https?:\/\/\S+$/.test(body.uri)) throw badRequest('uri', 'uri must be an http or https URL.');
}

export async function defaultFirmwaresRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const typeOf = (req: { params: unknown }) => (req.params as Static<typeof TypeParam>).deviceType;

  api.get('/default_firmwares', {
    schema: { tags, summary: 'List default firmwares (by device type)', querystring: ListQuery, response: { 200: ListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    const all = deps.defaultFirmwares.all();
    return q.countOnly ? { count: all.length } : { firmwares: page(all, q.offset, q.limit) };
  });

  api.get('/default_firmware/:deviceType', {
    schema: { tags, summary: 'Get the default firmware of a device type', params: TypeParam, response: { 200: DefaultFirmware, ...errorResponses } },
  }, async (req) => {
    const found = deps.defaultFirmwares.get(typeOf(req));
    if (!found) throw notFound('deviceType', `No default firmware for '${typeOf(req)}'.`);
    return found;
  });

  api.post('/default_firmware/:deviceType', {
    schema: {
      tags, summary: 'Set the default firmware of a device type (409 if it has one): uri and revision required',
      params: TypeParam, body: FirmwareInput, response: { 200: DefaultFirmware, ...errorResponses },
    },
  }, async (req) => {
    const deviceType = typeOf(req);
    const body = req.body as FirmwareInput;
    check(deviceType, body, true);
    if (deps.defaultFirmwares.has(deviceType)) throw alreadyExists('deviceType', `'${deviceType}' has a default firmware already.`);
    const now = nowSeconds(deps.clock);
    return deps.defaultFirmwares.insert({
      deviceType, description: body.description ?? '', uri: body.uri!, revision: body.revision!,
      imageCreationDate: body.imageCreationDate ?? 0, created: now, lastModified: now,
    });
  });

  api.put('/default_firmware/:deviceType', {
    schema: {
      tags, summary: 'Change the default firmware of a device type: description, uri, revision, imageCreationDate',
      params: TypeParam, body: FirmwareInput, response: { 200: DefaultFirmware, ...errorResponses },
    },
  }, async (req) => {
    const deviceType = typeOf(req);
    const current = deps.defaultFirmwares.get(deviceType);
    if (!current) throw notFound('deviceType', `No default firmware for '${deviceType}'.`);
    const body = req.body as FirmwareInput;
    check(deviceType, body, false);
    const next = { ...current, lastModified: nowSeconds(deps.clock) };
    for (const f of ['description', 'uri', 'revision'] as const) if (body[f] !== undefined) next[f] = body[f];
    if (body.imageCreationDate !== undefined) next.imageCreationDate = body.imageCreationDate;
    return deps.defaultFirmwares.update(next);
  });

  api.delete('/default_firmware/:deviceType', {
    schema: { tags, summary: 'Remove the default firmware of a device type (404 if none)', params: TypeParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    const deviceType = typeOf(req);
    if (!(await deps.defaultFirmwares.delete(deviceType))) throw nothingToDelete('deviceType', `No default firmware for '${deviceType}'.`);
    return reply.deleted();
  });
}
