import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayFileRecordedOver } from '../../../src/runtime/replay.js';
import { recordingParts } from '../../../src/runtime/replay-input.js';
import { startTestServer } from '../../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-record-over-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const put = (name: string) => {
  writeFileSync(join(dir, name), `{"t":1,"serial":"a0b1c2000001","event":"connect"}\n`);
  return join(dir, name);
};

describe('a recording that would overwrite what is being replayed', () => {
  const replay = put('traffic.ndjson');
  put('traffic.ndjson.1');
  put('traffic.ndjson.2.gz');
  const files = recordingParts(replay);

  it('is the replayed file itself, by any path', () => {
    expect(files).toHaveLength(3);
    expect(replayFileRecordedOver(replay, files)).toBe(replay);
    expect(replayFileRecordedOver(relative(process.cwd(), replay), files)).toBe(replay);
    expect(replayFileRecordedOver(join(dir, '.', 'sub', '..', 'traffic.ndjson'), files)).toBe(replay);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    symlinkSync(replay, join(dir, 'sub', 'link.ndjson'));
    expect(replayFileRecordedOver(join(dir, 'sub', 'link.ndjson'), files)).toBe(replay);
    linkSync(replay, join(dir, 'hard.ndjson'));
    expect(replayFileRecordedOver(join(dir, 'hard.ndjson'), files)).toBe(replay);
  });

  it('is a part the recorder would delete at its start or write when it rotates', () => {
    // Recording to traffic.ndjson.1 starts parts traffic.ndjson.1.1, ...: it truncates the part itself.
    expect(replayFileRecordedOver(join(dir, 'traffic.ndjson.1'), files)).toBe(join(dir, 'traffic.ndjson.1'));
    // A replay of a part alone, recorded to its whole: the recorder deletes FILE.N and FILE.N.gz first.
    expect(replayFileRecordedOver(replay, [join(dir, 'traffic.ndjson.2.gz')])).toBe(join(dir, 'traffic.ndjson.2.gz'));
    expect(replayFileRecordedOver(join(dir, 'traffic.ndjson.gz'), [join(dir, 'traffic.ndjson.1')])).toBe(join(dir, 'traffic.ndjson.1'));
  });

  it('is nothing for another file, or for FILE.gz next to FILE (the recorder leaves the other form of the first part alone)', () => {
    expect(replayFileRecordedOver(join(dir, 'other.ndjson'), files)).toBeUndefined();
    expect(replayFileRecordedOver(join(dir, 'traffic.ndjson.gz'), [replay])).toBeUndefined();
    expect(replayFileRecordedOver(join(dir, 'traffic.ndjson.x'), files)).toBeUndefined();
  });

  it('makes serve refuse to start (a usage error) and leaves the recording as it was', async () => {
    const before = readFileSync(replay);
    await expect(startTestServer({ sim: false, replay, record: replay, dataDir: join(dir, 'data') }))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--record: ${replay} would overwrite ${replay}, which --replay reads; record to another file` });
    expect(readFileSync(replay).equals(before), "the recording is unchanged").toBe(true);
  });
});

describe("a recording that would overwrite the data dir's own database", () => {
  it('makes serve refuse to start, for the DuckDB file or its log by any path, and leaves the data as it was', async () => {
    const dataDir = join(dir, 'own');
    // A data dir with a device in it.
    const first = await startTestServer({ dataDir });
    expect((await first.gw('POST', '/device/a0b1c2000009', { body: { serialNumber: 'a0b1c2000009', deviceType: 'AP', UUID: 1 } })).status).toBe(200);
    await first.running.close();
    const db = join(dataDir, 'airtwin.duckdb');
    const before = readFileSync(db);
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    symlinkSync(db, join(dir, 'elsewhere', 'db-link'));
    const records = [db, `${db}.wal`, join(dataDir, '.', 'airtwin.duckdb'), relative(process.cwd(), db), join(dir, 'elsewhere', 'db-link')];
    for (const record of records) {
      await expect(startTestServer({ dataDir, record }), record).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(/is .*airtwin\.duckdb(\.wal)?, the data dir's database; record to another file$/) });
    }
    expect(readFileSync(db).equals(before), "the database file is unchanged").toBe(true);
    // A link to the file of a data dir that has none yet: the store would make it, the recorder truncate it.
    const fresh = join(dir, 'fresh');
    mkdirSync(fresh);
    symlinkSync(join(fresh, 'airtwin.duckdb'), join(dir, 'elsewhere', 'dangling'));
    await expect(startTestServer({ dataDir: fresh, record: join(dir, 'elsewhere', 'dangling') }))
      .rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(/the data dir's database; record to another file$/) });
    // Another file in the data dir records as usual, and the device is still there.
    const next = await startTestServer({ dataDir, record: join(dataDir, 'traffic.ndjson') });
    try {
      expect((await next.gw('GET', '/device/a0b1c2000009')).status).toBe(200);
    } finally {
      await next.running.close();
    }
  });
});
