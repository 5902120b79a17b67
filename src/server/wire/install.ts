import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import type { WireAnswer, WireName, WireProfile, WireShapes } from './profile.js';
import { openwifiWire } from './openwifi.js';
import { specWire } from './spec.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's response shape: the active wire profile says how it goes on the wire. */
    wire?: string;
  }
  interface FastifyReply {
    /** Answers a successful DELETE as the active wire does (spec: 204; openwifi: 200 with the operation result). */
    deleted(): FastifyReply;
  }
}

const PROFILES: Readonly<Record<WireName, (shapes?: WireShapes) => WireProfile>> = { openwifi: openwifiWire, spec: specWire };

/** The named wire profile, with a service's response shapes (the RRM has none of its own). */
export function wireProfile(name: WireName, shapes: Readonly<Record<WireName, WireShapes>> | undefined = undefined): WireProfile {
  return PROFILES[name](shapes?.[name]);
}

/** Sends a profile's answer. */
export function sendAnswer(reply: FastifyReply, answer: WireAnswer): FastifyReply {
  reply.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value);
  return answer.body === undefined ? reply.send() : reply.type('application/json').send(answer.body);
}

type Hook = (...args: never[]) => unknown;
const hooks = (h: Hook | Hook[] | undefined): Hook[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

interface RouteSchema {
  querystring?: TSchema & { properties?: Record<string, unknown>; additionalProperties?: unknown };
  response?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * Applies a wire profile to every route registered after this call (the one place it is applied):
 * - a route naming a shape (`config.wire`) gets the profile's 200 schema for it, its `toWire` as
 *   a preSerialization hook (successful answers only) and its `fromWire` as a preHandler;
 * - a DELETE route documents the profile's success responses instead of its 204, and answers
 *   with `reply.deleted()`;
 * - a route whose query schema refuses unknown parameters hands them to the profile before validation.
 * Errors are answered through `profile.error` by the service's error handler.
 */
export function installWire(app: FastifyInstance, profile: WireProfile): void {
  app.decorateReply('deleted', function deleted(this: FastifyReply) {
    return sendAnswer(this, profile.deleted(this.request));
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as RouteSchema | undefined;
    if (!schema) return;
    const next: RouteSchema = { ...schema };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('DELETE') && schema.response && '204' in schema.response) {
      const { 204: _, ...others } = schema.response;
      next.response = { ...profile.deleteResponses, ...others };
    }
    const shape = route.config?.wire === undefined ? undefined : profile.shapes[route.config.wire];
    if (shape?.schema) next.response = { ...next.response, 200: shape.schema };
    if (shape?.toWire) {
      const toWire = shape.toWire;
      const hook = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) =>
        (reply.statusCode < 300 ? toWire(payload, request) : payload);
      route.preSerialization = [...hooks(route.preSerialization as Hook | Hook[] | undefined), hook] as RouteOptions['preSerialization'];
    }
    if (shape?.fromWire) {
      const fromWire = shape.fromWire;
      route.preHandler = [...hooks(route.preHandler as Hook | Hook[] | undefined), async (request: FastifyRequest) => fromWire(request)] as RouteOptions['preHandler'];
    }
    // Routes that refuse unknown parameters (additionalProperties: false) leave them to the profile.
    const declared = schema.querystring?.additionalProperties === false ? schema.querystring.properties : undefined;
    if (declared) {
      const known = new Set(Object.keys(declared));
      const check = async (request: FastifyRequest) => {
        const names = Object.keys((request.query ?? {}) as object).filter((n) => !known.has(n));
        if (names.length > 0) profile.undeclaredQuery(names, request);
      };
      route.preValidation = [check, ...hooks(route.preValidation as Hook | Hook[] | undefined)] as RouteOptions['preValidation'];
    }
    route.schema = next;
  });
}
