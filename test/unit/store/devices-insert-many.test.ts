import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/duckdb.js';
import { DevicesRepo } from '../../../src/store/devices-repo.js';

let dir: string;
let store: Store;
const device = (i: number) => {
  const serialNumber = (0xd00000000000 + i).toString(16);
  return {
    serialNumber, deviceType: 'AP' as const, macAddress: serialNumber.match(/../g)!.join(':'), manufacturer: 'EdgeCore EAP101', UUID: 1000 + i,
    configuration: JSON.stringify({ uuid: 1000 + i }), notes: [{ created: 5, createdBy: 'airtwin', note: `n${i}` }], createdTimestamp: 5,
    lastConfigurationChange: 5, lastConfigurationDownload: 5, firmware: 'fw', devicePassword: '', owner: '', location: '', venue: 'v',
    subscriber: '', entity: '', modified: 5, locale: 'US', compatible: 'edgecore_eap101', lastFWUpdate: 0, lastRecordedContact: 0,
    simulated: i % 2 === 0, connectReason: '',
  };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airtwin-insert-many-'));
  store = await Store.open(dir);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DevicesRepo.insertMany', () => {
  it('stores every record as insert would (several statements), and refuses a batch with a known serial as a whole', async () => {
    const repo = await DevicesRepo.load(store);
    const list = Array.from({ length: 1001 }, (_, i) => device(i));
    await repo.insertMany(list);
    await repo.insert(device(5000));
    const reloaded = await DevicesRepo.load(store);
    expect(reloaded.size).toBe(1002);
    expect(reloaded.all()).toEqual([...list, device(5000)]);
    await expect(repo.insertMany([device(6000), device(3)])).rejects.toMatchObject({ status: 409 });
    expect((await DevicesRepo.load(store)).has(device(6000).serialNumber)).toBe(false);
  });
});
