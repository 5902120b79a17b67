/** Reads an OpenAPI 3.0 document as a client would: its operations, and whether an answer is one it declares. */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

export interface Operation {
  method: string;
  /** The path template, e.g. /api/v1/device/{serialNumber}. */
  path: string;
  op: Json;
}

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })));
}

/** Follows a local `$ref` of the document. */
export function resolveRef(doc: Json, schema: Json | undefined): Json | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    s = (s.$ref as string).replace(/^#\//, '').split('/').reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return s;
}

const withDocRefs = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withDocRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) =>
    [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi.json${v}` : withDocRefs(v)]));
};

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/**
 * Checks answers against the document: the status is declared for the operation (or as its
 * `default`), a JSON body is valid against the declared schema, every 4xx/5xx is the envelope.
 * Returns what is wrong, or undefined.
 */
export function answerChecker(doc: Json): (operation: Operation, answer: Answer) => string | undefined {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(withDocRefs({ components: doc.components }) as object, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  return ({ method, path, op }, { status, contentType, text }) => {
    const where = `${method} ${path} -> ${status}`;
    const responses = op.responses as Record<string, Json>;
    const declared = responses[String(status)] ?? responses.default;
    if (!declared) return `${where}: status not declared (declared: ${Object.keys(responses).join(', ')}); body ${text.slice(0, 200)}`;
    let body: unknown;
    if (contentType.startsWith('application/json')) {
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return `${where}: Content-Type says JSON but the body is not: ${text.slice(0, 200)}`;
      }
    }
    if (status >= 400) {
      const e = body as Json | undefined;
      if (typeof e?.ErrorCode !== 'number' || typeof e.ErrorDetails !== 'string' || typeof e.ErrorDescription !== 'string') {
        return `${where}: not the error envelope: ${text.slice(0, 200)}`;
      }
    }
    const schema = (declared.content as Json | undefined)?.['application/json']?.schema;
    if (!schema || body === undefined) return undefined;
    const key = `${method} ${path} ${status in responses ? status : 'default'}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(withDocRefs(schema) as object);
      compiled.set(key, validate);
    }
    if (!validate(body)) return `${where}: body does not match the declared schema: ${ajv.errorsText(validate.errors)}; body ${text.slice(0, 300)}`;
    return undefined;
  };
}

/** The operation of the document a concrete request path belongs to. */
export function operationFor(ops: Operation[], method: string, url: string): Operation | undefined {
  const path = url.split('?')[0]!;
  return ops.find((o) => o.method === method
    && new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}
