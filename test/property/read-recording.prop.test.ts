import { mkdtempSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLine, readRecording, type ReadItem } from '../../src/links/replay/read-recording.js';
import type { JsonObject } from '../../src/protocol/frame.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-read-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The oracle: node's readline splits the file into lines (as the reader did before it read
 * whole chunks), and every non-blank line goes through parseLine in order. Without `contains`,
 * accepted lines are judged again in `out` itself: a line P followed by an earlier one N is
 * settled by the line after N (not earlier than P: N is rejected; earlier: P is).
 */
async function viaReadline(file: string, contains?: string): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  let lastT = -Infinity;
  let line = 0;
  let p: number | undefined; // index in `out` of the accepted line not judged yet
  let sus: number | undefined; // and of an earlier one after it
  type Ok = Extract<ReadItem, { ok: true }>;
  const no = (i: number, reason: string) => { const x = out[i] as Ok; out[i] = { ok: false, line: x.line, file, size: x.size, reason }; };
  const judge = (i: number) => {
    const x = out[i] as Ok;
    if (p === undefined) { p = i; return; }
    const tP = (out[p] as Ok).rec.t;
    if (sus === undefined) {
      if (x.rec.t < tP) sus = i;
      else { lastT = tP; p = i; }
      return;
    }
    const tN = (out[sus] as Ok).rec.t;
    if (x.rec.t >= tP) { no(sus, `t goes backwards (${tN} after ${tP})`); lastT = tP; p = i; sus = undefined; return; }
    no(p, `t jumps ahead of the lines around it (${tP}, the next two have ${tN} and ${x.rec.t}): out of order`);
    p = sus;
    sus = undefined;
    judge(i);
  };
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of rl) {
    line++;
    if (text.trim() === '' || (contains !== undefined && !text.includes(contains))) continue;
    const r = parseLine(text, lastT);
    if ('reason' in r) {
      out.push({ ok: false, line, file, size: text.length + 1, reason: r.reason });
      continue;
    }
    out.push({ ok: true, line, file, size: text.length + 1, rec: r.rec });
    if (contains !== undefined) lastT = r.rec.t;
    else judge(out.length - 1);
  }
  if (sus !== undefined) no(sus, `t goes backwards (${(out[sus] as Ok).rec.t} after ${(out[p!] as Ok).rec.t})`);
  return out;
}

async function collect(file: string, chunkBytes?: number, contains?: string): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for await (const item of readRecording(file, { chunkBytes, contains })) out.push(item);
  return out;
}

/** `items` with each state's source text as a string (the reader gives an ASCII line's as bytes, parseLine alone as text). */
const textOf = (items: ReadItem[]): ReadItem[] => items.map((item) => (item.ok && item.rec.kind === 'up' && item.rec.stateText instanceof Uint8Array
  ? { ...item, rec: { ...item.rec, stateText: Buffer.from(item.rec.stateText).toString('utf8') } } : item));

// Text with multi-byte characters, so reads cut UTF-8 sequences as well as lines.
const unicode = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', 'é', '€', '😀', '"', '\\', '{') , maxLength: 12 });
const recordLine = fc.record({
  t: fc.integer({ min: 0, max: 2_000 }),
  serial: fc.constantFrom('a0b1c2300001', 'A0:B1:C2:30:00:02', 'bad'),
  note: unicode,
  kind: fc.constantFrom('up', 'connect', 'down'),
  // Another tool's annotation after `frame`, ending in `}}` as the frame does.
  meta: fc.option(unicode.map((host) => ({ src: { host } })), { freq: 4 }),
}).map(({ t, serial, note, kind, meta }) => JSON.stringify(kind === 'connect'
  ? { t, serial, event: 'connect' }
  : kind === 'up'
    ? { t, serial, dir: 'up', frame: { jsonrpc: '2.0', method: 'state', params: { serial, uuid: 1, state: { note } } }, ...(meta ? { meta } : {}) }
    : { t, serial, dir: 'down', frame: { jsonrpc: '2.0', method: 'ping', id: 3, params: { note } } }));
