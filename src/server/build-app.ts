import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { AirtwinError, airtwinError, isAirtwinError } from '../errors.js';
import type { Authenticator, Principal } from './auth.js';
import { accessFor, checkAccess, dependsOnBody, isWrite, routeKey, WRITE_ACCESS } from './roles.js';
import { ErrorEnvelope, OperationResult } from './schemas.js';
import { envelope, type WireProfile } from './wire/profile.js';
import { installWire, sendAnswer } from './wire/install.js';
import { noRouteSentence, validationError, withDeviceState, type PeerService } from './teaching-errors.js';
import { boundRequestIntegers, checkJsonDepth } from './input-limits.js';
import { hoistNamedSchemas, openApiTransform } from './openapi.js';
import { applyServerLimits, HTTP_LIMIT_DEFAULTS, drainRefusedBody, nodeServerOptions, onClientError, type HttpLimits } from './http-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /**
     * A websocket whose client sends its token as the first frame (`token:<t>`), as the OpenWiFi UI
     * does (browsers cannot set headers on a websocket): `only` skips the header check, `unless-header`
     * skips it when no Authorization header came. The route then authenticates the frame itself.
     */
    firstFrameToken?: 'only' | 'unless-header';
  }
}

export interface ServiceAppOptions {
  name: string;
  version: string;
  description: string;
  logger: Logger;
  authenticator: Authenticator;
  bodyLimit: number;
  https?: { cert: string | Buffer; key: string | Buffer };
  /** How answers go on the wire (src/server/wire/). */
  wire: WireProfile;
  /** The OpenAPI tag of routes that name none (default `api`). */
  tag?: string;
  /** Timeouts and the connection cap of the listener (defaults: HTTP_LIMIT_DEFAULTS). */
  limits?: HttpLimits;
}

