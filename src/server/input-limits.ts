import type { RouteOptions } from 'fastify';
import { badRequest } from '../errors.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../protocol/json-depth.js';

/**
 * Bounds on what a request may carry, applied once for every route of both services.
 *
 * Integers: a query string `1e308` or `9223372036854775808` is an integer to JSON Schema, but
 * DuckDB (BIGINT columns, LIMIT/OFFSET) and timers cannot take it. Every integer of a request
 * (query, path, body) without its own bounds is kept within the safe integers, so the 400 names
 * the parameter instead of the database failing on it.
 *
 * JSON depth: see src/protocol/json-depth.ts; a body is checked before it is parsed.
 */
export const MAX_REQUEST_INTEGER = Number.MAX_SAFE_INTEGER;

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `schema` whose integers without a bound get the safe-integer one (schemas are shared constants: never mutated). */
export function boundIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(boundIntegers);
  if (!isSchema(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // `properties`, `patternProperties` and `$defs` map names to schemas; other keys hold a schema, a list of them or a plain value.
    if ((key === 'properties' || key === 'patternProperties' || key === '$defs') && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, boundIntegers(s)]));
    } else if (['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else'].includes(key)) {
      out[key] = boundIntegers(value);
    } else {
      out[key] = value;
    }
  }
  const types = [out.type].flat();
  if (types.includes('integer')) {
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = MAX_REQUEST_INTEGER;
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = -MAX_REQUEST_INTEGER;
  }
  return out;
}

/** The request parts of a route's schema with bounded integers (response schemas stay as they are). */
export function boundRequestIntegers(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  const next = { ...schema };
  for (const part of ['querystring', 'params', 'body', 'headers']) {
    if (schema[part] !== undefined) next[part] = boundIntegers(schema[part]);
  }
  route.schema = next;
}

/** Refuses a JSON body nested deeper than `MAX_JSON_DEPTH` with a 400 naming the body. */
export function checkJsonDepth(text: string): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw badRequest('body', `The request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`);
  }
}
