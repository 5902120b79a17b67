/**
 * What a replay reads (`airtwin replay FILE`, `serve --replay FILE`): a recording file and its
 * rotated parts, or a stream. A replay reads its file three times (its first time, its connects,
 * then its lines), which a stream cannot give, so `-` (standard input) and a pipe given by name
 * (a FIFO, `/dev/stdin`, `<(ssh host cat traffic.ndjson)`) are first copied
 * whole into a temporary file under TMPDIR, which `dispose()` removes. That makes
 * `zstd -dc traffic.ndjson.zst | airtwin replay -` work; the copy is as big as the stream.
 * Standard input redirected from a regular file (`airtwin replay - < traffic.ndjson`) is read in
 * place, through /proc/self/fd/0, when nothing of it has been read yet.
 */
import { closeSync, constants, createReadStream, createWriteStream, existsSync, fstatSync, lstatSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ConfigError } from '../config/flags.js';
import { laterParts, partsAfterGap } from '../links/record/ndjson-writer.js';

/** A stream could not be copied to a temporary file (a full disk, an unwritable TMPDIR). */
export class ReplayInputError extends Error {
  override name = 'ReplayInputError';
}

export interface ReplayInput {
  /** The files to read, in order: FILE, FILE.1, ... (each plain or .gz), or the stream's copy. */
  readonly files: readonly string[];
  /** What messages call it: the path given, or "standard input". */
  readonly name: string;
  /** Whether `files` is a temporary copy of a stream. */
  readonly copied: boolean;
  /** Whether `files` stands for standard input or a pipe (a copy, or /proc/self/fd/0): messages use `name`. */
  readonly stream: boolean;
  /** Parts of FILE after a missing one (FILE.1, FILE.3: FILE.3), which are not read. */
  readonly partsAfterGap: readonly string[];
  /** Removes the temporary copy, if any. Safe to call twice. */
  dispose(): void;
}

export interface ReplayInputIo {
  /** Standard input, for `-` (default process.stdin). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Says that a stream is being copied, and how much it was (one line each). */
  say?: (line: string) => void;
  /** Ends a copy under way (Ctrl-C): nothing is replayed then. */
  stop?: AbortSignal;
}

/**
 * FILE, then FILE.1, FILE.2, ... while they exist, each plain or gzipped (FILE.1.gz). Parts after
 * a missing one are not read (they are not known to be of this recording): the replay commands
 * name them (ReplayInput.partsAfterGap).
 */
export function recordingParts(file: string): string[] {
  return [file, ...laterParts(file)];
}

/**
 * How messages name what a replay reads: the stream's name, or its files. A long rotation
 * (FILE .. FILE.90) is named by its ends and count rather than by a line of 91 paths.
 */
export function inputLabel(input: Pick<ReplayInput, 'files' | 'name' | 'stream'>): string {
  const { files } = input;
  if (input.stream) return input.name;
  return files.length <= 3 ? files.join(', ') : `${files[0]} and ${files.length - 1} more parts (up to ${files.at(-1)})`;
}

/** The line that names the parts after a gap a replay leaves unread, if any. */
export function partsAfterGapNote(input: ReplayInput): string | undefined {
  const left = input.partsAfterGap;
  if (left.length === 0) return undefined;
  const one = left.length === 1;
  return `replay: note: ${left.join(', ')} ${one ? 'follows' : 'follow'} a missing part and ${one ? 'is' : 'are'} not read (parts are read in order up to the first gap)`;
}

/**
 * `prefix`: how usage errors start (`replay:`, `--replay:`). Missing files, folders, terminals
 * and devices are usage errors (ConfigError); a stream that cannot be copied is a
 * ReplayInputError, with nothing left behind.
 */
export async function openReplayInput(prefix: string, file: string, io: ReplayInputIo = {}): Promise<ReplayInput> {
  if (file === '-') {
    const stdin = io.stdin ?? process.stdin;
    if (stdin.isTTY) throw new ConfigError(`${prefix} - reads a recording from standard input, which is a terminal here; pipe one into it`);
    return fromStdin(stdin, 'standard input', io);
  }
  if (!existsSync(file)) throw new ConfigError(`${prefix} ${file} does not exist`);
  const st = statSync(file);
  if (st.isDirectory()) throw new ConfigError(`${prefix} ${file} is a folder, not a recording`);
  if (!st.isFile() && isStdin(st)) {
    // /dev/stdin, /dev/fd/0: read as `-` (a socket, which a parent process may hand over as
    // standard input, cannot be opened by name).
    const stdin = io.stdin ?? process.stdin;
    if (stdin.isTTY) throw new ConfigError(`${prefix} ${file} is standard input, which is a terminal here; pipe a recording into it`);
    return fromStdin(stdin, file, io);
  }
  if (st.isFIFO()) {
    // Opening a FIFO waits for a writer on a pool thread, which a stop must release: a process
    // cannot exit while one of them is stuck (it would hang on Ctrl-C). A writer that opens and
    // closes at once ends that wait.
    const release = () => {
      try {
        closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting (the open is done): nothing to release.
      }
    };
    return copied(createReadStream(file), file, io, release);
  }
  if (st.isSocket()) throw new ConfigError(`${prefix} ${file} is a socket, which cannot be read by name; give the stream as standard input (-)`);
  // A terminal or a device (/dev/zero would never end).
  if (!st.isFile()) throw new ConfigError(`${prefix} ${file} is not a regular file or a pipe`);
  // A link to the first file of a rotated recording (`latest.ndjson -> 2026-11-20/traffic.ndjson`):
  // its parts lie next to the target, not next to the link.
  const partsOf = lstatSync(file).isSymbolicLink() && laterParts(file).length === 0 ? realpathSync(file) : file;
  const files = [file, ...laterParts(partsOf)];
  checkReadable(prefix, files);
  return { files, name: file, copied: false, stream: false, partsAfterGap: partsAfterGap(partsOf), dispose: () => undefined };
}

