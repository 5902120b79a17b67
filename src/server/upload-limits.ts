import { HTTP_LIMIT_DEFAULTS, type HttpLimits } from './http-limits.js';

/** An AP on a slow link may take minutes for 10 MB: the whole request may take this long at least. */
export const UPLOAD_REQUEST_MS = 5 * 60_000;

/** The APIs' limits with room for a large body: slow headers and idle sockets are dropped as there. */
export function uploadLimits(limits: HttpLimits = HTTP_LIMIT_DEFAULTS): HttpLimits {
  const requestTimeoutMs = Math.max(limits.requestTimeoutMs, UPLOAD_REQUEST_MS);
  return { ...limits, requestTimeoutMs, connectionTimeoutMs: limits.connectionTimeoutMs === 0 ? 0 : Math.max(limits.connectionTimeoutMs, requestTimeoutMs) };
}
