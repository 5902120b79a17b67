import { Type, type Static } from 'typebox';

/** The error envelope of both services (docs/ERRORS.md). */
export const ErrorEnvelope = Type.Object({
  ErrorCode: Type.Integer({ description: 'The HTTP status.' }),
  ErrorDetails: Type.String({ description: 'The method or field the error is about.' }),
  ErrorDescription: Type.String({ description: 'What went wrong, as a sentence.' }),
  DeviceState: Type.Optional(Type.Union([Type.Literal('busy'), Type.Literal('offline')], {
    description: 'On a 409 about a device: busy (running a command or restarting; try again when it is done) or offline (not connected).',
  })),
}, { $id: 'ErrorEnvelope', title: 'ErrorEnvelope' });

export const OperationResult = Type.Object({
  Operation: Type.String(),
  Details: Type.String(),
  Code: Type.Integer(),
}, { $id: 'OperationResult', title: 'OperationResult' });
export type OperationResult = Static<typeof OperationResult>;

export const SerialParam = Type.Object({
  serialNumber: Type.String({ description: '12 hex digits; `:`/`-` separators accepted; case-insensitive.' }),
});

/** spec: offset starts at 1 (0 is read as 1; negative is 400); no limit means no limit. */
export const Pagination = {
  offset: Type.Optional(Type.Integer({ minimum: 0, description: '1-based start; 0 is read as 1.' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, description: 'Maximum entries; absent means all.' })),
};

export const DateRange = {
  startDate: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch seconds, inclusive.' })),
  endDate: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch seconds, inclusive.' })),
};

/**
 * Error responses every route may send; added to each route's response map. 408, 414 and 431
 * come from the HTTP layer (timeouts, a path parameter over 100 characters, headers over 16 KB),
 * 415 for a body that is not JSON, 503 while the service shuts down.
 */
export const errorResponses = {
  400: Type.Ref('ErrorEnvelope'),
  401: Type.Ref('ErrorEnvelope'),
  403: Type.Ref('ErrorEnvelope'),
  404: Type.Ref('ErrorEnvelope'),
  408: Type.Ref('ErrorEnvelope'),
  409: Type.Ref('ErrorEnvelope'),
  413: Type.Ref('ErrorEnvelope'),
  414: Type.Ref('ErrorEnvelope'),
  415: Type.Ref('ErrorEnvelope'),
  431: Type.Ref('ErrorEnvelope'),
  500: Type.Ref('ErrorEnvelope'),
  503: Type.Ref('ErrorEnvelope'),
};

export function page<T>(items: T[], offset: number | undefined, limit: number | undefined): T[] {
  const start = Math.max(1, offset ?? 1) - 1;
  return limit === undefined ? items.slice(start) : items.slice(start, start + limit);
}

export const ok = (operation: string): OperationResult => ({ Operation: operation, Details: 'Command completed.', Code: 0 });
