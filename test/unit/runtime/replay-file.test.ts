import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runReplay } from '../../../src/runtime/replay.js';
import { checkReadable } from '../../../src/runtime/replay-input.js';
import { HEAD_LINES, NotARecordingError } from '../../../src/links/replay/read-recording.js';
import { startTestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-replay-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const replay = (file: string) => runReplay({ file, dataDir: join(dir, 'data') }, { out: new PassThrough().resume() });
const line = (dt: number) => JSON.stringify({ t: 1_767_600_000_000 + dt, serial: 'a0b1c2000001', event: 'connect' });

describe('the file given to replay', () => {
  it('says whether it is missing, a folder, or a device (usage errors)', async () => {
    await expect(replay(join(dir, 'nope.ndjson'))).rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${join(dir, 'nope.ndjson')} does not exist` });
    await expect(replay(dir)).rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${dir} is a folder, not a recording` });
    // A device is never copied: /dev/zero would fill the disk.
    await expect(replay('/dev/zero')).rejects.toMatchObject({ name: 'ConfigError', message: 'replay: /dev/zero is not a regular file or a pipe' });
    // A socket cannot be opened by name at all.
    const sock = join(dir, 'traffic.sock');
    const server = createServer().listen(sock);
    await once(server, 'listening');
    try {
      await expect(replay(sock)).rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${sock} is a socket, which cannot be read by name; give the stream as standard input (-)` });
    } finally {
      server.close();
    }
    await expect(startTestServer({ sim: false, replay: dir, dataDir: join(dir, 'serve') }))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--replay: ${dir} is a folder, not a recording` });
  });

  it('says a part it cannot read is a usage error, before the data dir is made', async () => {
    // A part that is a folder opens but cannot be read: a usage error, not a stack
    // trace once the data dir is made (so is a part without read permission, below).
    const file = join(dir, 'folder-part.ndjson');
    writeFileSync(file, `${line(0)}\n`);
    mkdirSync(`${file}.1`);
    const dataDir = join(dir, 'folder-part-data');
    await expect(runReplay({ file, dataDir }, { out: new PassThrough().resume() }))
      .rejects.toMatchObject({ name: 'ConfigError', message: `replay: ${file}.1 is not a regular file` });
    expect(existsSync(dataDir)).toBe(false);
    await expect(startTestServer({ sim: false, replay: file, dataDir: join(dir, 'folder-part-serve') }))
      .rejects.toMatchObject({ name: 'ConfigError', message: `--replay: ${file}.1 is not a regular file` });
  });

  it('says a file without read permission cannot be read (EACCES)', () => {
    // A folder of its own that anyone may enter (the suite's is mkdtemp's 0700).
    const open = mkdtempSync(join(tmpdir(), 'airtwin-perm-'));
    chmodSync(open, 0o755);
    const file = join(open, 'r.ndjson');
    writeFileSync(file, `${line(0)}\n`, { mode: 0o644 });
    writeFileSync(`${file}.1`, `${line(1000)}\n`, { mode: 0o000 });
    chmodSync(`${file}.1`, 0o000);
    // Root reads any file: check as nobody, whose access the kernel does judge.
    const root = process.geteuid?.() === 0;
    if (root) process.seteuid!(65534);
    let thrown: unknown;
    try {
      checkReadable('replay:', [file, `${file}.1`]);
    } catch (e) {
      thrown = e;
    } finally {
      if (root) process.seteuid!(0);
      rmSync(open, { recursive: true, force: true });
    }
    expect(thrown).toMatchObject({ name: 'ConfigError', message: `replay: ${file}.1 cannot be read (EACCES: no permission to read it)` });
  });

  it('reads the parts of a rotated recording given by a link to its first file, next to the target', async () => {
    const rot = join(dir, 'rot');
    mkdirSync(rot);
    writeFileSync(join(rot, 'lab.ndjson'), `${line(0)}\n`);
    writeFileSync(join(rot, 'lab.ndjson.1'), `${line(1000)}\n`);
    writeFileSync(join(rot, 'lab.ndjson.2'), `${line(2000)}\n`);
    const latest = join(dir, 'latest.ndjson');
    symlinkSync(join(rot, 'lab.ndjson'), latest);
    const r = await runReplay({ file: latest, dataDir: join(dir, 'latest-data') }, { out: new PassThrough().resume() });
    expect(r.summary).toMatchObject({ accepted: 3, durationMs: 2000 });
  });

  it('plays a regular file', async () => {
    const file = join(dir, 'one.ndjson');
    writeFileSync(file, `${line(0)}\n`);
    const r = await replay(file);
    expect(r.summary.rejectedCount).toBe(0);
    expect(r.summary.accepted).toBe(1);
  });

  it('names a few parts one by one, and a long rotation by its ends and count', async () => {
    const started = async (file: string, parts: number) => {
      for (let i = 0; i < parts; i++) writeFileSync(i === 0 ? file : `${file}.${i}`, `${line(i * 1000)}\n`);
      const out: string[] = [];
      const r = await runReplay({ file, dataDir: join(dir, `parts-${parts}`) }, { out: new PassThrough().on('data', (c: Buffer) => out.push(c.toString())) });
      expect(r.summary.accepted).toBe(parts);
      return out.join('').split('\n')[0];
    };
    const few = join(dir, 'few.ndjson');
    expect(await started(few, 3)).toBe(`replay: ${few}, ${few}.1, ${few}.2 at speed max -> ${join(dir, 'parts-3')}`);
    const many = join(dir, 'many.ndjson');
    expect(await started(many, 40)).toBe(`replay: ${many} and 39 more parts (up to ${many}.39) at speed max -> ${join(dir, 'parts-40')}`);
  });
});

