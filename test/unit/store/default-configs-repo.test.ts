import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/duckdb.js';
import { DefaultConfigsRepo } from '../../../src/store/default-configs-repo.js';

let dir: string;
let store: Store;
let repo: DefaultConfigsRepo;
const config = (name: string, modelIds: string[], platform = 'ap') =>
  ({ name, modelIds, platform, description: '', configuration: '{}', created: 1, lastModified: 1 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airtwin-defcfg-'));
  store = await Store.open(dir);
  repo = await DefaultConfigsRepo.load(store);
  await repo.insert(config('b-any', ['*']));
  await repo.insert(config('a-eap101', ['edgecore_eap101', 'edgecore_eap102']));
  await repo.insert(config('c-switch', ['*'], 'switch'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DefaultConfigsRepo.match (matches where upstream does not)', () => {
  it('prefers an exact model id over a wildcard', () => {
    expect(repo.match('edgecore_eap102')?.name).toBe('a-eap101');
  });
  it("falls back to '*' for other models", () => {
    expect(repo.match('linksys_ea8300')?.name).toBe('b-any');
  });
  it('matches devices that report a platform, on that platform only', () => {
    expect(repo.match('edgecore_eap101', 'AP')?.name).toBe('a-eap101');
    expect(repo.match('edgecore_eap101', 'switch')?.name).toBe('c-switch');
    expect(repo.match('x', 'router')).toBeUndefined();
  });
  it('finds the same after reloading from DuckDB', async () => {
    const again = await DefaultConfigsRepo.load(store);
    expect(again.all().map((c) => c.name)).toEqual(['a-eap101', 'b-any', 'c-switch']);
    expect(again.match('edgecore_eap101')?.modelIds).toEqual(['edgecore_eap101', 'edgecore_eap102']);
  });
});
