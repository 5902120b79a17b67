/**
 * The lines of one file of a recording, cut from its text a read at a time, checked
 * (record-line.ts) and settled by the recording's ordering rule (line-order.ts).
 *
 * Lines end at "\n", "\r\n" or a lone "\r", as node's readline splits them. "\n" is one byte
 * that never occurs inside a UTF-8 sequence, so a read is split on bytes and only its lines are
 * decoded; the start of a line cut by a read waits in `carry` for the rest. Blank lines are not
 * data and are passed over silently. A UTF-8 byte order mark at the start of a file (some editors
 * write one) is passed over. A line longer than `maxLine` is rejected unread: no frame is that
 * big, and a file with no line breaks (an image, a database) must not end in V8's string length
 * limit. The cap is measured between "\n" bytes: a file whose lines end in a lone "\r" only is
 * one line to it (our writers, and NDJSON tools, end lines in "\n").
 */
import { isAscii } from 'node:buffer';
import type { SourceBytes } from '../../protocol/json-source.js';
import type { LineOrder } from './line-order.js';
import { parseLine, type ReadItem } from './record-line.js';
import type { SourceChunk } from './recording-source.js';

export interface FileLinesOptions {
  /** Longer lines are rejected without being read. */
  maxLine: number;
  /** Only lines holding this ASCII text are parsed (the bytes of it in `needle`); the others are counted. */
  contains?: string;
  needle?: Buffer;
  /** Whether the text is a gzip file's: a line's size is then its share of the compressed bytes. */
  compressed: boolean;
}

/** Where `value` next occurs in `data` from `from` on; data.length when nowhere. */
function indexFrom(data: Buffer, value: Buffer | number, from: number): number {
  const i = data.indexOf(value, from);
  return i < 0 ? data.length : i;
}

/** How many "\r" bytes are in data[from, end). */
function crs(data: Buffer, from: number, end: number): number {
  let n = 0;
  for (let i = data.indexOf(13, from); i >= 0 && i < end; i = data.indexOf(13, i + 1)) n++;
  return n;
}

/** A file's lines; each method puts the lines it settles at the end of `out`. */
export class FileLines {
  /** The number of the last line counted (1-based). */
  private line = 0;
  /**
   * The start of a line cut by the last read(s): its parts (copied, so the views of their
   * buffers can end), its length and whether it ends in "\r" (half of a "\r\n" that the next
   * read may complete). Past the cap the parts are dropped and only counted; a "\r" at the end
   * does not count against the cap.
   */
  private carry: Buffer[] = [];
  private carried = 0;
  private carryEndsInCr = false;
  private atStart = true;
  /** Bytes of the file and of its text since the last lines were sized. */
  private srcBytes = 0;
  private rawBytes = 0;

  constructor(private readonly file: string, private readonly order: LineOrder, private readonly opts: FileLinesOptions) {}

