/**
 * The coded error catalogue. Every error a client can see is one of these: the envelope's
 * `ErrorCode` is the HTTP status, `ErrorDetails` names the method or field, `ErrorDescription`
 * is a sentence. The string `code` goes to logs and docs/ERRORS.md (a test keeps them in step).
 * Code that is not HTTP (actors, links, store) throws these too, so a DEVICE_OFFLINE raised in
 * the fleet reaches a client as a 409 without a translation table.
 */
export class AirtwinError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    /** The method or field the error is about. */
    readonly details: string,
    description: string,
    options?: { cause?: unknown },
  ) {
    super(description, options);
    this.name = 'AirtwinError';
  }
}

/** code -> [HTTP status, what it means]. docs/ERRORS.md lists the same codes. */
export const ERROR_CATALOGUE = {
  BAD_REQUEST: [400, 'A parameter or body field is missing, of the wrong type or out of range.'],
  INVALID_JSON: [400, 'The request body is not valid JSON.'],
  INVALID_SERIAL: [400, 'A serial number is not 12 hexadecimal digits.'],
  SERIAL_MISMATCH: [400, 'The serial number in the body differs from the one in the path.'],
  INVALID_CONFIGURATION: [400, 'A configuration document is not a JSON object or fails validation.'],
  UNAUTHORIZED: [401, 'The bearer token is missing, malformed or invalid.'],
  TOKEN_EXPIRED: [401, 'The bearer token has expired.'],
  FORBIDDEN: [403, 'The token is valid but its role may not do this.'],
  DEVICE_RESTRICTED: [403, 'The device reports restrictions (capabilities.restrictions) that forbid this command.'],
  SIGNATURE_REQUIRED: [400, 'The device is restricted and takes this command only with a signature.'],
  NOT_FOUND: [404, 'The resource or route does not exist.'],
  NOTHING_TO_DELETE: [404, 'A DELETE found nothing to delete (the openwifi wire answers 200 instead).'],
  ALREADY_EXISTS: [409, 'A record with this key exists already.'],
  DEVICE_BUSY: [409, 'The device is already running a command.'],
  DEVICE_OFFLINE: [409, 'The device is not connected and this command cannot be queued.'],
  REQUEST_TIMEOUT: [408, 'The request (its headers or its body) did not arrive within the configured time.'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is larger than the configured limit.'],
  URI_TOO_LONG: [414, 'A path parameter is longer than 100 characters.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'The request body is not application/json.'],
  HEADERS_TOO_LARGE: [431, 'The request line and headers are larger than 16 KB.'],
  SHUTTING_DOWN: [503, 'The service is shutting down and takes no new requests.'],
  SECURITY_UNREACHABLE: [503, 'The security service that validates tokens cannot be reached.'],
  NOT_CONFIGURED: [400, 'The feature needs a setting that is not configured (e.g. NATS).'],
  RTTY_DISABLED: [503, 'Remote sessions (rtty) are turned off on this gateway (serve --no-rtty).'],
  RTTY_SESSIONS_FULL: [503, 'The internal rtty server holds as many sessions as --rtty-max-sessions allows.'],
  COMMAND_TIMEOUT: [504, 'The device did not answer in time.'],
  UPLOAD_NOT_EXPECTED: [404, 'The uploader expects no file for this command (unknown, finished, timed out, or of another device).'],
  UPLOAD_DONE: [409, 'The file of this command was uploaded already, or is being uploaded.'],
  UPLOAD_INCOMPLETE: [400, 'The upload was cut short or has no file in it; nothing was kept.'],
  UPLOAD_BUSY: [503, 'The uploader is receiving as many uploads as it takes at once; try again shortly.'],
  STORE_FAILURE: [500, 'The database rejected an operation.'],
  INSUFFICIENT_STORAGE: [507, 'The disk holding the data dir is full: nothing was written. Retry once space is freed.'],
  INTERNAL: [500, 'An unexpected error; it is logged with the request id.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function airtwinError(code: ErrorCode, details: string, description?: string, cause?: unknown): AirtwinError {
  const [status, generic] = ERROR_CATALOGUE[code];
  return new AirtwinError(code, status, details, description ?? generic, cause === undefined ? undefined : { cause });
}

export const badRequest = (details: string, description: string) => airtwinError('BAD_REQUEST', details, description);
export const notFound = (details: string, description = 'Resource does not exist.') => airtwinError('NOT_FOUND', details, description);
export const alreadyExists = (details: string, description: string) => airtwinError('ALREADY_EXISTS', details, description);
export const invalidSerial = (details: string, value: unknown) =>
  airtwinError('INVALID_SERIAL', details, `${JSON.stringify(value)} is not a serial number: expected 12 hexadecimal digits, ':' or '-' separators allowed.`);
export const deviceOffline = (serial: string, command: string) =>
  airtwinError('DEVICE_OFFLINE', command, `Device ${serial} is not connected; '${command}' cannot be queued.`);
/** A device whose link takes no new command (DeviceLink.refusesNewCommands: `why`) is as good as offline for one. */
export const deviceTakesNoCommand = (serial: string, command: string, why: string) =>
  airtwinError('DEVICE_OFFLINE', command, `Device ${serial} is ${why} and cannot run a new '${command}'.`);
export const deviceBusy = (serial: string, command: string) =>
  airtwinError('DEVICE_BUSY', command, `Device ${serial} is already running a command; try again when it completes.`);
export const forbidden = (details: string, role: string) =>
  airtwinError('FORBIDDEN', details, `This operation needs the '${role}' role.`);
export const unauthorized = (description: string) => airtwinError('UNAUTHORIZED', 'Authorization', description);
export const tokenExpired = () => airtwinError('TOKEN_EXPIRED', 'Authorization', 'The token has expired.');
/** A DELETE of a record that is not there, where upstream answers success (the openwifi wire does). */
export const nothingToDelete = (details: string, description: string) => airtwinError('NOTHING_TO_DELETE', details, description);
export const notConfigured = (details: string, description: string) => airtwinError('NOT_CONFIGURED', details, description);
/**
 * A failed database operation: 507 INSUFFICIENT_STORAGE when the disk is full, else 500
 * STORE_FAILURE. `statement` (what failed: the start of the SQL) goes to the log with the cause,
 * never to a client.
 */
export const storeFailure = (statement: string, cause: unknown) => {
  const logged = new Error(`${statement}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  return isNoSpaceError(cause)
    ? airtwinError('INSUFFICIENT_STORAGE', 'disk', 'The database could not write: no space is left on the device holding the data dir. Nothing was changed; retry once space is freed.', logged)
    : airtwinError('STORE_FAILURE', 'database', 'The database could not complete the operation.', logged);
};

/**
 * A write that failed for lack of disk space (DuckDB: `Could not write file ...: No space left on
 * device`; Node: ENOSPC), also when wrapped as another error's cause.
 */
export function isNoSpaceError(e: unknown): boolean {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if ((cur as NodeJS.ErrnoException).code === 'ENOSPC' || (cur as { code?: unknown }).code === 'INSUFFICIENT_STORAGE') return true;
    if (/No space left on device|ENOSPC|disk is full/i.test(cur.message)) return true;
  }
  return false;
}

export function isAirtwinError(e: unknown): e is AirtwinError {
  return e instanceof AirtwinError;
}
