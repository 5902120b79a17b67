/**
 * Error answers that say how to fix the request, for the shared error and not-found handlers of
 * src/server/build-app.ts: the field a validation error is about with the values it may take, a
 * device state on a 409, and the other service's address for a route it serves.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { airtwinError, type AirtwinError } from '../errors.js';
import type { WireAnswer } from './wire/profile.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The other services of this process, for the not-found hint (set by `introduceServices`). */
    peerServices: PeerService[];
  }
}

export interface PeerService {
  /** How a person names it: `RRM`, `device gateway`. */
  name: string;
  /** Its base address, as the banner prints it (`http://127.0.0.1:16789`). */
  url: string;
  app: FastifyInstance;
}

type ValidationItem = NonNullable<FastifyError['validation']>[number];

const quoted = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v))).join(', ');

/**
 * A schema validation failure as a 400 naming the field (`querystring.limit`, `body.pattern`).
 * An enum, or a union of constants (TypeBox's literal unions compile to `anyOf` of `const`),
 * lists the values it allows and the one it got.
 */
export function validationError(error: FastifyError, request: FastifyRequest): AirtwinError {
  const all: ValidationItem[] = error.validation ?? [];
  const v = all[0];
  const where = error.validationContext ?? 'request';
  const path = v?.instancePath ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') : (v?.params as { missingProperty?: string } | undefined)?.missingProperty ?? '';
  const field = path ? `${where}.${path}` : where;
  const allowed = allowedValues(all, v?.instancePath ?? '');
  if (allowed) {
    const got = valueAt(request, where, v?.instancePath ?? '');
    const shown = got === undefined ? '' : `, not ${typeof got === 'string' ? `'${got}'` : JSON.stringify(got)}`;
    return airtwinError('BAD_REQUEST', field, `${field} must be one of ${quoted(allowed)}${shown}.`);
  }
  return airtwinError('BAD_REQUEST', field, `${field} ${v?.message ?? 'is invalid'}.`);
}

/** The values an enum (or a union of consts) at `instancePath` allows; undefined for any other failure. */
function allowedValues(all: readonly ValidationItem[], instancePath: string): unknown[] | undefined {
  const here = all.filter((e) => e.instancePath === instancePath);
  const anEnum = here.find((e) => e.keyword === 'enum');
  if (anEnum) return (anEnum.params as { allowedValues?: unknown[] }).allowedValues;
  const consts = here.filter((e) => e.keyword === 'const');
  if (consts.length > 0 && here.every((e) => e.keyword === 'const' || e.keyword === 'anyOf')) {
    return consts.map((e) => (e.params as { allowedValue?: unknown }).allowedValue);
  }
  return undefined;
}

function valueAt(request: FastifyRequest, where: string, instancePath: string): unknown {
  const part = where === 'body' ? request.body : where === 'querystring' ? request.query : where === 'params' ? request.params : where === 'headers' ? request.headers : undefined;
  let value: unknown = part;
  for (const key of instancePath.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

/** A query parameter the route does not take, named in ErrorDetails, with those it does take. */
export function unknownQueryError(names: readonly string[], request: FastifyRequest): AirtwinError {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const takes = Object.keys(schema?.properties ?? {});
  const list = takes.length > 0 ? `; it takes ${takes.join(', ')}` : '; it takes none';
  const plural = names.length > 1;
  return airtwinError('BAD_REQUEST', `querystring.${names[0]}`,
    `Unknown query parameter${plural ? 's' : ''} ${names.join(', ')}: ${request.method} ${request.routeOptions.url ?? ''} does not take ${plural ? 'them' : 'it'}${list}.`);
}

/**
 * A 409 about a device says in `DeviceState` which of the two it is: `busy` (running a command
 * or restarting: try again when it is done) or `offline` (not connected: it cannot take this
 * command now). Clients branch on the field, not on the sentence.
 */
export function withDeviceState(answer: WireAnswer, e: AirtwinError): WireAnswer {
  const state = e.code === 'DEVICE_BUSY' ? 'busy' : e.code === 'DEVICE_OFFLINE' ? 'offline' : undefined;
  if (!state || answer.body === null || typeof answer.body !== 'object') return answer;
  return { ...answer, body: { ...(answer.body as object), DeviceState: state } };
}

/** The sentence of a 404 for a route this service lacks; it names the service that serves it, if one does. */
export function noRouteSentence(app: FastifyInstance, request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? request.url;
  const plain = `No route ${request.method} ${path}.`;
  if (!path.startsWith('/api/v1/')) return plain;
  const peer = app.peerServices.find((p) => p.app.findRoute({ method: request.method as 'GET', url: path }) !== null);
  return peer ? `${plain} It is a route of the ${peer.name} service: ${peer.url}${path}` : plain;
}

/** Tells each service of a process where the others are, for noRouteSentence. */
export function introduceServices(services: readonly PeerService[]): void {
  for (const s of services) s.app.peerServices = services.filter((o) => o !== s);
}
