import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NdjsonWriter, RecordingError } from '../../../../src/links/record/ndjson-writer.js';

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
    const w = new NdjsonWriter(createWriteStream('/dev/full'), { chunkBytes: 10 });
    // The stream takes this chunk into its buffer; the write to the disk fails afterwards.
    await w.write('{"a":1234567890}');
    await new Promise((r) => setTimeout(r, 50));
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
