import { crc32, createInflateRaw } from 'node:zlib';

/**
 * The text of gzip data (RFC 1952), member by member: `cat a.gz b.gz` makes one text of two.
 *
 * Why not node's gunzip: at the end of a member it reads on into the bytes after it in the same
 * step, and when those are not another member (trailing garbage: a transfer that appended junk, a
 * file concatenated with something else) the step fails and takes the end of the member's text
 * with it, up to a whole output chunk of whole lines. Here each member's header and trailer are
 * read in JavaScript and only its deflate data goes through zlib (raw inflate stops exactly at
 * the end of it), so every byte a member holds is given out, its checksum and length are
 * checked, and whatever follows is judged on its own: zero bytes are padding and skipped (gzip
 * and node stop at them and ignore the rest; a member after them is read here too); anything
 * else ends the text with `TrailingData`. Each member costs an inflate stream of its own (~0.2 ms):
 * a file of thousands of one-line members reads far slower than one of a single member.
 */

/** File bytes in, in order (a fresh buffer each: views of them are kept). */
export interface FileChunk {
  data: Buffer;
}

/** Text out, and how many bytes of the file were used up since the last one (for progress). */
export interface TextChunk {
  data: Buffer;
  fileBytes: number;
}

/** Bytes after the last whole member that are not gzip data (`atLeast`: counted up to MAX_COUNTED only). */
export class TrailingData extends Error {
  override name = 'TrailingData';
  constructor(readonly bytes: number, readonly atLeast = false) {
    super(`${atLeast ? 'at least ' : ''}${bytes} byte${bytes === 1 ? '' : 's'} after the end of the compressed data ${bytes === 1 ? 'is' : 'are'} not gzip data`);
  }
}

/** Trailing bytes are counted up to this many, not read to the end (a large file appended by mistake). */
const MAX_COUNTED = 64 * 1024 * 1024;

/** zlib's codes, so a caller tells a cut from damage the same way for either source of the error. */
const cutOff = () => Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
const corrupt = (what: string) => Object.assign(new Error(what), { code: 'Z_DATA_ERROR' });

/** A header longer than this (a file name or comment without its end) is damage, not something to buffer. */
const MAX_HEADER = 1 << 20;

/** Length of the member header at the start of `b`, or undefined when more bytes are needed to tell. */
function headerLength(b: Buffer): number | undefined {
  if (b.length < 10) return undefined;
  if (b[0] !== 0x1f || b[1] !== 0x8b) throw corrupt('incorrect header check');
  if (b[2] !== 8) throw corrupt('unknown compression method');
  const flags = b[3]!;
  if ((flags & 0xe0) !== 0) throw corrupt('unknown header flags set');
  let at = 10;
  if (flags & 4) {
    // FEXTRA: two bytes of length, then that many.
    if (b.length < at + 2) return undefined;
    at += 2 + b.readUInt16LE(at);
    if (b.length < at) return undefined;
  }
  for (const flag of [8, 16]) {
    // FNAME, FCOMMENT: zero-terminated.
    if ((flags & flag) === 0) continue;
    const end = b.indexOf(0, at);
    if (end < 0) return undefined;
    at = end + 1;
  }
  if (flags & 2) {
    // FHCRC: the low half of the CRC-32 of the header before it.
    if (b.length < at + 2) return undefined;
    if ((crc32(b.subarray(0, at)) & 0xffff) !== b.readUInt16LE(at)) throw corrupt('header crc mismatch');
    at += 2;
  }
  return at;
}

/** Index of the first non-zero byte of `b`, -1 when all are zero. */
function firstNonZero(b: Buffer): number {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return i;
  return -1;
}

const EMPTY = Buffer.alloc(0);

/**
 * The text of the gzip data in `source`, `chunkSize` bytes of it at most per chunk. Throws an
 * error with zlib's code when the data is cut off (`Z_BUF_ERROR`) or damaged (`Z_DATA_ERROR`),
 * after the text before that point, and `TrailingData` after every member's text.
 */
export async function* gzipText(source: AsyncGenerator<FileChunk>, chunkSize: number): AsyncGenerator<TextChunk> {
  try {
    yield* memberTexts(source, chunkSize);
  } finally {
    // Ends the file's read in flight, if any (stopped early, or at an error).
    await source.return(undefined);
  }
}

/** The file's bytes that are not used up yet, read from the source as they are needed. */
class Input {
  bytes: Buffer = EMPTY;
  eof = false;
  /** File bytes used up before `bytes`, and those already counted in a chunk given out. */
  used = 0;
  counted = 0;