describe('a stream given to replay: - (standard input) or a pipe', () => {
  const text = `${line(0)}\n${line(1000)}\n{broken\n`;
  /** Runs `fn` with TMPDIR at a folder of its own, and returns what that folder holds afterwards. */
  async function withTmp<T>(name: string, fn: () => Promise<T>): Promise<{ result: T; left: string[] }> {
    const tmp = join(dir, name);
    mkdirSync(tmp);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const result = await fn();
      return { result, left: readdirSync(tmp) };
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  }

  it('plays standard input (plain or gzip) from a copy under TMPDIR, names it "standard input", and removes the copy', async () => {
    for (const [i, data] of [Buffer.from(text), gzipSync(text)].entries()) {
      const out: string[] = [];
      const { result, left } = await withTmp(`stdin-${i}`, () => runReplay({ file: '-', dataDir: join(dir, `stdin-data-${i}`) }, {
        out: new PassThrough().on('data', (c: Buffer) => out.push(c.toString())), stdin: Readable.from([data]),
      }));
      expect(result.summary).toMatchObject({ accepted: 2, rejectedCount: 1 });
      expect(left).toEqual([]);
      const printed = out.join('');
      expect(printed).toContain(`replay: ${data.length} bytes copied\n`);
      expect(printed).toContain('replay: standard input at speed max');
      // A rejected line is named after what the user gave, not after the copy.
      expect(printed).toContain('  standard input:3: not JSON');
    }
  });

  it('refuses a terminal as standard input (a usage error)', async () => {
    const tty = Object.assign(Readable.from([]), { isTTY: true });
    await expect(runReplay({ file: '-', dataDir: join(dir, 'tty') }, { out: new PassThrough().resume(), stdin: tty }))
      .rejects.toMatchObject({ name: 'ConfigError', message: 'replay: - reads a recording from standard input, which is a terminal here; pipe one into it' });
  });

  it('plays a named pipe, and says "not a recording" with the pipe\'s name', async () => {
    const fifo = join(dir, 'pipe.ndjson');
    execFileSync('mkfifo', [fifo]);
    const writer = (content: string) => { writeFileSync(join(dir, 'feed'), content); return spawn('sh', ['-c', `cat '${join(dir, 'feed')}' > '${fifo}'`]); };
    writer(text);
    const { result, left } = await withTmp('fifo', () => replay(fifo));
    expect(result.summary).toMatchObject({ accepted: 2, rejectedCount: 1 });
    expect(left).toEqual([]);
    writer('x\n'.repeat(HEAD_LINES));
    const failed = await withTmp('fifo-junk', () => replay(fifo).then(() => undefined, (e: unknown) => e));
    expect(failed.result).toBeInstanceOf(NotARecordingError);
    expect((failed.result as Error).message).toMatch(new RegExp(`^${fifo} does not look like a recording`));
    expect(failed.left).toEqual([]);
  });

  it('ends a copy under way when stopped (Ctrl-C), with nothing replayed and nothing left behind', async () => {
    const stdin = new PassThrough();
    stdin.write(`${line(0)}\n`);
    const ctl = new AbortController();
    // The copy is under way once it pipes standard input, which then starts flowing.
    const copying = new Promise<void>((r) => stdin.once('resume', () => r()));
    const { result, left } = await withTmp('stopped', async () => {
      const running = runReplay({ file: '-', dataDir: join(dir, 'stopped-data') }, { out: new PassThrough().resume(), stdin, stop: ctl.signal })
        .then(() => undefined, (e: unknown) => e);
      // The stream never ends: only the stop ends the copy.
      await copying;
      ctl.abort();
      return running;
    });
    expect(result).toMatchObject({ name: 'ReplayInputError', message: 'stopped while copying standard input: nothing was replayed' });
    expect(left).toEqual([]);
    expect(existsSync(join(dir, 'stopped-data'))).toBe(false);
  });

  it('checks the data dir before it copies a stream: an unusable one is a usage error, with nothing copied', async () => {
    const said: string[] = [];
    const { result, left } = await withTmp('baddir', () => runReplay({ file: '-', dataDir: '/etc/passwd/x' }, {
      out: new PassThrough().on('data', (c: Buffer) => said.push(c.toString())), stdin: Readable.from([text]),
    }).then(() => undefined, (e: unknown) => e));
    expect(result).toMatchObject({ name: 'ConfigError', message: '--data-dir: /etc/passwd/x is not usable (ENOTDIR)' });
    expect(said.join('')).not.toContain('copying');
    expect(left).toEqual([]);
  });

  it('fails with nothing left behind when the copy cannot be made', async () => {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = join(dir, 'no-such-folder');
    try {
      await expect(runReplay({ file: '-', dataDir: join(dir, 'nodir') }, { out: new PassThrough().resume(), stdin: Readable.from([text]) }))
        .rejects.toMatchObject({ name: 'ReplayInputError', message: expect.stringMatching(/^cannot copy standard input to a temporary file under .*no-such-folder \(ENOENT.*\); set TMPDIR to a folder with room/) });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(existsSync(join(dir, 'nodir'))).toBe(false);
  });

  it('serves a replayed pipe, and removes the copy once the replay has ended', async () => {
    const fifo = join(dir, 'serve-pipe.ndjson');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(join(dir, 'serve-feed'), text);
    spawn('sh', ['-c', `cat '${join(dir, 'serve-feed')}' > '${fifo}'`]);
    const printed: string[] = [];
    const { result: server, left } = await withTmp('serve', async () => {
      const s = await startTestServer({ sim: false, replay: fifo, speed: 'max', dataDir: join(dir, 'serve-data') }, { print: (l) => printed.push(l) });
      await s.running.replay!.done;
      // The summary follows the last line, as serve prints it.
      await until('the replay summary', async () => printed.join('\n'), (p) => p.includes(`replay: ${fifo}:`) || p.includes('rejected line'));
      return s;
    });
    try {
      expect(left).toEqual([]);
      expect(printed.join('\n')).toContain(`  ${fifo}:3: not JSON`);
      expect(printed.join('\n')).toContain('replay: 0 frames from 1 device, 1.0 s recorded');
      expect((await server.gw('GET', '/devices')).status).toBe(200);
    } finally {
      await server.running.close();
    }
  });
});

describe('parts after a gap', () => {
  it('are named and not read, by replay and serve --replay', async () => {
    const file = join(dir, 'gap.ndjson');
    writeFileSync(file, `${line(0)}\n`);
    writeFileSync(`${file}.1`, `${line(1000)}\n`);
    writeFileSync(`${file}.3`, `${line(9000)}\n`);
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => { text += d.toString(); });
    const r = await runReplay({ file, dataDir: join(dir, 'gap-data') }, { out });
    expect(text).toContain(`replay: note: ${file}.3 follows a missing part and is not read (parts are read in order up to the first gap)\n`);
    expect(r.summary.durationMs).toBe(1000);
    const printed: string[] = [];
    const s = await startTestServer({ sim: false, replay: file, speed: 'max', dataDir: join(dir, 'gap-serve') }, { print: (l) => printed.push(l) });
    try {
      expect(printed).toContain(`replay: note: ${file}.3 follows a missing part and is not read (parts are read in order up to the first gap)`);
    } finally {
      await s.running.close();
    }
  });
});

