/**
 * A small tmpfs for full-disk tests: mounted when the tests run as root and `mount` works, else
 * undefined (the test is skipped). `fill()` takes every free byte with one file, `free()` gives
 * them back, `unmount()` removes it all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  fill(): void;
  free(): void;
  unmount(): void;
}

export function smallDisk(megabytes: number): SmallDisk | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-full-'));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]).status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill: () => {
      const st = statfsSync(dir);
      writeFileSync(filler, Buffer.alloc(Number(st.bavail * st.bsize)));
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
