import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';

/** What a newcomer sees from `airtwin serve` when a setting is wrong, and on a terminal. */

const BIN = new URL('../../bin/airtwin.mjs', import.meta.url).pathname;
const hasScript = spawnSync('script', ['--version']).status === 0;
const root = mkdtempSync(join(tmpdir(), 'airtwin-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airtwin serve --scenario <unknown>', () => {
  it('exits 2 listing the scenarios there are, and makes no data dir', () => {
    const dataDir = join(root, 'never-made');
    const r = spawnSync(process.execPath, [BIN, 'serve', '--scenario', 'nope', '--data-dir', dataDir, '--gateway-port', '0', '--rrm-port', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/scenario 'nope' not found: the scenarios are default, hall, hotel, lab/);
    expect(r.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('airtwin serve on a terminal', () => {
  it.skipIf(!hasScript)('logs readable lines, not JSON, around the banner; AIRTWIN_NO_SIM=true runs no venue', async () => {
    const dataDir = join(root, 'tty');
    const command = `${process.execPath} ${BIN} serve --data-dir ${dataDir} --gateway-port 0 --rrm-port 0`;
    // `script` runs the command on a pseudo-terminal, as a shell would.
    const child = spawn('script', ['-qec', command, '/dev/null'], { detached: true, env: { ...process.env, AIRTWIN_NO_SIM: 'true' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until('the banner and the rrm listening line', async () => out, (o) => /token\s+\S+/.test(o) && /INFO\s+rrm\s+Server listening/.test(o), 60_000);
      expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}gateway {3}Server listening at http:\/\/127\.0\.0\.1:\d+/m);
      expect(out).not.toContain('{"level"');
      expect(out).toMatch(/^\s+venue\s+none \(--no-sim\)/m);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  }, 90_000);
});
