import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { foundPart, isPartName, laterParts, ndjsonFileWriter, NdjsonParts, NdjsonWriter, partPath, partsAfterGap, RecordingError } from '../../../../src/links/record/ndjson-writer.js';
import { readRecording, type ReadItem } from '../../../../src/links/replay/read-recording.js';
import { until } from '../../../helpers/until.js';

/** A slow sink: accepts `hwm` bytes, then asks the writer to wait for 'drain'. */
function slowSink() {
  const chunks: string[] = [];
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      setImmediate(cb);
    },
  });
  return { sink, text: () => chunks.join('') };
}

describe('NdjsonWriter', () => {
  it('writes every line once, in order, newline-terminated, and closes the stream', async () => {
    const { sink, text } = slowSink();
    const w = new NdjsonWriter(sink, { chunkBytes: 100 });
    for (let i = 0; i < 500; i++) {
      const p = w.write(JSON.stringify({ i }));
      if (p) await p;
    }
    await w.close();
    const lines = text().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(w.count).toBe(500);
    expect(sink.writableFinished).toBe(true);
  });

  it('asks the producer to wait once a chunk is full (bounded memory)', () => {
    const { sink } = slowSink();
    const w = new NdjsonWriter(sink, { chunkBytes: 50 });
    expect(w.write('x'.repeat(10))).toBeUndefined();
    expect(w.write('y'.repeat(60))).toBeInstanceOf(Promise);
  });

  it('refuses writes after close', async () => {
    const { sink } = slowSink();
    const w = new NdjsonWriter(sink);
    await w.close();
    expect(() => w.write('{}')).toThrow(/after close/);
  });

  // /dev/full accepts the open and fails every write with ENOSPC: a disk that is full.
  it('rejects close with the disk error when the stream failed after taking the last write (no hang)', async () => {
    const stream = createWriteStream('/dev/full');
    const failed = new Promise((r) => stream.once('error', r));
    const w = new NdjsonWriter(stream, { chunkBytes: 10 });
    // The stream takes this chunk into its buffer; the write to the disk fails afterwards.
    await w.write('{"a":1234567890}');
    await failed;
    await expect(w.close()).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(() => w.write('{}')).toThrow();
  });

  it('names the file in a RecordingError and keeps the system error as its cause', () => {
    const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const e = new RecordingError('/data/traffic.ndjson', cause);
    expect(e.message).toBe('recording /data/traffic.ndjson: ENOSPC: no space left on device, write');
    expect(e).toMatchObject({ name: 'RecordingError', file: '/data/traffic.ndjson', code: 'ENOSPC', cause });
  });
});

