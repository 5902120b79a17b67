import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingParts, replayFileRecordedOver } from '../../../src/commands/replay.js';
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
    expect(readFileSync(replay)).toEqual(before);
  });
});
