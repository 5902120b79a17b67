/**
 * The bytes of a recording's text, a read at a time: a plain file's as they are, a gzip file's
 * (first bytes 1f 8b, whatever its name) through gzip-text.ts. Compressed data that is cut off
 * or corrupt, or followed by bytes that are not gzip data, ends the text early with a reason
 * rather than an error, so the lines before it are read.
 */
import type { FileHandle } from 'node:fs/promises';
import { constants } from 'node:zlib';
import { gzipText, TrailingData } from './gzip-text.js';

/** Bytes read from the file at a time; each read's lines are checked in one synchronous pass. */
export const CHUNK_BYTES = 1 << 20;

/** The next bytes of a recording's text (a fresh buffer: ingest keeps views of it) and how many bytes of the file they took. */
export interface SourceChunk {
  data: Buffer;
  fileBytes: number;
}

/** Why a file's text ends before the file: damage (the rest is unreadable) or bytes after the compressed data. */
export type SourceEnd = { broken: string } | { trailing: string };

/** A gzip member starts with 1f 8b: such a file is read through gunzip, whatever its name. */
export async function isGzip(fh: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await fh.read(head, 0, 2, 0);
  return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** The zlib code of an error of the gunzip stream (data cut off or corrupt), undefined for any other error (reading the file). */
export function zlibCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_') ? code : undefined;
}

/**
 * A plain file's bytes, `size` at a time. The next read runs while this one's lines are checked
 * and played (a read waits a few ms for the thread pool; an hour of a 200-AP venue is ~100 reads).
 */
export async function* plainChunks(fh: FileHandle, size: number): AsyncGenerator<SourceChunk> {
  // A failed read settles as a value: it waits unawaited while lines are played (a paced replay
  // may wait minutes), and a rejection nobody handles yet would end the process.
  type Read = { bytesRead: number } | { error: unknown };
  const read = (buf: Buffer): Promise<Read> => fh.read(buf, 0, size, null).then((r) => r, (error: unknown) => ({ error }));
  let buf = Buffer.allocUnsafeSlow(size);
  let next: Promise<Read> | undefined = read(buf);
  try {
    while (next) {
      const done: Read = await next;
      next = undefined;
      if ('error' in done) throw done.error;
      if (done.bytesRead === 0) return;
      const filled = buf;
      // Reads are sequential (position null): the next starts only once this one is done.
      buf = Buffer.allocUnsafeSlow(size);
      next = read(buf);
      yield { data: filled.subarray(0, done.bytesRead), fileBytes: done.bytesRead };
    }
  } finally {
    // A read still in flight (stopped early) must end before the file closes.
    await next;
  }
}

/** Text out of inflate per chunk: what inflate produced in the step that hits damaged data is lost with it, so this bounds the loss. */
const GUNZIP_CHUNK = 64 * 1024;

/**
 * A gzip file's text, read `size` bytes of the file at a time (gzip-text.ts). Each output chunk
 * of inflate is its own region of memory, never written again, so views of it stay valid.
 */
export function gzipChunks(fh: FileHandle, size: number): AsyncGenerator<SourceChunk> {
  return gzipText(plainChunks(fh, size), Math.max(constants.Z_MIN_CHUNK, Math.min(size, GUNZIP_CHUNK)));
}

/**
 * The next chunk of `source`, undefined at the end of its text, or why the text ends early. An
 * error that is not about the compressed data (a failed read) is thrown.
 */
export async function nextChunk(source: AsyncGenerator<SourceChunk>): Promise<SourceChunk | SourceEnd | undefined> {
  let next: IteratorResult<SourceChunk>;
  try {
    next = await source.next();
  } catch (e) {
    if (e instanceof TrailingData) return { trailing: `${e.message}: ignored` };
    const code = zlibCode(e);
    if (!code) throw e;
    const what = code === 'Z_BUF_ERROR' ? 'compressed data cut off' : 'compressed data corrupt';
    return { broken: `${what} (${(e as Error).message}): the rest of this file is not read` };
  }
  return next.done ? undefined : next.value;
}
