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

async function* memberTexts(source: AsyncGenerator<FileChunk>, chunkSize: number): AsyncGenerator<TextChunk> {
  let input: Buffer = EMPTY;
  let eof = false;
  // File bytes used up before `input`, and those already counted in a chunk given out.
  let used = 0;
  let counted = 0;
  const more = async (): Promise<boolean> => {
    if (eof) return false;
    const r = await source.next();
    if (r.done) {
      eof = true;
      return false;
    }
    input = input.length > 0 ? Buffer.concat([input, r.value.data]) : r.value.data;
    return true;
  };
  const consume = (n: number): void => {
    input = input.subarray(n);
    used += n;
  };

  for (let member = 0; ; member++) {
    if (member > 0) {
      // Between members, and after the last: zero bytes are padding (a member after them is read too).
      for (;;) {
        const at = firstNonZero(input);
        if (at >= 0) {
          consume(at);
          break;
        }
        consume(input.length);
        if (!(await more())) return;
      }
      while (input.length < 2 && (await more()));
      if (input.length < 2 || input[0] !== 0x1f || input[1] !== 0x8b) {
        // Not the start of another member: count what is left of the file, without keeping it.
        let rest = input.length;
        input = EMPTY;
        while (rest < MAX_COUNTED && (await more())) {
          rest += input.length;
          input = EMPTY;
        }
        throw new TrailingData(rest, !eof);
      }
    }
    let header: number | undefined;
    while ((header = headerLength(input)) === undefined) {
      if (input.length > MAX_HEADER) throw corrupt('header too long');
      if (!(await more())) throw cutOff();
    }
    consume(header);

    // The deflate data: written a file chunk at a time, each once the one before was inflated.
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
          const fileBytes = used + inflate.bytesWritten - counted;
          counted += fileBytes;
          yield { data, fileBytes };
          continue;
        }
        if (failure !== undefined) throw failure;
        // Raw inflate takes no byte past the end of the deflate data: what it left of the last
        // chunk written is the trailer and what follows it. (While a write is under way its
        // count still grows, unless the data has ended.)
        if (inflate.bytesWritten < fed && (!writing || ended)) {
          input = last.subarray(last.length - (fed - inflate.bytesWritten));
          break;
        }
        if (ended) {
          // Ended by end() at the end of the file: the deflate data ended with it.
          input = EMPTY;
          break;
        }
        if (!writing && !finishing) {
          if (input.length === 0 && !(await more())) {
            // The file ends inside the deflate data (zlib says so), or right after it.
            finishing = true;
            inflate.end();
          } else {
            writing = true;
            last = input;
            fed += input.length;
            input = EMPTY;
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
    used += inflate.bytesWritten;

    while (input.length < 8) if (!(await more())) throw cutOff();
    if (input.readUInt32LE(0) !== crc) throw corrupt('incorrect data check');
    if (input.readUInt32LE(4) !== length) throw corrupt('incorrect length check');
    consume(8);
  }
}
