import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { airtwinError, badRequest, notFound, nothingToDelete } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { DefaultConfiguration } from '../../store/records.js';
import { errorResponses, ok, Pagination, page } from '../../server/schemas.js';
import { parseConfiguration } from '../configuration.js';
import type { GatewayDeps } from '../deps.js';

const NameParam = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128, description: 'The configuration name; the record is stored under this name.' }),
});

/** What a client may send. `created`/`lastModified` are set by the server and ignored. */
const DefaultConfigurationInput = Type.Object({
  name: Type.Optional(Type.String({ description: 'If given, must equal the path name.' })),
  modelIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "Required on POST, never empty; '*' matches any model." })),
  description: Type.Optional(Type.String()),
  configuration: Type.Optional(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], {
    description: 'Required on POST: a JSON object, as a string or as an object.',
  })),
  platform: Type.Optional(Type.String({ enum: ['ap', 'switch', 'AP', 'SWITCH'], description: 'Default ap.' })),
  created: Type.Optional(Type.Integer()),
  lastModified: Type.Optional(Type.Integer()),
}, { additionalProperties: true });
type Input = Static<typeof DefaultConfigurationInput>;

const ListQuery = Type.Object({
  ...Pagination,
  countOnly: Type.Optional(Type.Boolean({ description: 'Answer {"count": n} instead of the list.' })),
}, { additionalProperties: false });

const ListResponse = Type.Object({
  configurations: Type.Optional(Type.Array(DefaultConfiguration)),
  count: Type.Optional(Type.Integer()),
}, { description: 'configurations ordered by name, or count when countOnly=true.' });

function checkName(path: string, body: Input): void {
  if (body.name !== undefined && body.name !== path) {
    throw airtwinError('BAD_REQUEST', 'name', `body.name '${body.name}' differs from the path name '${path}'.`);
  }
}

function checkModelIds(modelIds: string[] | undefined, required: boolean): void {
  if (modelIds === undefined ? required : modelIds.length === 0) throw badRequest('modelIds', 'modelIds must list at least one model id.');
}

/** The configuration as stored: a JSON object serialised to a string (spec type string). */
const configurationText = (value: unknown) => JSON.stringify(parseConfiguration(value));

/**
 * Default configurations (spec "Default configurations"), matched as
 * docs/upstream.md#gateway-behaviour-airtwin-does-not-copy says.
 */
export async function defaultConfigsRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const nameOf = (req: { params: unknown }) => (req.params as Static<typeof NameParam>).name;

  api.get('/default_configurations', {
    config: { wire: 'defaultConfigList' },
    schema: { tags: ['default configurations'], summary: 'List default configurations', querystring: ListQuery, response: { 200: ListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    const all = deps.defaultConfigs.all();
    if (q.countOnly) return { count: all.length };
    return { configurations: page(all, q.offset, q.limit) };
  });

  api.get('/default_configuration/:name', {
    config: { wire: 'defaultConfig' },
    schema: { tags: ['default configurations'], summary: 'Get a default configuration', params: NameParam, response: { 200: DefaultConfiguration, ...errorResponses } },
  }, async (req) => {
    const found = deps.defaultConfigs.get(nameOf(req));
    if (!found) throw notFound('name', `Default configuration '${nameOf(req)}' does not exist.`);
    return found;
  });

  api.post('/default_configuration/:name', {
    schema: {
      tags: ['default configurations'], summary: 'Create a default configuration (409 if the name exists)',
      params: NameParam, body: DefaultConfigurationInput, response: { 200: Type.Ref('OperationResult'), ...errorResponses },
    },
  }, async (req) => {
    const name = nameOf(req);
    const body = req.body as Input;
    checkName(name, body);
    checkModelIds(body.modelIds, true);
    if (body.configuration === undefined) throw airtwinError('INVALID_CONFIGURATION', 'configuration', 'configuration is required.');
    const configuration = configurationText(body.configuration);
    if (deps.defaultConfigs.has(name)) throw airtwinError('ALREADY_EXISTS', 'name', `Default configuration '${name}' exists already.`);
    const now = nowSeconds(deps.clock);
    await deps.defaultConfigs.insert({
      name, modelIds: body.modelIds!, description: body.description ?? '', configuration,
      platform: (body.platform ?? 'ap').toLowerCase(), created: now, lastModified: now,
    });
    return ok('POST');
  });

  api.put('/default_configuration/:name', {
    config: { wire: 'defaultConfigUpdated' },
    schema: {
      tags: ['default configurations'], summary: 'Update a default configuration: modelIds, description, configuration, platform',
      params: NameParam, body: DefaultConfigurationInput, response: { 200: DefaultConfiguration, ...errorResponses },
    },
  }, async (req) => {
    const name = nameOf(req);
    const body = req.body as Input;
    if (!deps.defaultConfigs.has(name)) throw notFound('name', `Default configuration '${name}' does not exist.`);
    checkName(name, body);
    checkModelIds(body.modelIds, false);
    const configuration = body.configuration !== undefined ? configurationText(body.configuration) : undefined;
    return deps.defaultConfigs.update(name, (current) => {
      const next = { ...current, lastModified: nowSeconds(deps.clock) };
      if (body.modelIds !== undefined) next.modelIds = body.modelIds;
      if (body.description !== undefined) next.description = body.description;
      if (body.platform !== undefined) next.platform = body.platform.toLowerCase();
      if (configuration !== undefined) next.configuration = configuration;
      return next;
    });
  });

  api.delete('/default_configuration/:name', {
    schema: {
      tags: ['default configurations'], summary: 'Delete a default configuration (404 if absent)',
      params: NameParam, response: { 204: Type.Null(), ...errorResponses },
    },
  }, async (req, reply) => {
    const name = nameOf(req);
    if (!deps.defaultConfigs.has(name)) throw nothingToDelete('name', `Default configuration '${name}' does not exist.`);
    await deps.defaultConfigs.delete(name);
    return reply.deleted();
  });
}
