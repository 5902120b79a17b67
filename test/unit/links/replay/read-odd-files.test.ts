import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { constants, crc32, gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstTime, HEAD_LINES, lastKeptTime, lastTime, MAX_LINE_BYTES, NotARecordingError, printable, readRecording, readRecordingChunks, type ReadItem, type ReadOptions } from '../../../../src/links/replay/read-recording.js';

/** Files that are not quite recordings: very long lines, a byte order mark, binary bytes. */

const dir = mkdtempSync(join(tmpdir(), 'airtwin-read-odd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function read(content: string | Buffer, opts: ReadOptions = {}): Promise<ReadItem[]> {
  const file = join(dir, `f${n++}.ndjson`);
  writeFileSync(file, content);
  return readAll(file, opts);
}

/** Every item of the recording at `files`. */
async function readAll(files: string | string[], opts: ReadOptions = {}): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for await (const item of readRecording(files, opts)) out.push(item);
  return out;
}

const connect = (t: number) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' });
const brief = (items: ReadItem[]) => items.map((i) => (i.ok ? { line: i.line, ok: true } : { line: i.line, reason: i.reason, size: i.size }));

describe('reading a recording: lines over the length cap', () => {
  // Cut across reads in every way: the long line inside one read, across several, ending in "\r\n" across two.
  for (const chunkBytes of [7, 64, 1000, 1 << 20]) {
    it(`rejects a line longer than maxLineBytes and reads on (reads of ${chunkBytes} bytes)`, async () => {
      const long = `{"t":2,"pad":"${'x'.repeat(600)}"}`;
      const items = await read(`${connect(1)}\n${long}\r\n${connect(3)}\n`, { maxLineBytes: 500, chunkBytes });
      expect(brief(items)).toEqual([
        { line: 1, ok: true },
        { line: 2, reason: `line longer than 500 bytes (${long.length} bytes), not read`, size: long.length + 1 },
        { line: 3, ok: true },
      ]);
    });

    it(`with \`contains\`, still reports an over-long line that does not hold it (reads of ${chunkBytes} bytes)`, async () => {
      const long = `{"t":2,"pad":"${'x'.repeat(600)}"}`;
      const state = JSON.stringify({ t: 4, serial: 'a0b1c2300001', dir: 'up', frame: { jsonrpc: '2.0', method: 'state', params: {} } });
      const items = await read(`${state}\n${long}\r\n${state}\n${connect(3)}\n`, { maxLineBytes: 500, chunkBytes, contains: '"connect"' });
      expect(brief(items)).toEqual([
        { line: 2, reason: `line longer than 500 bytes (${long.length} bytes), not read`, size: long.length + 1 },
        { line: 4, ok: true },
      ]);
    });

    it(`keeps a line of exactly maxLineBytes (reads of ${chunkBytes} bytes)`, async () => {
      const line = connect(1);
      const items = await read(`${line}\r\n${line}`, { maxLineBytes: line.length, chunkBytes });
      expect(brief(items)).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }]);
    });
  }

  it('does not count a "\r\n" cut between two reads against the cap, nor a last "\r"', async () => {
    const line = connect(1);
    // The first read ends right after the "\r": the "\n" starts the next one.
    for (const chunkBytes of [line.length + 1, line.length, 3]) {
      const items = await read(`${line}\r\n${line}\r`, { maxLineBytes: line.length, chunkBytes });
      expect(brief(items), `reads of ${chunkBytes}`).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }]);
    }
    const over = await read(`${line} \r\n${line} \r`, { maxLineBytes: line.length, chunkBytes: line.length + 2 });
    expect(brief(over)).toEqual([
      { line: 1, reason: `line longer than ${line.length} bytes (${line.length + 1} bytes), not read`, size: line.length + 2 },
      { line: 2, reason: `line longer than ${line.length} bytes (${line.length + 1} bytes), not read`, size: line.length + 2 },
    ]);
  });

  it('takes only ASCII text without line breaks for `contains`', async () => {
    for (const contains of ['', 'café', 'a\nb', '\r']) {
      await expect(read(`${connect(1)}\n`, { contains }), JSON.stringify(contains)).rejects.toThrow(/contains must be ASCII text without line breaks/);
    }
  });

  it('rejects an over-long last line with no line break, with its number', async () => {
    const items = await read(`${connect(1)}\n\n${'y'.repeat(300)}`, { maxLineBytes: 100, chunkBytes: 16 });
    expect(brief(items)).toEqual([{ line: 1, ok: true }, { line: 3, reason: 'line longer than 100 bytes (300 bytes), not read', size: 301 }]);
  });

  it('rejects a file of one line bigger than the default cap without building it as a string', async () => {
    const size = MAX_LINE_BYTES + 1024;
    const items = await read(Buffer.alloc(size, 0x41));
    expect(brief(items)).toEqual([{ line: 1, reason: `line longer than ${MAX_LINE_BYTES} bytes (${size} bytes), not read`, size: size + 1 }]);
  });
});

