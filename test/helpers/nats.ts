/**
 * A private nats-server per test file: free port, temp JetStream store,
 * killed on teardown. `restart()` keeps port and store, so JetStream data survives it the way
 * it survives a production restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface TestNats {
  url: string;
  port: number;
  storeDir: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stop without starting again (to test an outage); `start()` brings it back. */
  kill(): Promise<void>;
  /** The running server's process id (benchmarks read its CPU time). */
  pid(): number | undefined;
  start(): Promise<void>;
}

/** `$NATS_SERVER`, else the first nats-server on PATH. */
export function natsServerBin(): string {
  if (process.env.NATS_SERVER) return process.env.NATS_SERVER;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const bin = join(dir, 'nats-server');
    try {
      accessSync(bin, constants.X_OK);
      return bin;
    } catch {
      // not here
    }
  }
  throw new Error('nats-server is not on PATH: the NATS tests start private ones (install nats-server 2.9 or later, or set NATS_SERVER to its path)');
}

/** How long a nats-server may take to say it is ready on a loaded machine. */
const READY_WITHIN_MS = 60_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** `maxPayload`: the server's max_payload in bytes (a config file; nats-server has no flag for it). */
export async function startNats(opts: { jetstream?: boolean; maxPayload?: number } = {}): Promise<TestNats> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'airtwin-nats-'));
  let proc: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const args = ['-a', '127.0.0.1', '-p', String(port)];
    if (opts.jetstream !== false) args.push('-js', '-sd', storeDir);
    if (opts.maxPayload !== undefined) {
      const conf = join(storeDir, 'max-payload.conf');
      writeFileSync(conf, `max_payload: ${opts.maxPayload}\n`);
      args.push('-c', conf);
    }
    const child = spawn(natsServerBin(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    proc = child;
    // Ready once it logs so (after it listens, and after JetStream recovered its store).
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => done(new Error(`nats-server did not say it was ready within ${READY_WITHIN_MS} ms on ${port}: ${log.slice(-500)}`)), READY_WITHIN_MS);
      const done = (err?: Error): void => {
        clearTimeout(timer);
        child.stderr.removeListener('data', onData);
        child.stderr.resume();
        child.removeListener('exit', onExit);
        child.removeListener('error', done);
        if (err) reject(err);
        else resolve();
      };
      const onData = (chunk: Buffer): void => {
        log += chunk.toString();
        if (log.includes('Server is ready')) done();
      };
      const onExit = (code: number | null): void => done(new Error(`nats-server exited with ${code}: ${log.slice(-500)}`));
      child.stderr.on('data', onData);
      child.once('exit', onExit);
      child.once('error', done);
    });
  };

  const kill = async (): Promise<void> => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    start,
    pid: () => proc?.pid,
    kill,
    restart: async () => { await kill(); await start(); },
    stop: async () => { await kill(); rmSync(storeDir, { recursive: true, force: true }); },
  };
}
