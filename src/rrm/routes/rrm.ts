/**
 * The RRM API (spec rrm-service-api.md, docs/upstream.md#rrm-api): layered configuration, topology,
 * the data model, provider and the algorithm list here; runs in rrm-runs.ts. `system` is served by
 * src/server/system-routes.ts for both services.
 *
 * Errors (docs/rrm.md "HTTP API and apply"): a missing or blank serial / zone is 400
 * BAD_REQUEST; a serial or zone that is not in the topology is 404 NOT_FOUND, on every route.
 * Bodies of the set* routes are parsed by config/layered.ts (400 naming the field).
 */
import type { FastifyInstance, FastifyReply, FastifySchemaCompiler } from 'fastify';
import { Type, type Static } from 'typebox';
import { Ajv } from 'ajv';
import { errorResponses } from '../../server/schemas.js';
import {
  effectiveConfig, getDeviceConfig, modifyApLayer, parseDeviceConfig, setApLayer, setNetworkLayer, setZoneLayer,
} from '../config/layered.js';
import { validateTopology } from '../config/topology.js';
import { ALGORITHM_TYPES, listAlgorithms } from '../algorithms/registry.js';
import { queryModel } from '../model-query.js';
import { Algorithm } from '../schemas/algorithm.js';
import { DeviceConfig, EffectiveConfig } from '../schemas/device-config.js';
import { LayeredConfig } from '../schemas/layered-config.js';
import { ProviderInfo } from '../schemas/provider.js';
import { Topology } from '../schemas/topology.js';
import type { RrmDeps } from '../deps.js';
import { rrmRunRoutes } from './rrm-runs.js';

/** Where the algorithms, their args and the differences from upstream are described. */
export const ALGORITHMS_HELP = 'https://github.com/airtwin/airtwin/blob/main/docs/rrm.md';

const SerialQuery = Type.Object({ serial: Type.Optional(Type.String({ description: 'AP serial number (required).' })) });
const ZoneQuery = Type.Object({ zone: Type.Optional(Type.String({ description: 'RF zone (required).' })) });
/** Checked by the routes (400 naming `serial` / `zone`, blank ones too); required in the document. */
const serialRequired = { openapi: { query: { required: ['serial'] } } };
const zoneRequired = { openapi: { query: { required: ['zone'] } } };
const NoContent = { 200: Type.Null({ description: 'No content.' }) };
const BodyDoc = 'Body: a DeviceConfig (every field optional; unknown keys ignored). No body, or JSON null, deletes the layer (network: resets it to {}).';

/**
 * The set* routes publish their body schema (OpenAPI) but parse the body themselves
 * (parseDeviceConfig, setTopology's validateTopology): no body and JSON null mean "delete the
 * layer", and errors name the field without a `body.` prefix. Query strings are still checked.
 */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, strict: false });
const bodyDocumentedOnly: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? () => true : queryAjv.compile(schema as object));
const LayerBody = Type.Union([DeviceConfig, Type.Null()]);

const CurrentModel = Type.Object({
  latestWifiScans: Type.Record(Type.String(), Type.Array(Type.Array(Type.Object({}, { additionalProperties: true })))),
  latestStates: Type.Record(Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))),
  latestDeviceStatusRadios: Type.Record(Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))),
  latestDeviceCapabilitiesPhy: Type.Record(Type.String(), Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }))),
}, { description: 'As upstream RRM: per device the last 10 scans and states (oldest first), the radio list and the capabilities phys.' });

const done = (reply: FastifyReply) => reply.status(200).send();
const layerBody = (raw: unknown) => parseDeviceConfig(raw, ALGORITHM_TYPES);

export async function rrmRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  for (const group of [serviceRoutes, topologyRoutes, layerRoutes, rrmRunRoutes]) await group(api, deps);
}

/** What the service offers and the data model it reads. */
async function serviceRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  const rrm = deps.rrm.store;
  api.get('/algorithms', {
    schema: { tags: ['rrm'], summary: 'List the RRM algorithms', response: { 200: Type.Array(Algorithm), ...errorResponses } },
  }, async () => listAlgorithms(ALGORITHMS_HELP));

  api.get('/provider', {
    schema: { tags: ['rrm'], summary: 'Provider information', response: { 200: ProviderInfo, ...errorResponses } },
  }, async () => ({ vendor: 'airtwin', vendorShortname: 'airtwin', version: deps.version, about: ALGORITHMS_HELP }));

  api.get('/currentModel', {
    schema: {
      tags: ['rrm'], summary: 'The RRM data model of the topology\'s RRM-enabled devices',
      response: { 200: CurrentModel, ...errorResponses },
    },
  }, async () => {
    const topology = rrm.topology();
    const layers = rrm.layers();
    // As upstream's Modeler: only devices of a zone with enableRRM keep model data
    // (docs/upstream.md#rrm-data-model).
    const serials = Object.values(topology).flat().filter((s) => effectiveConfig(layers, topology, s)?.enableRRM !== false);
    return queryModel(deps.store, serials);
  });
}

