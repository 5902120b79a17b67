/**
 * Algorithm arguments: the `k=v,...` string of runRRM (docs/upstream.md#rrm-behaviour) and typed,
 * validated values per mode. Divergence (docs/rrm.md): a bad value is a 400 naming the argument
 * instead of a silent default or an HTTP 500; unknown keys are a 400 too, so a typo is not ignored.
 */
import { badRequest } from '../../errors.js';

/**
 * Parses `k=v(,k=v)*`: empty segments are skipped; each segment splits at its first `=` (key
 * and value may be empty; `a=b=c` is a:"b=c"); a segment without `=` or a repeated key is
 * BAD_REQUEST naming it.
 */
export function parseArgs(raw: string | undefined | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw === null) return out;
  for (const segment of raw.split(',')) {
    if (segment === '') continue;
    const eq = segment.indexOf('=');
    if (eq < 0) throw badRequest('args', `Invalid inputs: argument '${segment}' has no '=' (expected k=v,k=v).`);
    const key = segment.slice(0, eq);
    if (Object.prototype.hasOwnProperty.call(out, key)) {
      throw badRequest('args', `Invalid inputs: argument '${key}' is given twice.`);
    }
    out[key] = segment.slice(eq + 1);
  }
  return out;
}

export interface ArgSpec {
  kind: 'boolean' | 'integer';
  default: boolean | number;
  min?: number;
  max?: number;
  description: string;
}

export function argValue(name: string, raw: string | undefined, spec: ArgSpec): boolean | number {
  if (raw === undefined) return spec.default;
  if (spec.kind === 'boolean') {
    const v = raw.toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw badRequest(`args.${name}`, `Argument '${name}' must be true or false, got '${raw}'.`);
  }
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest(`args.${name}`, `Argument '${name}' must be an integer, got '${raw}'.`);
  const n = Number(raw.trim());
  if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
    throw badRequest(`args.${name}`, `Argument '${name}' must be within ${spec.min ?? '-∞'}..${spec.max ?? '∞'}, got ${n}.`);
  }
  return n;
}
