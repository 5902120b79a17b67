/**
 * The checks of flag values and of files named by flags that every command shares, and the error
 * they throw. Kept apart from the serve config loader (load.ts), whose schema library is most of
 * a command's start-up time: `airtwin replay` or `record` need only these.
 */
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A setting that cannot be used; src/cli/ prints the message on one line and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * `flag FILE` names a file this process can create or replace (a recording): its folder exists
 * and is writable, and it is no folder itself. Checked before anything starts, so a typo in the
 * path is a usage error (exit 2), not a recording that stops at its first write.
 */
export function checkWritableFile(flag: string, file: string): void {
  if (file === '') throw new ConfigError(`${flag}: "" is invalid (no file name)`);
  try {
    accessSync(dirname(resolve(file)), constants.W_OK);
  } catch (e) {
    throw new ConfigError(`${flag}: cannot write ${file} (its folder: ${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (!existsSync(file)) return;
  if (statSync(file).isDirectory()) throw new ConfigError(`${flag}: ${file} is a folder`);
  // A file that is there must be writable itself (a read-only one failed at the first write, after start).
  try {
    accessSync(file, constants.W_OK);
  } catch (e) {
    throw new ConfigError(`${flag}: cannot write ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/** Whether `a` and `b` are one existing file, by any path (relative, through links, hard links). */
export function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * `--data-dir DIR` can hold the store: DIR is a writable folder, or it does not exist yet and
 * the nearest folder above it that does is writable (the store creates it). Checked without
 * creating anything, before a replay copies a stream or reads a file, with the message of a
 * store that failed to open.
 */
export function checkDataDir(dataDir: string): void {
  const fail = (code: string) => new ConfigError(`--data-dir: ${dataDir} is not usable (${code})`);
  for (let dir = resolve(dataDir); ; dir = dirname(dir)) {
    try {
      if (!statSync(dir).isDirectory()) throw fail('ENOTDIR');
      accessSync(dir, constants.W_OK);
      return;
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      if (code !== 'ENOENT' || dirname(dir) === dir) throw fail(code);
    }
  }
}

/**
 * Where `file` is, with every link resolved, whether it exists yet or not (then its folder's
 * real path and its name, or where a link to it leads); undefined when its folder does not
 * exist either. `links`: links followed so far (a loop of links ends at 40).
 */
export function realPathOf(file: string, links = 0): string | undefined {
  try {
    if (existsSync(file)) return realpathSync(file);
    // A link to a file not made yet (the store's, say) is where it leads: writing it makes that file.
    if (links < 40 && lstatSync(file).isSymbolicLink()) return realPathOf(resolve(dirname(file), readlinkSync(file)), links + 1);
  } catch {
    // not a link: a file not made yet
  }
  try {
    return join(realpathSync(dirname(resolve(file))), basename(file));
  } catch {
    return undefined;
  }
}

/**
 * `--record FILE` with its `--record-max-bytes`: FILE can be written (checkWritableFile), and it
 * is cut into parts only when it is a regular file: rotating `/dev/stdout` made files
 * `/dev/stdout.1`, `/dev/stdout.2`, ... in /dev.
 */
export function checkRecordFile(file: string, maxBytes: number | undefined): void {
  checkWritableFile('--record', file);
  if (maxBytes !== undefined && existsSync(file) && !statSync(file).isFile()) {
    throw new ConfigError(`--record-max-bytes: ${file} is not a regular file (a terminal, pipe or device cannot be cut into parts)`);
  }
}

/** The smallest `--record-max-bytes`: a part holds at least one whole line, so a tiny limit would make a file per line. */
export const MIN_RECORD_BYTES = 4096;

/** `--speed` of every command: a positive factor of real (or recorded) time, or 'max'. */
/**
 * The fastest paced speed: a million times real time (a day in under 0.1 s). Past it a clock
 * leaves the dates a store can hold (at 1e308 it reached Infinity and the replay crashed);
 * `max` is the way to go faster.
 */
export const MAX_SPEED = 1_000_000;

export function parseSpeed(value: unknown): number | 'max' {
  if (value === 'max') return 'max';
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`--speed: ${String(value)} is not a positive number or max`);
  if (n > MAX_SPEED) throw new ConfigError(`--speed: ${String(value)} is more than ${MAX_SPEED}; use max to go as fast as it can`);
  return n;
}

/** `--record-max-bytes` of every command (serve, edge, simulate): whole bytes, at least MIN_RECORD_BYTES. */
export function parseRecordMaxBytes(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < MIN_RECORD_BYTES) {
    throw new ConfigError(`--record-max-bytes: ${String(value)} is not a whole number of bytes >= ${MIN_RECORD_BYTES}`);
  }
  return n;
}
