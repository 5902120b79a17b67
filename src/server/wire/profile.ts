import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AirtwinError } from '../../errors.js';

/**
 * Wire profiles (docs/wire-profiles.md): how both services put their one canonical result on
 * the wire. `openwifi` sends and accepts what the OpenWiFi gateway does wherever a real client
 * depends on it; `spec` follows the API documents literally. Routes never ask which profile is
 * active: they return canonical results and name their response shape (`config.wire`); the
 * profile is applied at the edge of the HTTP layer (src/server/wire/install.ts).
 */
export const WIRE_PROFILES = ['openwifi', 'spec'] as const;
export type WireName = (typeof WIRE_PROFILES)[number];

/** How one response shape goes on the wire. Absent parts leave the canonical result as it is. */
export interface WireShape {
  /** The 200 response schema on this wire: serialisation and OpenAPI. */
  schema?: TSchema;
  /** The canonical result of a successful answer -> what this wire sends. */
  toWire?(payload: unknown, request: FastifyRequest): unknown;
  /** Rewrites a request (after validation, before its handler): the leniency this wire allows. */
  fromWire?(request: FastifyRequest): void;
}

export type WireShapes = Readonly<Record<string, WireShape>>;

/** An answer the profile gives in place of a canonical one. */
export interface WireAnswer {
  status: number;
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface WireProfile {
  readonly name: WireName;
  readonly shapes: WireShapes;
  /** The answer to a coded error: the envelope, and for some codes another status. */
  error(e: AirtwinError, request: FastifyRequest): WireAnswer;
  /** The answer to a DELETE that did what it was asked (canonically: nothing more to say). */
  deleted(request: FastifyRequest): WireAnswer;
  /** The success responses every DELETE route documents on this wire. */
  readonly deleteResponses: Readonly<Record<number, TSchema>>;
  /** Query parameters the route does not declare (names given): refused with a 400, or dropped. */
  undeclaredQuery(names: string[], request: FastifyRequest): void;
}

/** The error envelope both services send (docs/ERRORS.md). */
export function envelope(status: number, details: string, description: string) {
  return { ErrorCode: status, ErrorDetails: details, ErrorDescription: description };
}

/** The plain answer to a coded error: its status and the envelope. */
export function envelopeAnswer(e: AirtwinError): WireAnswer {
  return { status: e.status, body: envelope(e.status, e.details, e.message) };
}
