/**
 * Filter subjects of a serve worker's NATS consumer (`--nats-filter`): which ones can be used and
 * how two of them relate. Pure string rules on the `ucentral.<serial>.<kind>` subjects of
 * src/links/nats/subjects.ts; here in protocol because the config loader checks them at start-up
 * and config may not import links (docs/ARCHITECTURE.md, "Folders and who imports whom").
 */

/**
 * Why `filter` cannot be a serve worker's filter subject, or undefined when it can: a NATS subject
 * that can match `ucentral.<serial>.up` / `.presence`, e.g. `ucentral.a0b1c2300047.*` or
 * `ucentral.*.*`. Wildcards match whole tokens only, so a serial prefix is not expressible.
 */
export function filterProblem(filter: string): string | undefined {
  const tokens = filter.split('.');
  const shape = 'expected ucentral.<serial>.* or ucentral.*.* (serial: 12 lowercase hex digits; wildcards * and > stand for whole tokens)';
  if (tokens[0] !== 'ucentral' || tokens.length < 2) return `not a subject under ucentral. (${shape})`;
  for (const [i, t] of tokens.entries()) {
    if (t === '' || /\s/.test(t)) return `empty token or white space (${shape})`;
    if (t !== '*' && t !== '>' && /[*>]/.test(t)) return `a wildcard must be a whole token (${shape})`;
    if (t === '>' && i !== tokens.length - 1) return `> must be the last token (${shape})`;
  }
  const [, serial, kind] = tokens;
  if (tokens.length > 3 || (tokens.length === 2 && serial !== '>')) return `matches no ucentral.<serial>.<kind> subject (${shape})`;
  if (serial !== '*' && serial !== '>' && !/^[0-9a-f]{12}$/.test(serial!)) return `${serial} is not a serial (${shape})`;
  if (kind !== undefined && !['*', '>', 'up', 'presence'].includes(kind)) return `the stream holds only .up and .presence (${shape})`;
  return undefined;
}

/** Whether a NATS subject matches a filter (`*` one token, `>` the rest). */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

/** Whether some subject matches both filters (JetStream refuses overlapping filter subjects). */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '>' || y[i] === '>') return x[i] !== undefined && y[i] !== undefined;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '*' && y[i] !== '*' && x[i] !== y[i]) return false;
  }
  return true;
}
