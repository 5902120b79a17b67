import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';

describe('error catalogue', () => {
  it('lists the same codes and statuses as docs/ERRORS.md', () => {
    const doc = readFileSync(new URL('../../docs/ERRORS.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| ([A-Z_]+) \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, [status]]) => [code, status]);
    expect(rows.sort()).toEqual(catalogue.sort());
  });
});
