import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filterProblem, filtersOverlap, subjectMatches } from '../../../src/protocol/nats-subjects.js';
import * as subjects from '../../../src/links/nats/subjects.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Every relative import of the .ts files of one src folder, as [file, specifier]. */
function importsOf(folder: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of readdirSync(join(SRC, folder), { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, folder, name), 'utf8');
    for (const m of text.matchAll(/\bfrom\s+'(\.[^']+)'/g)) out.push([`${folder}/${name}`, m[1]!]);
  }
  return out;
}

describe('NATS filter subjects (src/protocol)', () => {
  it('accepts the filters a serve worker can use and says why the others are refused', () => {
    for (const ok of ['ucentral.a0b1c2300047.*', 'ucentral.*.*', 'ucentral.*.up', 'ucentral.a0b1c2300047.presence', 'ucentral.>', 'ucentral.*.>']) {
      expect(filterProblem(ok), ok).toBeUndefined();
    }
    const refused: [string, RegExp][] = [
      ['telemetry.*.*', /not a subject under ucentral/],
      ['ucentral', /not a subject under ucentral/],
      ['ucentral..up', /empty token/],
      ['ucentral.a0b1*.up', /whole token/],
      ['ucentral.>.up', /must be the last token/],
      ['ucentral.*', /matches no ucentral/],
      ['ucentral.*.up.x', /matches no ucentral/],
      ['ucentral.A0B1C2300047.*', /is not a serial/],
      ['ucentral.a0b1c23.*', /is not a serial/],
      ['ucentral.*.down', /only \.up and \.presence/],
    ];
    for (const [filter, why] of refused) expect(filterProblem(filter), filter).toMatch(why);
  });

  it('matches subjects token by token, * one token, > the rest', () => {
    expect(subjectMatches('ucentral.*.up', 'ucentral.a0b1c2300047.up')).toBe(true);
    expect(subjectMatches('ucentral.*.up', 'ucentral.a0b1c2300047.presence')).toBe(false);
    expect(subjectMatches('ucentral.>', 'ucentral.a0b1c2300047.up')).toBe(true);
    expect(subjectMatches('ucentral.>', 'ucentral')).toBe(false);
    expect(subjectMatches('ucentral.a0b1c2300047.*', 'ucentral.a0b1c2300047')).toBe(false);
  });

  it('finds overlapping filters (JetStream refuses them)', () => {
    expect(filtersOverlap('ucentral.a0b1c2300047.*', 'ucentral.*.up')).toBe(true);
    expect(filtersOverlap('ucentral.a0b1c2300047.*', 'ucentral.a0b1c2300048.*')).toBe(false);
    expect(filtersOverlap('ucentral.>', 'ucentral.a0b1c2300048.presence')).toBe(true);
    expect(filtersOverlap('ucentral.*.up', 'ucentral.*.presence')).toBe(false);
    expect(filtersOverlap('ucentral.*', 'ucentral.*.up')).toBe(false);
  });

  it('are the very functions the NATS links use', () => {
    expect(subjects.filterProblem).toBe(filterProblem);
    expect(subjects.filtersOverlap).toBe(filtersOverlap);
    expect(subjects.subjectMatches).toBe(subjectMatches);
  });
});

describe('layering (docs/ARCHITECTURE.md, "Folders and who imports whom")', () => {
  it('config and protocol import nothing from links', () => {
    const upward = [...importsOf('config'), ...importsOf('protocol')].filter(([, spec]) => /\/links\//.test(spec));
    expect(upward).toEqual([]);
  });
});
