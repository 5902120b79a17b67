import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runReplay } from '../../../src/commands/replay.js';
import { startTestServer } from '../../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-replay-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const replay = (file: string) => runReplay({ file, dataDir: join(dir, 'data') }, { out: new PassThrough().resume() });

describe('the file given to replay', () => {
  it('says whether it is missing, a folder, or a pipe that cannot be read twice (usage errors)', async () => {
    await expect(replay(join(dir, 'nope.ndjson'))).rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${join(dir, 'nope.ndjson')} does not exist` });
    await expect(replay(dir)).rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${dir} is a folder, not a recording` });
    const fifo = join(dir, 'pipe.ndjson');
    execFileSync('mkfifo', [fifo]);
    await expect(replay(fifo)).rejects.toMatchObject({
      name: 'ConfigError',
      message: `replay: ${fifo} is not a regular file (a replay reads its file more than once; save a pipe's output to a file, or replay the .gz itself)`,
    });
    await expect(startTestServer({ sim: false, replay: dir, dataDir: join(dir, 'serve') }))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--replay: ${dir} is a folder, not a recording` });
  });

  it('plays a regular file', async () => {
    const file = join(dir, 'one.ndjson');
    writeFileSync(file, `${JSON.stringify({ t: 1_767_600_000_000, serial: 'a0b1c2000001', event: 'connect' })}\n`);
    const r = await replay(file);
    expect(r.summary.rejectedCount).toBe(0);
    expect(r.summary.accepted).toBe(1);
  });
});