  /** The lines that end in `chunk` (with the one the last read cut); keeps the start of a line it cuts. */
  read(chunk: SourceChunk): ReadItem[] {
    let data = chunk.data;
    this.srcBytes += chunk.fileBytes;
    this.rawBytes += data.length;
    if (this.atStart) {
      this.atStart = false;
      if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3);
    }
    const out: ReadItem[] = [];
    const keep = this.opts.maxLine + 1;
    if (this.carried > 0) {
      // Only the line cut by the last read needs its parts joined, not the whole read.
      const nl = data.indexOf(10);
      if (nl < 0) {
        if (this.carried <= keep) this.carry.push(Buffer.from(data));
        this.carried += data.length;
        this.carryEndsInCr = data.length > 0 && data[data.length - 1] === 13;
        if (this.carried > keep) this.carry = [];
        return out;
      }
      // The line's length without its break ("\r\n" may straddle the reads).
      const length = this.carried + nl - ((nl > 0 ? data[nl - 1] === 13 : this.carryEndsInCr) ? 1 : 0);
      if (length > this.opts.maxLine) this.tooLong(length, out);
      else this.takeLines(Buffer.concat([...this.carry, data.subarray(0, nl + 1)]), out);
      this.carry = [];
      this.carried = 0;
      data = data.subarray(nl + 1);
    }
    const from = this.takeLines(data, out);
    // The rest has no "\n" yet: kept for the next read.
    if (from < data.length) {
      this.carried = data.length - from;
      this.carryEndsInCr = data[data.length - 1] === 13;
      this.carry = this.carried <= keep ? [Buffer.from(data.subarray(from))] : [];
    }
    return out;
  }

  /** The line the end of the text cut, if any (at the end of the file a last "\r" ends the line: it is no line of its own). */
  end(): ReadItem[] {
    const out: ReadItem[] = [];
    if (this.carried === 0) return out;
    const length = this.carried - (this.carryEndsInCr ? 1 : 0);
    if (length > this.opts.maxLine) this.tooLong(length, out);
    else this.takeText(Buffer.concat(this.carry).toString('utf8'), out, false);
    return out;
  }

  /**
   * The text ended early (`reason`): one rejection after the last line counted, for the line
   * the damage cut (sized by what was carried of it) or for the bytes after the text (size 0).
   */
  endedEarly(reason: string, cut: boolean): ReadItem[] {
    const out: ReadItem[] = [];
    this.order.reject({ ok: false, line: this.line + 1, file: this.file, size: cut ? this.carried : 0, reason }, out);
    return out;
  }

  /** `out` with each line's size as its share of the file's bytes read since the last call. */
  sized(out: ReadItem[]): ReadItem[] {
    const { srcBytes, rawBytes } = this;
    if (this.opts.compressed) for (const item of out) item.size = rawBytes > 0 ? (item.size * srcBytes) / rawBytes : 0;
    this.srcBytes = 0;
    this.rawBytes = 0;
    return out;
  }

  /** Checks one line's text (`bytes`: where an ASCII line's bytes are, so a state is kept as its bytes). */
  private checkLine(text: string, out: ReadItem[], bytes?: SourceBytes): void {
    const line = ++this.line;
    const size = text.length + 1;
    if (text.trim() === '') return;
    const { contains } = this.opts;
    if (contains !== undefined && !text.includes(contains)) return;
    const r = parseLine(text, this.order.lastT, bytes);
    if ('reason' in r) return this.order.reject({ ok: false, line, file: this.file, size, reason: r.reason }, out);
    this.order.accept({ ok: true, line, file: this.file, size, rec: r.rec }, out);
  }

  /** A line of `length` bytes over the cap: counted and rejected, never decoded. */
  private tooLong(length: number, out: ReadItem[]): void {
    const line = ++this.line;
    const reason = `line longer than ${this.opts.maxLine} bytes (${length} bytes), not read`;
    this.order.reject({ ok: false, line, file: this.file, size: length + 1, reason }, out);
  }

  /**
   * `text` ended at "\n" (terminated) or at the end of the file. A "\r" inside it is a line
   * break of its own (JSON text cannot hold a raw CR); at the end of the file an empty last part is no line.
   */
  private takeText(text: string, out: ReadItem[], terminated: boolean, bytes?: SourceBytes): void {
    if (text.indexOf('\r') < 0) return this.checkLine(text, out, bytes);
    const parts = text.split('\r');
    parts.forEach((p, i) => { if (terminated || i < parts.length - 1 || p !== '') this.checkLine(p, out); });
  }

  /** The lines of `data` that end in it, decoded and checked into `out`; returns where the rest starts ("\r\n" is one break). */
  private takeLines(data: Buffer, out: ReadItem[]): number {
    const { maxLine, needle } = this.opts;
    // An ASCII line keeps where its bytes are (ingest stores a state's bytes as they are). One
    // check per read; lines of a read that is not all ASCII are checked one by one. (A line as
    // long in characters as in bytes is not enough: an invalid byte decodes to one U+FFFD.)
    const ascii = isAscii(data);
    let from = 0;
    // With `needle`: where it and a "\r" next occur at or after `from` (data.length: nowhere).
    let hit = -1;
    let cr = -1;
    for (let nl = data.indexOf(10, from); nl >= 0; nl = data.indexOf(10, from)) {
      const end = nl > from && data[nl - 1] === 13 ? nl - 1 : nl;
      if (end - from > maxLine) this.tooLong(end - from, out);
      else if (needle && (hit = hit < from ? indexFrom(data, needle, from) : hit) >= end) {
        // Not in this line's bytes, so in none of its parts: counted, not decoded. (The
        // needle holds no line break, so a match that starts in the line ends in it.) A lone
        // "\r" in it would have made it several lines.
        if (cr < from) cr = indexFrom(data, 13, from);
        this.line += cr < end ? 1 + crs(data, from, end) : 1;
      } else if (ascii || isAscii(data.subarray(from, end))) {
        // ASCII bytes are their characters: latin1 copies them without UTF-8 decoding.
        this.takeText(data.toString('latin1', from, end), out, true, { buf: data, at: from });
      } else this.takeText(data.toString('utf8', from, end), out, true);
      from = nl + 1;
    }
    return from;
  }
}