/** Maps anything thrown to the envelope: catalogue errors as they are, the rest hidden behind 500. */
function toAirtwinError(error: FastifyError, request: FastifyRequest): AirtwinError {
  if (isAirtwinError(error)) return error;
  if (error.validation) return validationError(error, request);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return airtwinError('PAYLOAD_TOO_LARGE', request.method, `The request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 'the configured'} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return airtwinError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return airtwinError('INVALID_JSON', 'body', 'The body is empty but Content-Type says application/json.');
    case 'FST_ERR_BAD_URL':
      return airtwinError('BAD_REQUEST', 'path', 'The path is not valid percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return airtwinError('URI_TOO_LONG', 'path', 'A path parameter is longer than 100 characters.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return airtwinError('INVALID_JSON', 'body', `The request body is not valid JSON: ${error.message}`);
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return airtwinError('INVALID_JSON', 'body', `The request body is not valid JSON: ${error.message}`);
  }
  if (error.statusCode === 404) return airtwinError('NOT_FOUND', request.method);
  // A path the static files refuse (`/docs/static/../../etc/passwd`) is as good as absent.
  if (error.statusCode === 403) return airtwinError('NOT_FOUND', request.method, `No file at ${request.url.split('?')[0]}.`);
  if (error.statusCode === 415) return airtwinError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type', 'Send the body as application/json.');
  return airtwinError('INTERNAL', request.method, `An unexpected error happened; it is logged with request id ${request.id}.`, error);
}

/**
 * What both wires share below the routes: JSON answers say `Content-Type: application/json`
 * exactly (clients compare the header as a string); a JSON body may be empty (clients send the
 * header on every DELETE); bodies are JSON only; a refused websocket upgrade closes its socket.
 */
function httpPlumbing(app: FastifyInstance): void {
  // Without this, Fastify's built-in text/plain parser lets a text body reach validation (a
  // confusing 400) instead of the catalogue's 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    try {
      checkJsonDepth(body as string);
    } catch (e) {
      return done(e as Error, undefined);
    }
    json(request, body as string, done);
  });
  // Callback-style hooks on every request: an async one costs a promise per request per hook.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json;')) reply.header('content-type', 'application/json');
    done(null, payload);
  });
  // An upgrade refused before a websocket route took it (404, a failed auth hook, a plain route)
  // is answered on a socket the HTTP server no longer tracks: it would stay open (CLOSE-WAIT once
  // the client leaves) and keep the process from shutting down. Close it once answered.
  app.addHook('onResponse', (request, _reply, done) => {
    if (!(request as { ws?: boolean }).ws && request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy();
    done();
  });
}

/**
 * One Fastify instance per service, not yet listening: shared plugins, the envelope for every
 * error, OpenAPI at /openapi.json with a UI at /docs (no token needed), and bearer auth on /api/v1.
 * The caller registers its routes with `registerApi` and listens.
 */
export async function buildServiceApp(opts: ServiceAppOptions): Promise<FastifyInstance> {
  const limits = opts.limits ?? HTTP_LIMIT_DEFAULTS;
  const app = createFastify(opts, limits);
  applyServerLimits(app.server, limits);
  refuseWhileClosing(app);
  installValidators(app);
  app.decorateRequest('principal', undefined as unknown as Principal);
  app.decorate('peerServices', [] as PeerService[]);
  installWire(app, opts.wire);
  app.addHook('onRoute', boundRequestIntegers);
  httpPlumbing(app);
  await registerPlugins(app, opts);
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const e = toAirtwinError(error, request);
    // The client may still be sending the body: read and drop it instead of closing under it (Fastify
    // asks for a close), so that it reads the 413 rather than a reset.
    if (e.code === 'PAYLOAD_TOO_LARGE' && drainRefusedBody(request.raw)) reply.removeHeader('connection');
    if (e.status >= 500) request.log.error({ err: error, code: e.code, reqId: request.id }, 'request failed');
    else request.log.info({ code: e.code, details: e.details }, e.message);
    return sendAnswer(reply, withDeviceState(opts.wire.error(e, request), e));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(envelope(404, request.method, noRouteSentence(app, request)));
  });
  return app;
}

/** The instance with the listener's limits and the envelope for errors found before routing. */
function createFastify(opts: ServiceAppOptions, limits: HttpLimits): FastifyInstance {
  const serverOptions = nodeServerOptions(limits);
  return Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    clientErrorHandler: onClientError,
    // Fastify's own 503 while closing has no envelope: refuseWhileClosing answers instead.
    return503OnClosing: false,
    // A bad percent-encoding or an over-long path parameter, found before routing.
    frameworkErrors: (error, request, reply) => {
      const e = toAirtwinError(error as FastifyError, request);
      request.log.info({ code: e.code, details: e.details }, e.message);
      // Found before routing, so no hook runs: written as the onSend hook would leave it.
      const answer = opts.wire.error(e, request);
      const text = JSON.stringify(answer.body ?? null);
      reply.raw.writeHead(answer.status, {
        ...answer.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-request-id': request.id,
      });
      reply.raw.end(text);
    },
    ...(opts.https ? { https: { ...serverOptions, ...opts.https } } : { http: serverOptions }),
  });
}

/** Once closing starts, every request is refused with the envelope (503 SHUTTING_DOWN); and an HTTP/1.1 request needs Host. */
function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      return done(airtwinError('SHUTTING_DOWN', request.method, 'The service is shutting down; retry on another instance or after its restart.'));
    }
    // Node would refuse an HTTP/1.1 request without Host with a bare 400 (requireHostHeader: false leaves it here).
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return done(airtwinError('BAD_REQUEST', 'Host', 'An HTTP/1.1 request needs a Host header.'));
    }
    done();
  });
}

/**
 * Query strings and path params arrive as text, so they are coerced ("5" -> 5); a JSON body
 * already has types, and a wrong one is the client's error (400), never silently converted.
 */
function installValidators(app: FastifyInstance): void {
  const strict = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats.default(strict);
  const lenient = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats.default(lenient);
  const shared = [ErrorEnvelope, OperationResult];
  for (const schema of shared) {
    strict.addSchema(schema);
    lenient.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict.compile(schema) : lenient.compile(schema)));
  app.addSchema(ErrorEnvelope);
  app.addSchema(OperationResult);
}

/** CORS, compression, and the OpenAPI document with its UI. */
async function registerPlugins(app: FastifyInstance, opts: ServiceAppOptions): Promise<void> {
  await app.register(cors, {
    origin: true, credentials: true, maxAge: 86_400,
    // Every method a route has (the plugin's default is GET, HEAD, POST: a browser could not PUT or DELETE).
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    // An OPTIONS without Origin is no preflight, but no error either: 204 with the CORS headers
    // (the strict default answered a plain-text 400).
    strictPreflight: false,
    // File downloads name themselves in Content-Disposition; a UI on another origin must read it.
    exposedHeaders: ['Content-Disposition'],
  });
  await app.register(compress, { threshold: 1024 });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: opts.name, version: opts.version, description: `${opts.description}\n\nWire profile: ${opts.wire.name} (docs/wire-profiles.md).` },
      // Relative: a generated client calls the host and port it read the document from.
      servers: [{ url: '/', description: `this ${opts.name}` }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
    transform: openApiTransform(opts.tag ?? 'api'),
    transformObject: hoistNamedSchemas,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Registers a service's routes under /api/v1 behind bearer auth and the roles of
 * src/server/roles.ts, the one place access is decided: the token on every request, the role a
 * write needs before its body is read, or once it is read where the body decides (the generic
 * command). A write route that table does not list fails here, at start. Encapsulated (no
 * fastify-plugin), so the hooks cannot leak onto /docs or /openapi.json.
 */
export async function registerApi(app: FastifyInstance, authenticator: Authenticator, routes: (api: FastifyInstance) => Promise<void> | void): Promise<void> {
  await app.register(async (api) => {
    api.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        const key = routeKey(method, route.url);
        if (isWrite(method) && !(key in WRITE_ACCESS)) throw new Error(`${key}: a write route without a role in src/server/roles.ts`);
      }
    });
    const keyOf = (request: FastifyRequest) => routeKey(request.method, request.routeOptions.url ?? request.url);
    api.addHook('onRequest', async (request) => {
      const firstFrame = request.routeOptions.config.firstFrameToken;
      if (firstFrame === 'only' || (firstFrame === 'unless-header' && !request.headers.authorization)) return;
      request.principal = await authenticator.verify(request.headers.authorization);
      checkAccess(accessFor(keyOf(request)), request.principal.role, `${request.method} ${request.routeOptions.url ?? request.url}`);
    });
    api.addHook('preValidation', (request, _reply, done) => {
      const key = keyOf(request);
      try {
        if (dependsOnBody(key)) checkAccess(accessFor(key, request.body), request.principal.role, `${request.method} ${request.routeOptions.url ?? request.url}`);
      } catch (e) {
        return done(e as Error);
      }
      done();
    });
    await routes(api);
  }, { prefix: '/api/v1' });
}
