import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blankCommand } from '../../actors/device/command-lifecycle.js';
import { Store } from '../../src/store/duckdb.js';
import { CommandsRepo } from '../../src/store/commands-repo.js';
import { until } from '../helpers/until.js';

const BIN = new URL('../../bin/airtwin.mjs', import.meta.url).pathname;
const LAB_AP = 'a0b1c2000001';
const OFFLINE = 'c0ffee000001';

/** A `serve` process on `dataDir`, its URL and token once the banner is out. */
async function serve(dataDir: string, args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--gateway-port', '0', '--rrm-port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  const banner = await until('the banner', async () => out, (o) => /token\s+(\S+)/.test(o), 30_000);
  const base = `${/gateway\s+(http:\/\/\S+)\/api\/v1/.exec(banner)![1]!}/api/v1`;
  const headers = { authorization: `Bearer ${/token\s+(\S+)/.exec(banner)![1]!}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  return { child, call, exited, output: () => out };
}

async function withStore<T>(dataDir: string, work: (commands: CommandsRepo) => Promise<T>): Promise<T> {
  const store = await Store.open(dataDir);
  try {
    return await work(new CommandsRepo(store));
  } finally {
    await store.close();
  }
}

describe('commands across a restart of serve (kill -9 and SIGTERM)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-e2e-restart-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reopens queued and scheduled commands, ends the others saying why, and a clean stop keeps the queue', async () => {
    // Run 1, no APs: a configure queued for an AP that is offline, a reboot scheduled for later.
    const first = await serve(dataDir, ['--no-sim']);
    children.push(first.child);
    for (const sn of [LAB_AP, OFFLINE]) expect((await first.call('POST', `/device/${sn}`, {})).status).toBe(200);
    const configure = await first.call('POST', `/device/${LAB_AP}/configure`, { configuration: { radios: [{ band: '2G', 'tx-power': 12 }] } });
    expect(configure.body).toMatchObject({ status: 'pending', executed: 0 });
    const later = Math.floor(Date.now() / 1000) + 2 * 3600;
    const reboot = await first.call('POST', `/device/${OFFLINE}/reboot`, { when: later });
    expect(reboot.body).toMatchObject({ status: 'pending', when: later });
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // What a crash leaves besides: a command that was on the wire, and one queued 5 h ago.
    const now = Math.floor(Date.now() / 1000);
    await withStore(dataDir, async (commands) => {
      await commands.insert({ ...blankCommand({ UUID: '00000000-0000-4000-8000-00000000e0e0', command: 'wifiscan', serialNumber: OFFLINE, submitted: now - 60, submittedBy: 'x' }), status: 'executed', executed: now - 60, details: '{}' });
      await commands.insert({ ...blankCommand({ UUID: '00000000-0000-4000-8000-0000000001d0', command: 'configure', serialNumber: OFFLINE, submitted: now - 5 * 3600, submittedBy: 'x' }), details: JSON.stringify({ serial: OFFLINE, uuid: 3, when: 0, config: { uuid: 3 } }) });
    });

    // Run 2, with the lab venue: its AP comes online and runs the configure run 1 accepted.
    const second = await serve(dataDir, ['--scenario', 'lab']);
    children.push(second.child);
    const done = await until('the reopened configure to run', () => second.call('GET', `/command/${configure.body.UUID}`), (a) => a.body?.status !== 'pending' && a.body?.status !== 'executed', 30_000);
    expect(done.body).toMatchObject({ status: 'completed', errorCode: 0, submitted: configure.body.submitted });
    expect((await second.call('GET', `/command/${reboot.body.UUID}`)).body).toMatchObject({ status: 'pending', when: later });
    expect((await second.call('GET', '/command/00000000-0000-4000-8000-00000000e0e0')).body).toMatchObject({ status: 'failed', errorText: 'The service restarted before the device replied.' });
    expect((await second.call('GET', '/command/00000000-0000-4000-8000-0000000001d0')).body).toMatchObject({ status: 'expired', executed: 0, errorText: expect.stringMatching(/did not run the command within 240 min/) });
    // A configure queued now for the offline AP survives a clean stop: it is not expired.
    const queued = await second.call('POST', `/device/${OFFLINE}/configure`, { configuration: { radios: [] } });
    expect(queued.body.status).toBe('pending');
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    const open = await withStore(dataDir, (commands) => commands.open());
    expect(open.map((c) => [c.UUID, c.status]).sort()).toEqual([[queued.body.UUID, 'pending'], [reboot.body.UUID, 'pending']].sort());

    // Run 3 reopens them again: still pending, nothing else open.
    const third = await serve(dataDir, ['--no-sim']);
    children.push(third.child);
    expect((await third.call('GET', `/command/${queued.body.UUID}`)).body.status).toBe('pending');
    const all = await third.call('GET', '/commands');
    expect((all.body.commands as { status: string }[]).filter((c) => c.status === 'pending' || c.status === 'executed')).toHaveLength(2);
    third.child.kill('SIGKILL');
  }, 120_000);
});
