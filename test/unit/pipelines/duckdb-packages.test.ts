import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * row-chunks.ts builds data chunks with @duckdb/node-bindings and hands them to node-api's
 * appender. That only works when both use the same native addon: the project's node-bindings
 * must be the version node-api depends on (else npm installs a second copy). Bump them together.
 */
const require = createRequire(import.meta.url);
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { version: string; dependencies?: Record<string, string> };

describe('DuckDB packages', () => {
  it('pins @duckdb/node-bindings to the version @duckdb/node-api is built on, and one copy is installed', () => {
    const project = json(new URL('../../../package.json', import.meta.url).pathname);
    const api = json(require.resolve('@duckdb/node-api/package.json'));
    const wanted = api.dependencies?.['@duckdb/node-bindings'];
    expect(wanted).toBeDefined();
    expect(project.dependencies?.['@duckdb/node-bindings']).toBe(wanted);
    // The copy the project resolves is the one node-api resolves.
    const fromApi = createRequire(require.resolve('@duckdb/node-api')).resolve('@duckdb/node-bindings');
    expect(require.resolve('@duckdb/node-bindings')).toBe(fromApi);
  });
});
