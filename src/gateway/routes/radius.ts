import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { badRequest } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { RadiusProxyConfig, type RadiusServerGroup } from '../../store/records.js';
import { errorResponses } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';

type Pool = RadiusProxyConfig['pools'][number];

/** `/pools/0/authConfig/servers/1` -> `pools[0].authConfig.servers[1]`, the path every RADIUS error names. */
function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child) parts.push(child);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || 'body';
}

interface AjvIssue { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }

/** A schema failure as a 400 naming the field in bracket form. */
function schemaError(issue: AjvIssue): Error {
  const { keyword, params } = issue;
  if (keyword === 'required') return badRequest(fieldPath(issue.instancePath, String(params.missingProperty)), `${fieldPath(issue.instancePath, String(params.missingProperty))} is required.`);
  if (keyword === 'additionalProperties') {
    const at = fieldPath(issue.instancePath, String(params.additionalProperty));
    return badRequest(at, `${at} is not a field of the RADIUS proxy configuration.`);
  }
  const at = fieldPath(issue.instancePath);
  if (keyword === 'enum') return badRequest(at, `${at} must be one of: ${(params.allowedValues as string[]).join(', ')}.`);
  return badRequest(at, `${at} ${issue.message ?? 'is invalid'}.`);
}

/** Fills the defaults so GET shows exactly what is in force. */
function normalizeGroup(g: RadiusServerGroup | undefined): Required<RadiusServerGroup> {
  return {
    strategy: g?.strategy ?? 'random',
    monitor: g?.monitor ?? false,
    monitorMethod: g?.monitorMethod ?? 'none',
    methodParameters: g?.methodParameters ?? [],
    servers: (g?.servers ?? []).map((s) => ({
      name: s.name ?? '', ip: s.ip, port: s.port, weight: s.weight ?? 0, secret: s.secret ?? '', certificate: s.certificate ?? '',
      radsec: s.radsec ?? false, allowSelfSigned: s.allowSelfSigned ?? false, radsecPort: s.radsecPort ?? 2083,
      radsecSecret: s.radsecSecret ?? '', radsecCacerts: s.radsecCacerts ?? [], radsecCert: s.radsecCert ?? '',
      radsecKey: s.radsecKey ?? '', radsecRealms: s.radsecRealms ?? [], ignore: s.ignore ?? false,
    })),
  };
}

/**
 * The rules the schema cannot say (docs/upstream.md#other-gateway-routes, errors 1138–1143): unique
 * pool names, at least one server per pool, parseable server IPs, weights for `weighted`.
 */
function checkPools(pools: Pool[]): void {
  if (pools.length === 0) throw badRequest('pools', 'pools must hold at least one pool; DELETE removes the configuration.');
  const names = new Set<string>();
  pools.forEach((pool, i) => {
    if (names.has(pool.name)) throw badRequest(`pools[${i}].name`, `pools[${i}].name '${pool.name}' is used by an earlier pool.`);
    names.add(pool.name);
    let servers = 0;
    for (const kind of ['authConfig', 'acctConfig', 'coaConfig'] as const) {
      const group = pool[kind];
      (group?.servers ?? []).forEach((server, j) => {
        const at = `pools[${i}].${kind}.servers[${j}]`;
        if (isIP(server.ip) === 0) throw badRequest(`${at}.ip`, `${at}.ip '${server.ip}' is not an IPv4 or IPv6 address.`);
        if (group?.strategy === 'weighted' && !(server.weight !== undefined && server.weight > 0)) {
          throw badRequest(`${at}.weight`, `${at}.weight must be greater than 0 when pools[${i}].${kind}.strategy is weighted.`);
        }
        servers += 1;
      });
    }
    if (servers === 0) throw badRequest(`pools[${i}]`, `pools[${i}] must have at least one RADIUS server (authConfig, acctConfig or coaConfig).`);
  });
}

function normalize(config: RadiusProxyConfig): RadiusProxyConfig {
  return {
    pools: config.pools.map((p) => ({
      name: p.name, description: p.description ?? '',
      authConfig: normalizeGroup(p.authConfig), acctConfig: normalizeGroup(p.acctConfig), coaConfig: normalizeGroup(p.coaConfig),
      useByDefault: p.useByDefault ?? false,
      // upstream: a keepalive of 0 means the 25 s default.
      radsecKeepAlive: p.radsecKeepAlive || 25,
      poolProxyIp: p.poolProxyIp ?? '', radsecPoolType: p.radsecPoolType ?? 'generic', enabled: p.enabled ?? true,
    })),
  };
}

/** GET/PUT/DELETE /radiusProxyConfig (spec "Other operations"; persisted in DuckDB). Writes need admin. */
export async function radiusRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/radiusProxyConfig', {
    schema: {
      tags: ['radius'], summary: 'The RADIUS proxy configuration ({"pools":[]} when none is set)',
      response: { 200: RadiusProxyConfig, ...errorResponses },
    },
  }, async () => (await deps.radius.get()) ?? { pools: [] });

  api.put('/radiusProxyConfig', {
    // Schema failures are turned into bracket paths (pools[0].authConfig.servers[1].ip) below.
    attachValidation: true,
    schema: {
      tags: ['radius'],
      summary: 'Replace the RADIUS proxy configuration (admin). Answers the stored configuration with defaults filled.',
      description: 'Rules: at least one pool; pool names unique and non-empty; each pool has at least one server; strategy random|round_robin|weighted '
        + '(default random); monitorMethod none|https|radius (default none); server ip a valid IPv4/IPv6 address and port 1-65535; '
        + 'with strategy weighted every server needs weight > 0; radsecPoolType generic|radsec|orion|globalreach (default generic); '
        + 'radsecKeepAlive 0 means 25. Every error names the field, e.g. pools[0].authConfig.servers[1].ip.',
      body: RadiusProxyConfig, response: { 200: RadiusProxyConfig, ...errorResponses },
    },
  }, async (req: FastifyRequest) => {
    const failure = req.validationError as (Error & { validation?: AjvIssue[] }) | undefined;
    if (failure) throw failure.validation?.[0] ? schemaError(failure.validation[0]) : badRequest('body', failure.message);
    const body = req.body as RadiusProxyConfig;
    checkPools(body.pools);
    return deps.radius.put(normalize(body), nowSeconds(deps.clock));
  });

  api.delete('/radiusProxyConfig', {
    schema: {
      tags: ['radius'], summary: 'Remove the RADIUS proxy configuration (admin; 204 also when none was set)',
      response: { 204: Type.Null(), ...errorResponses },
    },
  }, async (_req, reply) => {
    await deps.radius.delete();
    return reply.deleted();
  });
}
