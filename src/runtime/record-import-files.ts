/**
 * The files `airtwin record --from-states` reads: every *.json under a folder, each once, in
 * path order, and why each other file is passed over (record-import.ts).
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A file not imported, relative to the folder, and why. */
export interface Skipped {
  file: string;
  reason: string;
}

/** Path order: a name's folder before the next name (the order a walk by name gives). */
const pathKey = (p: string) => p.replaceAll(sep, '\0');
export const byPath = (a: string, b: string) => (pathKey(a) < pathKey(b) ? -1 : pathKey(a) > pathKey(b) ? 1 : 0);
/** The error code of a failed file system call (ELOOP, EACCES, ...), or its message. */
export const fsCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String((e as Error).message);

/**
 * Every *.json regular file under `dir` (`.JSON` too), in path order. Links are followed, but a
 * folder is read once however many links lead to it (a link to `..` would loop, a `latest` link
 * would import its target twice), and by its own path when it has one: links to folders are
 * followed after every folder under `dir` is read, so the serials derived from paths do not
 * depend on what a link is named. A file, too, is read once: by its own path before any link to
 * it (`latest.json -> state-9.json`), and by the first of its names in path order when it has
 * several (hard links). What is not imported goes into `skipped` with why, relative to
 * `dir`: what cannot be read (a broken link, a permission, a FIFO that would block the read), a
 * second way to a file already read, and any other file. Hidden names (`.DS_Store`, an editor's lock file, all of `.git/`) are not
 * listed, nobody means to import them; a hidden *.json that can be read is still imported.
 */
export function jsonFiles(dir: string, skipped: Skipped[]): string[] {
  // Each file found, with the identity of what it is (device and inode, the target's for a link).
  const files: { path: string; id: string; link: boolean }[] = [];
  const skips: Skipped[] = [];
  const seen = new Set<string>();
  const links: { path: string; hidden: boolean }[] = [];
  const skip = (p: string, reason: string) => skips.push({ file: relative(dir, p) || '.', reason });
  const walk = (d: string, hidden: boolean) => {
    let names: string[];
    try {
      const real = realpathSync(d);
      if (seen.has(real)) return hidden ? undefined : skip(d, 'folder already read (a link to it or to a folder above it)');
      seen.add(real);
      names = readdirSync(d).sort();
    } catch (e) {
      return hidden ? undefined : skip(d, `cannot read the folder (${fsCode(e)})`);
    }
    for (const name of names) {
      const p = join(d, name);
      const quiet = hidden || name.startsWith('.');
      const json = /\.json$/i.test(name);
      let st: Stats;
      let link: boolean;
      try {
        link = lstatSync(p).isSymbolicLink();
        st = statSync(p);
      } catch (e) {
        // Hidden: an editor's lock file (`.#state.json`, a dangling link) is nothing to list.
        if (!quiet) skip(p, `cannot read (${fsCode(e)})`);
        continue;
      }
      if (st.isDirectory()) {
        if (link) links.push({ path: p, hidden: quiet });
        else walk(p, quiet);
      } else if (!json) {
        if (!quiet) skip(p, 'not a .json file');
      } else if (st.isFile()) files.push({ path: p, id: `${st.dev}:${st.ino}`, link });
      else skip(p, 'not a regular file');
    }
  };
  walk(dir, false);
  // Links found in a linked folder join the end of the list.
  for (let i = 0; i < links.length; i++) walk(links[i]!.path, links[i]!.hidden);
  // Back into path order (byPath), a file by its own path first, then links to files: the first
  // way to a file is the one read.
  files.sort((a, b) => (a.link === b.link ? byPath(a.path, b.path) : a.link ? 1 : -1));
  const read = new Map<string, string>();
  const out: string[] = [];
  for (const f of files) {
    const first = read.get(f.id);
    if (first === undefined) {
      read.set(f.id, f.path);
      out.push(f.path);
    } else skip(f.path, `${f.link ? 'a link to' : 'the same file as'} ${relative(dir, first)}, already read`);
  }
  skipped.push(...skips.sort((a, b) => byPath(a.file, b.file)));
  return out.sort(byPath);
}