describe('reading a recording: many rejected lines behind a line still held', () => {
  it('reads a line, 200,000 bad lines and a line without overflowing the stack, releasing the bad lines as it reads them', async () => {
    // `cat new.ndjson old.ndjson` or appended junk: every bad line waited, held behind the first
    // line until the next accepted one, and their spread into the output overflowed the stack.
    const bad = 200_000;
    const file = join(dir, `f${n++}.ndjson`);
    writeFileSync(file, `${connect(1)}\n${'x\n'.repeat(bad)}${connect(2)}\n`);
    const sizes: number[] = [];
    let rejected = 0;
    const accepted: number[] = [];
    for await (const chunk of readRecordingChunks(file, { chunkBytes: 64 * 1024 })) {
      sizes.push(chunk.length);
      for (const item of chunk) if (item.ok) accepted.push(item.line); else rejected++;
    }
    expect(accepted).toEqual([1, bad + 2]);
    expect(rejected).toBe(bad);
    // Bounded: no read's worth of items holds more than a read's lines and the bounded hold.
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024 / 2 + 2_000);
  });
});

describe('reading a recording: a byte order mark and binary bytes', () => {
  it('passes over a UTF-8 byte order mark at the start of the file', async () => {
    const items = await read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${connect(1)}\n${connect(2)}\n`)]));
    expect(brief(items)).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }]);
  });

  it('rejects a byte order mark anywhere else', async () => {
    const items = await read(`${connect(1)}\n\ufeff${connect(2)}\n`);
    expect(items.map((i) => i.ok)).toEqual([true, false]);
  });

  it('quotes binary bytes in a reason as escapes, on one short line', async () => {
    const junk = Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x00, 0x07, 0xff, 0x9b, 0x0d, 0x41, ...Buffer.alloc(400, 0x42)]);
    const items = await read(Buffer.concat([junk, Buffer.from('\n')]));
    expect(items).toHaveLength(2); // the "\r" (0x0d) splits the junk in two lines
    for (const item of items) {
      if (item.ok) throw new Error('junk accepted');
      expect(item.reason).toMatch(/^not JSON/);
      // eslint-disable-next-line no-control-regex
      expect(item.reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\ufffd]/);
      expect(item.reason.length).toBeLessThanOrEqual(200);
    }
    expect((items[0] as { reason: string }).reason).toContain('\\u001b');
  });

  it('printable escapes control characters and cuts long reasons', () => {
    expect(printable('a\u001b[2Jb\u0085c\u2028')).toBe('a\\u001b[2Jb\\u0085c\\u2028');
    expect(printable('z'.repeat(500))).toHaveLength(200);
    expect(printable('z'.repeat(500)).endsWith('…')).toBe(true);
  });
});

describe('reading a gzip-compressed recording', () => {
  const text = `${connect(1)}\n{"t":2,"oops"\n\n${connect(3)}\r\n${connect(4)}`;
  // What a plain read gives, without the sizes (a compressed file's lines take less of it).
  const lineAndVerdict = (items: ReadItem[]) => items.map((i) => (i.ok ? { line: i.line, ok: true } : { line: i.line, reason: i.reason }));

  for (const chunkBytes of [7, 1000, 1 << 20]) {
    it(`gives the lines of the plain file, with the same numbers and verdicts (reads of ${chunkBytes} bytes)`, async () => {
      const plain = await read(text, { chunkBytes });
      const zipped = await read(gzipSync(text), { chunkBytes });
      expect(lineAndVerdict(zipped)).toEqual(lineAndVerdict(plain));
      expect(plain.filter((i) => i.ok)).toHaveLength(3);
    });
  }

  it('is recognised by its first bytes, not its name, and reads several members as one text', async () => {
    const items = await read(Buffer.concat([gzipSync(`${connect(1)}\n${connect(2)}\n`), gzipSync(`${connect(3)}\n`)]));
    expect(brief(items)).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }, { line: 3, ok: true }]);
  });

  it('sizes lines by their share of the compressed file, so progress ends at the file size', async () => {
    const many = Array.from({ length: 3000 }, (_, t) => connect(t)).join('\n');
    const zipped = gzipSync(many);
    const items = await read(zipped, { chunkBytes: 4096 });
    expect(items).toHaveLength(3000);
    const total = items.reduce((n, i) => n + i.size, 0);
    expect(total).toBeGreaterThan(zipped.length * 0.95);
    expect(total).toBeLessThan(zipped.length * 1.05);
  });

  it('reads a file cut off mid-stream up to the cut, then reports the cut line and stops that file', async () => {
    const many = `${Array.from({ length: 2000 }, (_, t) => connect(t)).join('\n')}\n`;
    const zipped = gzipSync(many);
    const items = await read(zipped.subarray(0, Math.floor(zipped.length / 2)), { chunkBytes: 1024 });
    const last = items.at(-1)!;
    if (last.ok) throw new Error('the cut was not reported');
    expect(last.reason).toMatch(/^compressed data cut off \(unexpected end of file\): the rest of this file is not read$/);
    const good = items.slice(0, -1);
    expect(good.length).toBeGreaterThan(100);
    expect(good.every((i, k) => i.ok && i.line === k + 1)).toBe(true);
    expect(last.line).toBe(good.length + 1);
  });

  it('keeps every line decoded before the cut when the lines are taken slowly (a paced replay)', async () => {
    // Text that compresses as a recording does (~4x, not 50x), taken at ~16 MB/s: gunzip holds
    // decoded text the reader has not taken yet when it reaches the cut.
    let x = 1;
    const noise = () => (x = (x * 48271) % 2147483647).toString(36);
    const many = `${Array.from({ length: 200_000 }, (_, t) => `{"t":${t},"serial":"a0b1c2300001","event":"connect","x":"${noise()}.${noise()}"}`).join('\n')}\n`;
    const zipped = gzipSync(many);
    const cut = zipped.subarray(0, Math.floor(zipped.length / 2));
    // What can be decoded from the cut file at all: its whole lines are the replay's to play.
    const decodable = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    const whole = decodable.split('\n').length - 1;
    const file = join(dir, `f${n++}.ndjson.gz`);
    writeFileSync(file, cut);
    const items: ReadItem[] = [];
    for await (const chunk of readRecordingChunks(file)) {
      items.push(...chunk);
      const bytes = chunk.reduce((b, i) => b + i.size, 0);
      await new Promise((r) => setTimeout(r, bytes / 4096));
    }
    expect(whole).toBeGreaterThan(5_000);
    expect(items.filter((i) => i.ok)).toHaveLength(whole);
    expect(items.at(-1)).toMatchObject({ ok: false, line: whole + 1, reason: expect.stringMatching(/^compressed data cut off/) });
  });

  it('reads every line before bytes that are not gzip data, then reports them once', async () => {
    // gunzip read on into such bytes in the step that ended the member and lost that step's text.
    for (const chunkBytes of [7, 1000, 1 << 20]) {
      for (const last of [`${connect(9)}\n`, connect(9)]) {
        const zipped = Buffer.concat([gzipSync(`${connect(1)}\n${connect(2)}\n`), gzipSync(last), Buffer.alloc(3), Buffer.from('not gzip')]);
        expect(brief(await read(zipped, { chunkBytes }))).toEqual([
          { line: 1, ok: true },
          { line: 2, ok: true },
          { line: 3, ok: true },
          { line: 4, reason: '8 bytes after the end of the compressed data are not gzip data: ignored', size: 0 },
        ]);
      }
    }
    // Zero bytes after the data are padding, as gzip has it.
    expect(brief(await read(Buffer.concat([gzipSync(`${connect(1)}\n`), Buffer.alloc(1000)])))).toEqual([{ line: 1, ok: true }]);
    expect(brief(await read(Buffer.concat([gzipSync(`${connect(1)}\n`), Buffer.from([0x1f])])))).toEqual([
      { line: 1, ok: true },
      { line: 2, reason: '1 byte after the end of the compressed data is not gzip data: ignored', size: 0 },
    ]);
  });

  it('reads a header with a name, a comment, extra data and its own checksum', async () => {
    const body = gzipSync(`${connect(1)}\n${connect(2)}\n`).subarray(10);
    const head = (hcrc?: number) => {
      const fixed = Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16 | (hcrc === undefined ? 0 : 2), 0, 0, 0, 0, 0, 3]);
      const h = Buffer.concat([fixed, Buffer.from([3, 0, 1, 2, 3]), Buffer.from('traffic.ndjson\0'), Buffer.from('recorded at the edge\0')]);
      return hcrc === undefined ? h : Buffer.concat([h, Buffer.from([hcrc & 0xff, hcrc >> 8])]);
    };
    expect(brief(await read(Buffer.concat([head(), body]), { chunkBytes: 7 }))).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }]);
    // The checksum covers the header up to it, its flag included.
    const sum = crc32(head(0).subarray(0, -2)) & 0xffff;
    // zlib agrees the file is good.
    expect(gunzipSync(Buffer.concat([head(sum), body])).toString()).toBe(`${connect(1)}\n${connect(2)}\n`);
    expect(brief(await read(Buffer.concat([head(sum), body]), { chunkBytes: 7 }))).toEqual([{ line: 1, ok: true }, { line: 2, ok: true }]);
    expect(brief(await read(Buffer.concat([head(sum ^ 1), body])))).toEqual([
      { line: 1, reason: 'compressed data corrupt (header crc mismatch): the rest of this file is not read', size: 0 },
    ]);
  });

  it('checks each member\'s checksum and length, and reports a member cut in its trailer', async () => {
    const good = gzipSync(`${connect(1)}\n`);
    const member = (edit: (b: Buffer) => void) => {
      const b = Buffer.from(gzipSync(`${connect(2)}\n${connect(3)}\n`));
      edit(b);
      return b;
    };
    const verdicts = async (file: Buffer) => brief(await read(file)).map((i) => ('reason' in i ? i.reason : i.line));
    // The text of a member is given as it is inflated; a bad checksum at its end is reported after it.
    expect(await verdicts(Buffer.concat([good, member((b) => { b[b.length - 8]! ^= 1; })]))).toEqual([1, 2, 3, 'compressed data corrupt (incorrect data check): the rest of this file is not read']);
    expect(await verdicts(Buffer.concat([good, member((b) => { b[b.length - 1]! ^= 1; })]))).toEqual([1, 2, 3, 'compressed data corrupt (incorrect length check): the rest of this file is not read']);
    const whole = member(() => undefined);
    // Cut in the trailer, or right before it.
    for (const cut of [3, 8]) expect(await verdicts(Buffer.concat([good, whole.subarray(0, whole.length - cut)]))).toEqual([1, 2, 3, 'compressed data cut off (unexpected end of file): the rest of this file is not read']);
    expect(await verdicts(Buffer.concat([good, whole.subarray(0, 6)]))).toEqual([1, 'compressed data cut off (unexpected end of file): the rest of this file is not read']);
  });

  it('finds the last recorded time at the end of a gzip part as at the end of the plain one', async () => {
    const file = (content: string | Buffer) => {
      const f = join(dir, `f${n++}.ndjson`);
      writeFileSync(f, content);
      return f;
    };
    // More than the MiB of text lastTime looks through, and a last line that is not a recording line.
    const many = `${Array.from({ length: 30_000 }, (_, t) => connect(t * 1000)).join('\n')}\n{"t":"oops"}\n`;
    expect(await lastTime(file(many))).toBe(29_999_000);
    expect(await lastTime(file(gzipSync(many)))).toBe(29_999_000);
    expect(await lastTime([file(`${connect(5)}\n`), file(Buffer.concat([gzipSync(many), Buffer.from('junk')]))])).toBe(29_999_000);
    // Cut off: the last whole line before the cut.
    const zipped = gzipSync(many);
    const cut = gunzipSync(zipped.subarray(0, zipped.length >> 1), { finishFlush: constants.Z_SYNC_FLUSH }).toString().split('\n');
    const before = (JSON.parse(cut.at(-2)!) as { t: number }).t;
    expect(await lastTime(file(zipped.subarray(0, zipped.length >> 1)))).toBe(before);
    // A rotation that had just begun: the last part is empty, the end is in the one before.
    expect(await lastTime([file(many), file('')])).toBe(29_999_000);
    expect(await lastTime([file(''), file('\n\n')])).toBeUndefined();
    // A last line that goes backwards is one the replay rejects: it does not end the recording.
    expect(await lastTime(file(`${connect(100)}\n${connect(200)}\n${connect(150)}\n`))).toBe(200);
  });

  it('ends a recording at the last time the reader would keep', () => {
    expect(lastKeptTime([])).toBeUndefined();
    expect(lastKeptTime([100, 200, 150])).toBe(200);
    // A time that jumps ahead with earlier ones after it is dropped, as the reader drops it...
    expect(lastKeptTime([100, 110, 9999, 120, 130])).toBe(130);
    // ...a late one between two in order is rejected...
    expect(lastKeptTime([100, 200, 150, 210])).toBe(210);
    // ...and a last one has nothing after it to judge it.
    expect(lastKeptTime([100, 110, 9999])).toBe(9999);
  });

  it('ends a recording where the reader ends it, whatever the order of its last times', async () => {
    // Times before the last kept one are rejections: they settle nothing, so 200 is played.
    for (const times of [[100, 200, 50, 60], [100, 200, 150, 120], [100, 300, 200, 250, 100], [5, 1, 2, 3]]) {
      const items = await read(times.map((t) => `${connect(t)}\n`).join(''));
      const played = items.filter((i) => i.ok).map((i) => (i.ok ? i.rec.t : 0));
      expect(lastKeptTime(times), `times ${times.join(',')}`).toBe(played.at(-1));
    }
  });

  it('closes the file when its first read fails (a part that is a folder)', async () => {
    const folder = mkdtempSync(join(dir, 'part-'));
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    for (let i = 0; i < 5; i++) await expect(readAll(folder)).rejects.toMatchObject({ code: 'EISDIR' });
    expect(fds()).toBe(before);
  });

  it('reports a corrupt stream once, on the line it reaches, and reads the next file on', async () => {
    const broken = Buffer.from(gzipSync(`${connect(1)}\n${connect(2)}\n`));
    broken[3] = 0xe0; // reserved header flags: gunzip refuses the stream
    const file = join(dir, `f${n++}.ndjson`);
    const next = join(dir, `f${n++}.ndjson`);
    writeFileSync(file, broken);
    writeFileSync(next, `${connect(5)}\n`);
    const out = await readAll([file, next]);
    expect(out.map((i) => ({ file: i.file, line: i.line, ok: i.ok, reason: i.ok ? undefined : i.reason.split(' (')[0] }))).toEqual([
      { file, line: 1, ok: false, reason: 'compressed data corrupt' },
      { file: next, line: 1, ok: true, reason: undefined },
    ]);
  });
});

/** Bytes this process has read from files so far (Linux: rchar of /proc/self/io). */
const readBytes = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

describe('the head of a file that is not a recording', () => {
  const junk = (k: number) => `junk ${k} \u0000\u00ff`;
  const lines = (count: number) => Array.from({ length: count }, (_, k) => junk(k));

  it('finds the first recorded time past a damaged head shorter than HEAD_LINES', async () => {
    const file = join(dir, `head-${n++}.ndjson`);
    writeFileSync(file, `${lines(HEAD_LINES - 1).join('\n')}\n${connect(42)}\n`);
    expect(await firstTime(file)).toBe(42);
  });

  it('gives up after HEAD_LINES lines with no recording line, naming the first and why', async () => {
    const file = join(dir, `head-${n++}.ndjson`);
    // A recording line right after the give-up point is not looked for.
    writeFileSync(file, `${lines(HEAD_LINES).join('\n')}\n${connect(42)}\n`);
    const err = await firstTime(file).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(NotARecordingError);
    expect((err as NotARecordingError).message).toBe(`${file} does not look like a recording: none of its first ${HEAD_LINES} lines is a recording line (line 1: not JSON (Unexpected token 'j', "junk 0 \\u0000ÿ" is not valid JSON))`);
  });

  it('counts the lines across parts; a shorter file with no recording line is not one either, a file of blank lines is empty', async () => {
    const base = join(dir, `head-${n++}.ndjson`);
    writeFileSync(base, `${lines(HEAD_LINES / 2).join('\n')}\n`);
    writeFileSync(`${base}.1`, `${lines(HEAD_LINES / 2).join('\n')}\n${connect(42)}\n`);
    await expect(firstTime([base, `${base}.1`])).rejects.toThrow(`none of its first ${HEAD_LINES} lines is a recording line`);
    // Said here, not left to the replay: 0 frames into a data dir that serve would keep serving.
    await expect(firstTime(base)).rejects.toThrow(`${base} does not look like a recording: none of its ${HEAD_LINES / 2} lines is a recording line (line 1: not JSON`);
    const blank = join(dir, `head-${n++}.ndjson`);
    writeFileSync(blank, '\n\n\n');
    expect(await firstTime(blank)).toBeUndefined();
  });

  it('reads a few MB of a 64 MB binary file, not all of it', async () => {
    const file = join(dir, `head-${n++}.bin`);
    // Random-looking bytes with a line break every ~256: 64 MB of them is ~250,000 lines.
    const block = Buffer.alloc(1 << 20);
    for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
    const fd = openSync(file, 'w');
    for (let i = 0; i < 64; i++) writeSync(fd, block);
    closeSync(fd);
    const before = readBytes();
    await expect(firstTime(file)).rejects.toThrow(NotARecordingError);
    expect(readBytes() - before).toBeLessThan(8 << 20);
  });
});