/**
 * Each file opens for reading and is a regular file: one that does not (no read permission, a
 * part that is a folder) is a usage error, before the data dir is touched. It used to end the
 * replay with a stack trace (EACCES), the data dir already made.
 */
export function checkReadable(prefix: string, files: readonly string[]): void {
  for (const f of files) {
    let fd: number | undefined;
    try {
      fd = openSync(f, 'r');
      if (!fstatSync(fd).isFile()) throw new ConfigError(`${prefix} ${f} is not a regular file`);
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      throw new ConfigError(`${prefix} ${f} cannot be read (${code === 'EACCES' ? 'EACCES: no permission to read it' : code})`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/** Standard input: read in place when it can be (stdinInPlace), else copied. */
function fromStdin(stdin: NodeJS.ReadableStream, name: string, io: ReplayInputIo): ReplayInput | Promise<ReplayInput> {
  return (stdin === process.stdin ? stdinInPlace(name) : undefined) ?? copied(stdin, name, io);
}

/**
 * Standard input read where it is, when it is a regular file that nothing has read from yet
 * (Linux: /proc/self/fdinfo/0 gives its offset; opening /proc/self/fd/0 opens the file anew, even
 * one deleted since). Anywhere else, or from an offset, it is copied from where it stands.
 */
function stdinInPlace(name: string): ReplayInput | undefined {
  try {
    if (!fstatSync(0).isFile()) return undefined;
    const pos = /^pos:\s*(\d+)$/m.exec(readFileSync('/proc/self/fdinfo/0', 'utf8'))?.[1];
    if (pos !== '0') return undefined;
    return { files: ['/proc/self/fd/0'], name, copied: false, stream: true, partsAfterGap: [], dispose: () => undefined };
  } catch {
    return undefined;
  }
}

/** Whether `st` is this process's standard input (by device and inode). */
function isStdin(st: Stats): boolean {
  try {
    const fd0 = fstatSync(0);
    return fd0.dev === st.dev && fd0.ino === st.ino;
  } catch {
    return false;
  }
}

async function copied(source: NodeJS.ReadableStream, name: string, { say, stop }: ReplayInputIo, release?: () => void): Promise<ReplayInput> {
  let dir: string | undefined;
  let done = false;
  // A process that exits on the way (a second Ctrl-C exits at once) removes the copy too. A
  // copy left behind (a busy or read-only TMPDIR) is no failure of the replay.
  const remove = () => {
    process.off('exit', remove);
    if (!done) release?.();
    try {
      if (dir) rmSync(dir, { recursive: true, force: true });
    } catch {
      // left in TMPDIR
    }
  };
  process.on('exit', remove);
  stop?.addEventListener('abort', () => { if (!done) release?.(); }, { once: true });
  try {
    dir = mkdtempSync(join(tmpdir(), 'airtwin-replay-'));
    const copy = join(dir, 'recording');
    say?.(`replay: copying ${name} to ${copy} (a replay reads its file more than once)`);
    await pipeline(source, createWriteStream(copy), ...(stop ? [{ signal: stop }] : []));
    done = true;
    const size = statSync(copy).size;
    say?.(`replay: ${size < 1e6 ? `${size} bytes` : `${(size / 1e6).toFixed(1)} MB`} copied`);
    return { files: [copy], name, copied: true, stream: true, partsAfterGap: [], dispose: remove };
  } catch (e) {
    done = true;
    remove();
    if (stop?.aborted) throw new ReplayInputError(`stopped while copying ${name}: nothing was replayed`, { cause: e });
    const why = e instanceof Error ? e.message : String(e);
    throw new ReplayInputError(`cannot copy ${name} to a temporary file under ${tmpdir()} (${why}); set TMPDIR to a folder with room, or save it to a file first`, { cause: e });
  }
}