async function topologyRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  const rrm = deps.rrm.store;
  api.get('/getTopology', {
    schema: { tags: ['rrm'], summary: 'The topology: zone -> serials', response: { 200: Topology, ...errorResponses } },
  }, async () => rrm.topology());

  api.post('/setTopology', {
    schema: {
      tags: ['rrm'], summary: 'Replace the topology',
      description: 'Body: {"<zone>": ["<serial>", ...]}. Serials are stored as the gateway names them (a MAC such as 90:3C:B3:BB:1C:9A becomes 903cb3bb1c9a). An empty zone name, an empty serial, a serial that is not 12 hex digits or a device in two zones is 400 naming them; the stored topology is then unchanged. Layers of zones and serials no longer present are dropped.',
      body: Topology, response: { ...NoContent, ...errorResponses },
    },
    validatorCompiler: bodyDocumentedOnly,
  }, async (req, reply) => {
    const topology = validateTopology(req.body);
    await rrm.update(() => ({ topology }));
    return done(reply);
  });
}

/** The configuration layers: read them, the effective result for one AP, and replace or merge one. */
async function layerRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  const rrm = deps.rrm.store;
  api.get('/getDeviceLayeredConfig', {
    schema: { tags: ['rrm'], summary: 'The raw configuration layers', response: { 200: LayeredConfig, ...errorResponses } },
  }, async () => rrm.layers());

  api.get('/getDeviceConfig', {
    config: serialRequired,
    schema: {
      tags: ['rrm'], summary: 'Effective configuration of one AP (default, network, zone, AP layer); every field present',
      querystring: SerialQuery, response: { 200: EffectiveConfig, ...errorResponses },
    },
  }, async (req) => getDeviceConfig(rrm.layers(), rrm.topology(), (req.query as Static<typeof SerialQuery>).serial));

  api.post('/setDeviceNetworkConfig', {
    schema: { tags: ['rrm'], summary: 'Replace the network layer', description: BodyDoc, body: LayerBody, response: { ...NoContent, ...errorResponses } },
    validatorCompiler: bodyDocumentedOnly,
  }, async (req, reply) => {
    const cfg = layerBody(req.body);
    await rrm.update((t, l) => ({ layers: setNetworkLayer(l, t, cfg) }));
    return done(reply);
  });

  api.post('/setDeviceZoneConfig', {
    config: zoneRequired,
    schema: {
      tags: ['rrm'], summary: 'Replace one zone layer', description: BodyDoc, querystring: ZoneQuery, body: LayerBody,
      response: { ...NoContent, ...errorResponses },
    },
    validatorCompiler: bodyDocumentedOnly,
  }, async (req, reply) => {
    const { zone } = req.query as Static<typeof ZoneQuery>;
    const cfg = layerBody(req.body);
    await rrm.update((t, l) => ({ layers: setZoneLayer(l, t, zone, cfg) }));
    return done(reply);
  });

  await apLayerRoutes(api, deps);
}

async function apLayerRoutes(api: FastifyInstance, deps: RrmDeps): Promise<void> {
  const rrm = deps.rrm.store;
  api.post('/setDeviceApConfig', {
    config: serialRequired,
    schema: {
      tags: ['rrm'], summary: 'Replace one AP layer', description: BodyDoc, querystring: SerialQuery, body: LayerBody,
      response: { ...NoContent, ...errorResponses },
    },
    validatorCompiler: bodyDocumentedOnly,
  }, async (req, reply) => {
    const { serial } = req.query as Static<typeof SerialQuery>;
    const cfg = layerBody(req.body);
    await rrm.update((t, l) => ({ layers: setApLayer(l, t, serial, cfg) }));
    return done(reply);
  });

  api.post('/modifyDeviceApConfig', {
    config: serialRequired,
    schema: {
      tags: ['rrm'], summary: 'Merge into one AP layer: fields absent from the body are kept (shallow: a map replaces the stored map)',
      description: 'Body: a DeviceConfig; one with no supported field is 400.', querystring: SerialQuery, body: DeviceConfig,
      response: { ...NoContent, ...errorResponses },
    },
    validatorCompiler: bodyDocumentedOnly,
  }, async (req, reply) => {
    const { serial } = req.query as Static<typeof SerialQuery>;
    const cfg = layerBody(req.body);
    await rrm.update((t, l) => ({ layers: modifyApLayer(l, t, serial, cfg) }));
    return done(reply);
  });
}