describe('serve --replay, when the replay ends after start-up', () => {
  it('has printed the summary by the time an awaiter of done goes on', async () => {
    // Paced (3 recorded seconds at speed 2), so `done` settles after startServe has returned and
    // the test awaits it. Before the fix a `finally` between `done` and serve's handler let this
    // awaiter run first, and the summary was not printed yet (CI saw it once under load).
    const file = join(dir, 'paced.ndjson');
    writeFileSync(file, `${line(0)}\n${line(3000)}\n`);
    const printed: string[] = [];
    const s = await startTestServer({ sim: false, replay: file, speed: 2, dataDir: join(dir, 'paced-data') }, { print: (l) => printed.push(l) });
    try {
      const pending = printed.some((l) => l.startsWith('replay: 0 frames'));
      await s.running.replay!.done;
      expect(pending).toBe(false);
      expect(printed).toContainEqual(expect.stringMatching(/^replay: 0 frames from 1 device, 3\.0 s recorded, played in/));
      expect(printed).toContain('replay: 0 rejected lines');
    } finally {
      await s.running.close();
    }
  });
});

describe('two recordings replayed into one data dir', () => {
  it('keeps the commands of both, and a second replay of one updates its own', async () => {
    // Each recording has a command at line 3 of the same AP. Their UUIDs came from (part, line,
    // serial) alone, so the second recording's command replaced the first one's record.
    const S = 'a0b1c2000001';
    const day = (t0: number, method: string) => [
      JSON.stringify({ t: t0, serial: S, event: 'connect' }),
      JSON.stringify({ t: t0, serial: S, dir: 'up', frame: { jsonrpc: '2.0', method: 'connect', params: { serial: S, uuid: 1, firmware: 'fw', capabilities: { compatible: 'edgecore_eap101', platform: 'ap', wifi: {} } } } }),
      JSON.stringify({ t: t0 + 1000, serial: S, dir: 'down', frame: { jsonrpc: '2.0', id: 2, method, params: { serial: S } } }),
      JSON.stringify({ t: t0 + 1500, serial: S, dir: 'up', frame: { jsonrpc: '2.0', id: 2, result: { serial: S, uuid: 1, status: { error: 0, text: method } } } }),
    ].join('\n') + '\n';
    const day1 = join(dir, 'day1.ndjson');
    const day2 = join(dir, 'day2.ndjson');
    writeFileSync(day1, day(1_767_600_000_000, 'ping'));
    writeFileSync(day2, day(1_767_686_400_000, 'leds'));
    const dataDir = join(dir, 'two-days');
    const quiet = { out: new PassThrough().resume() };
    for (const file of [day1, day2, day1]) await runReplay({ file, dataDir, speed: 'max', keepTime: true }, quiet);
    const { Store } = await import('../../../src/store/duckdb.js');
    const store = await Store.open(dataDir);
    try {
      const rows = await store.query<{ command: string; status: string }>('SELECT command, status FROM commands ORDER BY submitted');
      expect(rows).toEqual([{ command: 'ping', status: 'completed' }, { command: 'leds', status: 'completed' }]);
    } finally {
      await store.close();
    }
  });
});

describe('serve --replay of a rotated recording', () => {
  it('logs each skipped line with the file it is in', async () => {
    const file = join(dir, 'rot-log.ndjson');
    writeFileSync(file, `${line(0)}\ngarbage\n`);
    writeFileSync(`${file}.1`, `${line(1000)}\ngarbage\n`);
    const logs: string[] = [];
    const logDestination = new PassThrough().on('data', (c: Buffer) => logs.push(...c.toString().split('\n').filter(Boolean)));
    const s = await startTestServer({ sim: false, replay: file, speed: 'max', logLevel: 'warn', dataDir: join(dir, 'rot-log-data') }, { print: () => undefined, logDestination });
    try {
      await s.running.replay!.done;
      const skipped = logs.map((l) => JSON.parse(l) as { msg: string; file?: string; line?: number }).filter((l) => l.msg === 'replay skipped a line');
      expect(skipped.map((l) => [l.file, l.line])).toEqual([[file, 2], [`${file}.1`, 2]]);
    } finally {
      await s.running.close();
    }
  });
});
