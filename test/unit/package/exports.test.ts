import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What an installed airtwin's entry points (package.json `exports`) import at run time must be
 * declared where an install provides it: `dependencies`, or `peerDependencies` the user
 * installs (devDependencies are not installed for a dependent). Walks each entry's relative
 * imports; type-only imports are erased and do not count.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
interface Pkg {
  exports: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as Pkg;

const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const packageName = (spec: string): string => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/** Bare packages the module graph from `entry` loads at run time. */
function runtimePackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const out = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)]) {
      const spec = m[1]!;
      if (spec.startsWith('.')) {
        const js = resolve(dirname(file), spec);
        const ts = js.replace(/\.js$/, '.ts');
        visit(existsSync(ts) ? ts : js);
      } else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
        out.add(packageName(spec));
      }
    }
  };
  visit(resolve(root, entry));
  return out;
}

describe('package exports', () => {
  it.each(Object.entries(pkg.exports).filter(([, f]) => f.endsWith('.ts')))('%s imports only declared packages', (_name, file) => {
    const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    expect([...runtimePackages(file)].filter((p) => !declared.has(p))).toEqual([]);
  });

  it('the testing kit runs on fast-check, an optional peer dependency (the user installs it)', () => {
    expect(runtimePackages(pkg.exports['./rrm-testing']!)).toContain('fast-check');
    expect(pkg.peerDependencies?.['fast-check']).toBeDefined();
    expect(pkg.peerDependenciesMeta?.['fast-check']?.optional).toBe(true);
    expect(pkg.dependencies?.['fast-check']).toBeUndefined();
  });
});