const anyLine = fc.oneof(
  { weight: 6, arbitrary: recordLine },
  { weight: 2, arbitrary: fc.constantFrom('', '   ', '\t') },
  { weight: 1, arbitrary: unicode.map((s) => `{not json ${s}`) },
);
const breakOf = fc.constantFrom('\n', '\r\n', '\r');
const file = fc.tuple(fc.array(fc.tuple(anyLine, breakOf), { maxLength: 25 }), fc.boolean()).map(([lines, trailing]) =>
  lines.map(([l, b], i) => l + (i < lines.length - 1 || trailing ? b : '')).join(''));

/** Line `line` (from 1) of `content`, split as the reader splits (\n, \r\n or a lone \r). */
const lineText = (content: string, line: number): string => content.split(/\r\n|\r|\n/)[line - 1]!;

let n = 0;
describe('reading a recording a chunk at a time', () => {
  it('gives the same items, line numbers and sizes as reading it line by line with readline', async () => {
    await fc.assert(fc.asyncProperty(file, fc.integer({ min: 1, max: 64 }), async (content, chunkBytes) => {
      const path = join(dir, `r${n++}.ndjson`);
      writeFileSync(path, content);
      const expected = await viaReadline(path);
      expect(textOf(await collect(path, chunkBytes))).toEqual(expected);
      expect(textOf(await collect(path))).toEqual(expected);
    }), { numRuns: 200 });
  });

  it('rejects one line whose t jumps ahead of an ordered file, or falls behind it, and only that line', async () => {
    const ordered = fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 3, maxLength: 30 }).map((ts) => ts.sort((a, b) => a - b));
    await fc.assert(fc.asyncProperty(ordered, fc.nat(), fc.integer({ min: 1, max: 1e9 }), async (ts, at, ahead) => {
      const i = at % (ts.length - 2 > 0 ? ts.length - 2 : 1); // not one of the last two: they have no two lines after them
      const times = ts.map((t, k) => (k === i ? ts[ts.length - 1]! + ahead : t));
      const path = join(dir, `o${n++}.ndjson`);
      writeFileSync(path, times.map((t) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' })).join('\n') + '\n');
      const items = await collect(path, 16);
      expect(items.filter((x) => !x.ok).map((x) => x.line)).toEqual([i + 1]);
      // A line far behind the lines around it is the one rejected (as going backwards).
      const late = ts.map((t, k) => (k === i + 1 ? ts[0]! - ahead : t));
      writeFileSync(path, late.map((t) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' })).join('\n') + '\n');
      expect((await collect(path, 16)).filter((x) => !x.ok).map((x) => [x.line, (x as { reason: string }).reason.slice(0, 18)])).toEqual([[i + 2, 't goes backwards ('] ]);
      // In order as written, nothing is lost.
      writeFileSync(path, ts.map((t) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' })).join('\n') + '\n');
      expect((await collect(path, 16)).every((x) => x.ok)).toBe(true);
    }), { numRuns: 100 });
  });

  it('with `contains`, gives the items of exactly the lines that hold it, with their line numbers', async () => {
    // Needles that are in some lines and not others: the connect event, a kind of frame, a
    // part of the escaped note, a serial in one spelling.
    const needle = fc.constantFrom('"connect"', '"method":"state"', 'Z0', '\\\\', 'A0:B1', '{not');
    await fc.assert(fc.asyncProperty(file, fc.integer({ min: 1, max: 64 }), needle, async (content, chunkBytes, contains) => {
      const path = join(dir, `c${n++}.ndjson`);
      writeFileSync(path, content);
      const expected = await viaReadline(path, contains);
      expect(textOf(await collect(path, chunkBytes, contains))).toEqual(expected);
      expect(textOf(await collect(path, undefined, contains))).toEqual(expected);
    }), { numRuns: 200 });
  });

  it("keeps each state's own text for ingest, still intact once the whole file has been read", async () => {
    await fc.assert(fc.asyncProperty(file, fc.integer({ min: 1, max: 64 }), async (content, chunkBytes) => {
      const path = join(dir, `s${n++}.ndjson`);
      writeFileSync(path, content);
      // Every read is done before any text is looked at: a view of a reused buffer would show later bytes.
      const items = await collect(path, chunkBytes);
      for (const item of items) {
        if (!item.ok || item.rec.kind !== 'up') continue;
        const state = (item.rec.frame.params as { state: JsonObject }).state;
        const kept = item.rec.stateText;
        const text = typeof kept === 'string' || kept === undefined ? kept : Buffer.from(kept).toString('utf8');
        // A line with a key after `frame` keeps no text (ingest serialises the state); the rest do.
        const annotated = /"meta":\{"src":\{"host":.*\}\}\}$/.test(lineText(content, item.line));
        expect(text).toBe(annotated ? undefined : JSON.stringify(state));
        expect(item.rec.bytes).toBe(annotated ? Buffer.byteLength(JSON.stringify(item.rec.frame)) : item.rec.bytes);
      }
    }), { numRuns: 200 });
  });

  it('hands over bytes only for ASCII lines: an invalid byte or a non-ASCII character keeps the decoded text', async () => {
    const path = join(dir, 'bytes.ndjson');
    const state = (note: string) => ({ t: 1, serial: 'a0b1c2300001', dir: 'up', frame: { jsonrpc: '2.0', method: 'state', params: { serial: 'a0b1c2300001', uuid: 1, state: { note } } } });
    const [ascii, accented, broken] = [JSON.stringify(state('plain')), JSON.stringify(state('café')), JSON.stringify(state('bad-XX-byte'))];
    // 0xFF is no UTF-8: it decodes to one U+FFFD, as many characters as bytes.
    const raw = Buffer.from(`${ascii}\n${accented}\n${broken}\n`);
    const at = raw.indexOf('XX');
    raw[at] = 0xff;
    raw[at + 1] = 0xfe;
    writeFileSync(path, raw);
    const kept = (await collect(path)).map((item) => {
      if (!item.ok || item.rec.kind !== 'up') throw new Error('expected up lines');
      const st = (item.rec.frame.params as { state: JsonObject }).state;
      return { st, source: item.rec.stateText };
    });
    expect(kept.map((k) => k.source instanceof Uint8Array)).toEqual([true, false, false]);
    expect(kept[2]!.st.note).toBe('bad-\ufffd\ufffd-byte');
    for (const { st, source } of kept) {
      expect(typeof source === 'string' ? source : Buffer.from(source as Uint8Array).toString('utf8')).toBe(JSON.stringify(st));
    }
  });

  it('counts the empty line between a lone CR and a CRLF, as readline does', async () => {
    const path = join(dir, 'crcrlf.ndjson');
    const line = (t: number) => JSON.stringify({ t, serial: 'a0b1c2300001', event: 'connect' });
    writeFileSync(path, `${line(1)}\r\r\n${line(2)}\n`);
    expect((await collect(path, 7)).map((i) => i.line)).toEqual([1, 3]);
    expect(textOf(await collect(path, 7))).toEqual(await viaReadline(path));
  });

  it('stops reading when its signal is aborted', async () => {
    const path = join(dir, 'abort.ndjson');
    writeFileSync(path, Array.from({ length: 100 }, (_, i) => JSON.stringify({ t: i, serial: 'a0b1c2300001', event: 'connect' })).join('\n'));
    const signal = { aborted: false };
    const got: ReadItem[] = [];
    for await (const item of readRecording(path, { signal, chunkBytes: 256 })) {
      got.push(item);
      if (got.length === 5) signal.aborted = true;
    }
    expect(got).toHaveLength(5);
  });
});
