import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordingChunks } from '../../../../src/links/replay/read-recording.js';

/**
 * A read that fails while the consumer is still playing the previous chunk (the reader reads one
 * MiB ahead) must reach the consumer as the generator's error, never as an unhandled rejection
 * (which ends a Node process).
 */

const dirs: string[] = [];
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('readRecordingChunks: read errors', () => {
  it('throws a failed read-ahead from the generator, after the chunks read before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-readerr-'));
    dirs.push(dir);
    const file = join(dir, 'rec.ndjson');
    writeFileSync(file, Array.from({ length: 200 }, (_, t) => `${JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' })}\n`).join(''));
    // Make the second sequential read (position null; the gzip sniff reads at 0) of any FileHandle fail, as a disk error would.
    const probe = await open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as { read: (...a: unknown[]) => Promise<unknown> };
    await probe.close();
    const original = proto.read;
    let calls = 0;
    proto.read = function (this: unknown, ...a: unknown[]) {
      if (a[3] === null) calls++;
      return a[3] === null && calls === 2 ? Promise.reject(Object.assign(new Error('EIO: simulated read error'), { code: 'EIO' })) : original.apply(this, a);
    };
    restore = () => { proto.read = original; };
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const seen: number[] = [];
      const consume = async () => {
        for await (const chunk of readRecordingChunks(file, { chunkBytes: 1024 })) {
          seen.push(chunk.length);
          // A paced replay waits for its clock between lines: the failed read-ahead settles meanwhile.
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await expect(consume()).rejects.toThrow('EIO: simulated read error');
      expect(seen.length).toBe(1);
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