  constructor(private readonly source: AsyncGenerator<FileChunk>) {}

  /** Appends the next file chunk to `bytes`; false at the end of the file. */
  async more(): Promise<boolean> {
    if (this.eof) return false;
    const r = await this.source.next();
    if (r.done) {
      this.eof = true;
      return false;
    }
    this.bytes = this.bytes.length > 0 ? Buffer.concat([this.bytes, r.value.data]) : r.value.data;
    return true;
  }

  consume(n: number): void {
    this.bytes = this.bytes.subarray(n);
    this.used += n;
  }
}

async function* memberTexts(source: AsyncGenerator<FileChunk>, chunkSize: number): AsyncGenerator<TextChunk> {
  const input = new Input(source);
  for (let member = 0; ; member++) {
    if (member > 0 && !(await nextMember(input))) return;
    let header: number | undefined;
    while ((header = headerLength(input.bytes)) === undefined) {
      if (input.bytes.length > MAX_HEADER) throw corrupt('header too long');
      if (!(await input.more())) throw cutOff();
    }
    input.consume(header);
    const { crc, length } = yield* inflateMember(input, chunkSize);
    while (input.bytes.length < 8) if (!(await input.more())) throw cutOff();
    if (input.bytes.readUInt32LE(0) !== crc) throw corrupt('incorrect data check');
    if (input.bytes.readUInt32LE(4) !== length) throw corrupt('incorrect length check');
    input.consume(8);
  }
}

/**
 * Between members, and after the last: zero bytes are padding (a member after them is read too).
 * True when another member starts; false at the end of the file; `TrailingData` for anything else.
 */
async function nextMember(input: Input): Promise<boolean> {
  for (;;) {
    const at = firstNonZero(input.bytes);
    if (at >= 0) {
      input.consume(at);
      break;
    }
    input.consume(input.bytes.length);
    if (!(await input.more())) return false;
  }
  while (input.bytes.length < 2 && (await input.more()));
  if (input.bytes.length >= 2 && input.bytes[0] === 0x1f && input.bytes[1] === 0x8b) return true;
  // Not the start of another member: count what is left of the file, without keeping it.
  let rest = input.bytes.length;
  input.bytes = EMPTY;
  while (rest < MAX_COUNTED && (await input.more())) {
    rest += input.bytes.length;
    input.bytes = EMPTY;
  }
  throw new TrailingData(rest, !input.eof);
}

/**
 * The text of one member's deflate data, written to inflate a file chunk at a time (each once
 * the one before was inflated); returns its CRC-32 and length mod 2^32, for the trailer. Leaves
 * in `input` what follows the deflate data.
 */
async function* inflateMember(input: Input, chunkSize: number): AsyncGenerator<TextChunk, { crc: number; length: number }> {
  const inflate = createInflateRaw({ chunkSize });
  let failure: unknown;
  let ended = false;
  let writing = false;
  let finishing = false;
  let fed = 0;
  let last: Buffer = EMPTY;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    wake?.();
    wake = undefined;
  };
  inflate.on('readable', poke);
  inflate.on('end', () => {
    ended = true;
    poke();
  });
  inflate.on('error', (e) => {
    failure = e;
    poke();
  });
  let crc = 0;
  let length = 0;
  try {
    for (;;) {
      const data = inflate.read() as Buffer | null;
      if (data) {
        crc = crc32(data, crc);
        length = (length + data.length) % 2 ** 32;
        const fileBytes = input.used + inflate.bytesWritten - input.counted;
        input.counted += fileBytes;
        yield { data, fileBytes };
        continue;
      }
      if (failure !== undefined) throw failure;
      // Raw inflate takes no byte past the end of the deflate data: what it left of the last
      // chunk written is the trailer and what follows it. (While a write is under way its
      // count still grows, unless the data has ended.)
      if (inflate.bytesWritten < fed && (!writing || ended)) {
        input.bytes = last.subarray(last.length - (fed - inflate.bytesWritten));
        break;
      }
      if (ended) {
        // Ended by end() at the end of the file: the deflate data ended with it.
        input.bytes = EMPTY;
        break;
      }
      if (!writing && !finishing) {
        if (input.bytes.length === 0 && !(await input.more())) {
          // The file ends inside the deflate data (zlib says so), or right after it.
          finishing = true;
          inflate.end();
        } else {
          writing = true;
          last = input.bytes;
          fed += last.length;
          input.bytes = EMPTY;
          inflate.write(last, () => {
            writing = false;
            poke();
          });
        }
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    inflate.destroy();
  }
  input.used += inflate.bytesWritten;
  return { crc, length };
}
