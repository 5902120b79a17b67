import { constants, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gzipText, TrailingData, type FileChunk } from '../../src/links/replay/gzip-text.js';

/**
 * gzipText (src/links/replay/gzip-text.ts) gives the text of every member of a gzip file, in
 * order, however the file's bytes are cut into reads and however small its output chunks are;
 * zero bytes between and after members are padding; anything else after the last member is
 * TrailingData, thrown only after every byte of text before it was given out.
 */

async function* reads(file: Buffer, cuts: readonly number[]): AsyncGenerator<FileChunk> {
  let at = 0;
  for (let i = 0; at < file.length; i++) {
    const n = Math.max(1, cuts[i % cuts.length]!);
    // A fresh buffer each, as the file reader gives.
    yield { data: Buffer.from(file.subarray(at, at + n)) };
    at += n;
  }
}

async function decode(file: Buffer, cuts: readonly number[], chunkSize: number): Promise<{ text: Buffer; fileBytes: number; error?: unknown }> {
  const parts: Buffer[] = [];
  let fileBytes = 0;
  try {
    for await (const c of gzipText(reads(file, cuts), chunkSize)) {
      parts.push(c.data);
      fileBytes += c.fileBytes;
    }
  } catch (error) {
    return { text: Buffer.concat(parts), fileBytes, error };
  }
  return { text: Buffer.concat(parts), fileBytes };
}

// Text that compresses a little and a lot: repeated lines with a counter in them.
const text = fc.tuple(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 3000 })).map(([s, n]) => Array.from({ length: n }, (_, i) => `${s}${i}\n`).join(''));
const member = fc.record({ text, level: fc.integer({ min: 0, max: 9 }), padding: fc.integer({ min: 0, max: 40 }) });
const cuts = fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 8 });
const chunkSize = fc.integer({ min: constants.Z_MIN_CHUNK, max: 70_000 });

describe('gzipText', () => {
  it('gives the text of every member, with padding between and after them, for any reads and chunk size', async () => {
    await fc.assert(fc.asyncProperty(fc.array(member, { minLength: 1, maxLength: 4 }), cuts, chunkSize, async (members, cut, size) => {
      const file = Buffer.concat(members.flatMap((m) => [gzipSync(m.text, { level: m.level }), Buffer.alloc(m.padding)]));
      const r = await decode(file, cut, size);
      expect(r.error).toBeUndefined();
      expect(r.text.toString()).toBe(members.map((m) => m.text).join(''));
      // Progress never counts more of the file than there is.
      expect(r.fileBytes).toBeLessThanOrEqual(file.length);
    }), { numRuns: 60 });
  });

  it('counts junk after the data up to 64 MiB, not to the end of the file', async () => {
    async function* big(): AsyncGenerator<FileChunk> {
      yield { data: gzipSync('a\n') };
      // 100 MiB of junk that is never all read.
      for (let i = 0; i < 100; i++) yield { data: Buffer.alloc(1 << 20, 0x41) };
    }
    const parts: Buffer[] = [];
    let error: unknown;
    try {
      for await (const c of gzipText(big(), 65_536)) parts.push(c.data);
    } catch (e) {
      error = e;
    }
    expect(Buffer.concat(parts).toString()).toBe('a\n');
    expect(error).toMatchObject({ bytes: 64 * 1024 * 1024, atLeast: true, message: 'at least 67108864 bytes after the end of the compressed data are not gzip data' });
  });

  it('finds the end of a member whose deflate data ends exactly where a read does', async () => {
    const first = 'hello world\n'.repeat(5000);
    const a = gzipSync(first);
    const file = Buffer.concat([a, gzipSync('second\n')]);
    // Reads that end at the deflate data's end (8 bytes before the member's), inside the
    // trailer, at the member's end, and one byte short of it.
    for (const cut of [[a.length - 8, 8], [a.length - 8, 4], [a.length, 10_000], [a.length - 1, 10_000]]) {
      const r = await decode(file, cut, 65_536);
      expect(r.error).toBeUndefined();
      expect(r.text.toString()).toBe(`${first}second\n`);
    }
    // A member whose file ends right after its deflate data: its text, then a cut.
    const r = await decode(a.subarray(0, a.length - 8), [a.length - 8], 65_536);
    expect(r.text.toString()).toBe(first);
    expect(r.error).toMatchObject({ code: 'Z_BUF_ERROR' });
  });

  it('gives every byte of text before bytes that are not gzip data, then says how many there are', async () => {
    const garbage = fc.uint8Array({ minLength: 1, maxLength: 300 }).filter((g) => g[0] !== 0 && !(g[0] === 0x1f && g[1] === 0x8b));
    await fc.assert(fc.asyncProperty(fc.array(member, { minLength: 1, maxLength: 3 }), garbage, cuts, chunkSize, async (members, junk, cut, size) => {
      const last = members.at(-1)!;
      const file = Buffer.concat([...members.map((m) => gzipSync(m.text, { level: m.level })), Buffer.alloc(last.padding), Buffer.from(junk)]);
      const r = await decode(file, cut, size);
      expect(r.text.toString()).toBe(members.map((m) => m.text).join(''));
      expect(r.error).toBeInstanceOf(TrailingData);
      expect((r.error as TrailingData).bytes).toBe(junk.length);
    }), { numRuns: 60 });
  });
});