describe('ndjsonFileWriter: a recording file, gzip-compressed when its name ends in .gz', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-writer-gz-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const line = (t: number) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' });

  it('writes gzip that unpacks to the lines, and plain text for any other name', async () => {
    for (const name of ['a.ndjson.gz', 'a.ndjson']) {
      const file = join(dir, name);
      const w = ndjsonFileWriter(file, { chunkBytes: 64 });
      for (let t = 0; t < 100; t++) await w.write(line(t));
      await w.close();
      const bytes = readFileSync(file);
      const text = name.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
      expect(bytes[0] === 0x1f && bytes[1] === 0x8b).toBe(name.endsWith('.gz'));
      expect(text).toBe(`${Array.from({ length: 100 }, (_, t) => line(t)).join('\n')}\n`);
    }
  });

  it('leaves what it flushed readable before the file is closed (a process killed mid-recording)', async () => {
    const file = join(dir, 'open.ndjson.gz');
    const w = ndjsonFileWriter(file);
    for (let t = 0; t < 50; t++) w.write(line(t));
    await w.flush();
    // The flushed block reaches the file on the next turns of the loop.
    await until('the flushed block on disk', async () => (existsSync(file) ? readFileSync(file).length : 0), (n) => n > 100, 2_000);
    const items: ReadItem[] = [];
    for await (const item of readRecording(file)) items.push(item);
    expect(items.filter((i) => i.ok)).toHaveLength(50);
    expect(items.at(-1)).toMatchObject({ ok: false, line: 51, reason: expect.stringMatching(/^compressed data cut off/) });
    await w.close();
  });

  it('rejects close with the disk error when the compressed file cannot be written', async () => {
    const file = join(dir, 'full.ndjson.gz');
    symlinkSync('/dev/full', file);
    const w = ndjsonFileWriter(file, { chunkBytes: 10 });
    await w.write(line(1));
    await expect(w.close()).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});

describe('parts of a recording', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-parts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the parts after FILE.gz FILE.1.gz, FILE.2.gz, ...', () => {
    expect(partPath('/r/t.ndjson', 2)).toBe('/r/t.ndjson.2');
    expect(partPath('/r/t.ndjson.gz', 2)).toBe('/r/t.ndjson.2.gz');
    expect(partPath('/r/t.ndjson.gz', 0)).toBe('/r/t.ndjson.gz');
  });

  it('finds each part plain or gzipped afterwards, and NdjsonParts removes both forms of stale parts', async () => {
    const file = join(dir, 't.ndjson');
    for (const p of ['t.ndjson', 't.ndjson.1.gz', 't.ndjson.2', 't.ndjson.2.gz', 't.ndjson.3.gz']) writeFileSync(join(dir, p), '');
    expect(foundPart(file, 1)).toBe(join(dir, 't.ndjson.1.gz'));
    expect(foundPart(file, 2)).toBe(join(dir, 't.ndjson.2'));
    expect(foundPart(`${file}.gz`, 3)).toBe(join(dir, 't.ndjson.3.gz'));
    expect(foundPart(file, 4)).toBeUndefined();
    const parts = new NdjsonParts(file);
    await parts.close();
    expect(readdirSync(dir)).toEqual(['t.ndjson']);
  });

  it('removes every part of an earlier recording, whatever the gaps, and nothing else named like one', async () => {
    const sub = mkdtempSync(join(dir, 'gaps-'));
    const file = join(sub, 't.ndjson');
    const stale = ['t.ndjson.1', 't.ndjson.3', 't.ndjson.3.gz', 't.ndjson.12.gz', 't.ndjson.7'];
    const others = ['t.ndjson.bak', 't.ndjson.1x', 't.ndjson.01', 't.ndjson.0', 't.ndjson.1.gz.bak', 't.ndjson.gz', 'u.ndjson.2', 't.ndjson.-1'];
    for (const p of ['t.ndjson', ...stale, ...others]) writeFileSync(join(sub, p), 'old\n');
    // `rm t.ndjson.2` after an earlier recording: its t.ndjson.3 was left and replayed as the new one's.
    const parts = new NdjsonParts(file);
    parts.write('{"t":1}');
    await parts.close();
    expect(readdirSync(sub).sort()).toEqual(['t.ndjson', ...others].sort());
    expect(readFileSync(file, 'utf8')).toBe('{"t":1}\n');
    // What serve --replay F --record F refuses is what the recorder removes.
    for (const p of stale) expect(isPartName(file, join(sub, p)), p).toBe(true);
    for (const p of others) expect(isPartName(file, join(sub, p)), p).toBe(false);
  });

  it('removes the parts of both forms for a .gz path too', async () => {
    const sub = mkdtempSync(join(dir, 'gaps-gz-'));
    for (const p of ['t.ndjson.2.gz', 't.ndjson.5', 't.ndjson.1x.gz']) writeFileSync(join(sub, p), '');
    await new NdjsonParts(join(sub, 't.ndjson.gz')).close();
    expect(readdirSync(sub).sort()).toEqual(['t.ndjson.1x.gz', 't.ndjson.gz']);
  });

  it('names the parts after a gap, which a replay does not read', () => {
    const sub = mkdtempSync(join(dir, 'after-gap-'));
    const file = join(sub, 't.ndjson');
    for (const p of ['t.ndjson', 't.ndjson.1', 't.ndjson.3', 't.ndjson.10.gz', 't.ndjson.4.gz', 't.ndjson.4', 't.ndjson.05', 't.ndjson.bak']) writeFileSync(join(sub, p), '');
    expect(laterParts(file)).toEqual([join(sub, 't.ndjson.1')]);
    expect(partsAfterGap(file)).toEqual(['t.ndjson.3', 't.ndjson.4', 't.ndjson.4.gz', 't.ndjson.10.gz'].map((p) => join(sub, p)));
    expect(partsAfterGap(`${file}.gz`)).toEqual(partsAfterGap(file));
    writeFileSync(join(sub, 't.ndjson.2.gz'), '');
    expect(partsAfterGap(file)).toEqual([join(sub, 't.ndjson.10.gz')]);
    expect(partsAfterGap(join(sub, 'none.ndjson'))).toEqual([]);
    expect(partsAfterGap(join(sub, 'missing', 'x.ndjson'))).toEqual([]);
  });
});
