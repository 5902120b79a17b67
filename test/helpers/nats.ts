/**
 * A private nats-server per test file (conventions §2.10): free port, temp JetStream store,
 * killed on teardown. `restart()` keeps port and store, so JetStream data survives it the way
 * it survives a production restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

const NATS_BIN = '/usr/sbin/nats-server';

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

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ port, host: '127.0.0.1' });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
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
    const child = spawn(NATS_BIN, args, { stdio: 'ignore' });
    proc = child;
    // Bounded wait: 100 tries of 50 ms.
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
      if (await canConnect(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not listen on ${port}`);
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
