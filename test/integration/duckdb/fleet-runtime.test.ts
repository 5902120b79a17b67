import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../src/store/duckdb.js';
import { DevicesRepo } from '../../../src/store/devices-repo.js';
import { BlacklistRepo } from '../../../src/store/blacklist-repo.js';
import { DefaultConfigsRepo } from '../../../src/store/default-configs-repo.js';
import { CommandsRepo } from '../../../src/store/commands-repo.js';
import { startFleetRuntime, type FleetRuntime } from '../../../src/runtime/fleet-runtime.js';
import { FakeLink, flush } from '../../helpers/fake-link.js';
import { until } from '../../helpers/until.js';
import type { Clock } from '../../../src/protocol/clock.js';

const T0 = Date.parse('2026-11-21T00:00:00Z');
const SERIAL = 'c0ffee000001';

describe('fleet runtime (serve\'s admission policy on a real DuckDB file)', () => {
  let dir: string;
  let store: Store | undefined;
  let runtime: FleetRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let logged: { msg: string; [k: string]: unknown }[] = [];
  async function start(autoProvision: boolean, withDefault = false) {
    logged = [];
    const sink = new Writable({ write(chunk, _enc, done) { logged.push(JSON.parse(String(chunk))); done(); } });
    dir = mkdtempSync(join(tmpdir(), 'airtwin-fr-'));
    store = await Store.open(dir);
    const clock = new SimulatedClock();
    clock.set(T0);
    const processClock: Clock = { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (id) => clock.clearTimeout(id as number) };
    const devices = await DevicesRepo.load(store);
    const defaultConfigs = await DefaultConfigsRepo.load(store);
    if (withDefault) {
      await defaultConfigs.insert({ name: 'eap101', modelIds: ['edgecore_eap101'], description: '', configuration: JSON.stringify({ radios: [{ band: '5G', channel: 44 }] }), platform: 'ap', created: 0, lastModified: 0 });
    }
    runtime = startFleetRuntime({
      clock: processClock, devices, blacklist: await BlacklistRepo.load(store), defaultConfigs, commands: new CommandsRepo(store),
      autoProvision, logger: pino({ level: 'warn' }, sink),
    });
    const link = new FakeLink(SERIAL, () => clock.now());
    runtime.fleet.attach(link);
    link.up();
    link.connect();
    for (let i = 0; i < 20; i++) await flush();
    // Admission stores the record on DuckDB's pool thread: wait for its outcome, an AP admitted
    // (and its default configuration pushed) or dropped.
    if (autoProvision) {
      const admitted = async () => runtime!.fleet.status(SERIAL)?.connected === true && (!withDefault || link.sent.some((f) => f.method === 'configure'));
      await until('the AP admitted (and its default configuration pushed)', admitted, (ok) => ok, 30_000);
    } else {
      await until('the AP refused', async () => link.closed.length, (n) => n > 0, 30_000);
    }
    return { devices, link, clock };
  }

  it('refuses an unknown AP with --no-auto-provision and stores no record', async () => {
    const { devices } = await start(false);
    expect(devices.has(SERIAL)).toBe(false);
    expect(runtime!.fleet.status(SERIAL)?.connected ?? false).toBe(false);
  });

  it('provisions an unknown AP: a record with a note, its model and firmware, connected', async () => {
    const { devices } = await start(true);
    const d = devices.get(SERIAL)!;
    expect(d).toMatchObject({ compatible: 'edgecore_eap101', firmware: 'fw-1', UUID: 1 });
    expect(d.notes[0]!.note).toBe('Auto-provisioned.');
    expect(JSON.parse(d.configuration)).toEqual({ uuid: 1 });
    expect(runtime!.fleet.status(SERIAL)?.connected).toBe(true);
  });

  it('gives a provisioned AP the matching default configuration, with a newer uuid, and pushes it', async () => {
    const { devices, link } = await start(true, true);
    const d = devices.get(SERIAL)!;
    expect(d.notes[0]!.note).toMatch(/default configuration eap101/);
    expect(JSON.parse(d.configuration)).toMatchObject({ radios: [{ band: '5G', channel: 44 }] });
    expect(d.UUID).toBeGreaterThan(1);
    expect(link.sent.some((f) => f.method === 'configure')).toBe(true);
  });

  it('logs what the actor refuses: ignored frames at the 1st and 10th, protocol errors, the drop and its reason', async () => {
    const { link } = await start(true);
    // No params.serial: ignored (counted, logged at the 1st and 10th).
    for (let i = 0; i < 10; i++) link.frame({ jsonrpc: '2.0', method: 'healthcheck', params: { uuid: 1, sanity: 100, data: {} } });
    link.frame({ jsonrpc: '2.0', method: 'bogus', params: { serial: SERIAL } });
    link.notify('state', { serial: 'zz!', uuid: 1, state: {} });
    for (let i = 0; i < 20; i++) await flush();
    const of = (msg: string) => logged.filter((l) => l.msg === msg);
    expect(of('device frame ignored').map((l) => l.count)).toEqual([1, 10]);
    expect(of('device frame ignored')[0]).toMatchObject({ serial: SERIAL, method: 'healthcheck' });
    expect(of('device protocol error')).toEqual([expect.objectContaining({ serial: SERIAL, count: 1, reason: expect.stringMatching(/bogus/) })]);
    expect(of('device dropped')).toEqual([expect.objectContaining({ serial: SERIAL, reason: 'bad-serial', detail: expect.stringMatching(/zz!/) })]);
  });

  it('provisionAll stores, in one go, the records provision would, leaves known serials alone, and keeps them after a reopen', async () => {
    const { devices } = await start(true, true);
    const known = devices.get(SERIAL)!;
    const caps = { compatible: 'edgecore_eap101', model: 'EAP101', platform: 'ap', country: 'CA' };
    const connects: [string, Record<string, unknown>][] = [
      [SERIAL, { uuid: 99, firmware: 'other', capabilities: caps }],
      ['c0ffee000002', { uuid: 7, firmware: 'fw-2', capabilities: caps }],
      ['c0ffee000003', { uuid: 8, firmware: 'fw-3', capabilities: { compatible: 'unknown_model', platform: 'switch' } }],
      ['c0ffee000003', { uuid: 9, firmware: 'fw-4', capabilities: {} }],
    ];
    await runtime!.provisionAll(connects);
    expect(devices.get(SERIAL)).toEqual(known);
    expect(devices.get('c0ffee000002')).toMatchObject({ firmware: 'fw-2', manufacturer: 'EAP101', locale: 'CA', deviceType: 'AP' });
    expect(devices.get('c0ffee000002')!.notes[0]!.note).toMatch(/default configuration eap101/);
    // The first connect of a serial wins; no default configuration: the AP's own uuid.
    expect(devices.get('c0ffee000003')).toMatchObject({ firmware: 'fw-3', UUID: 8, deviceType: 'SWITCH', configuration: '{"uuid":8}' });
    const reread = await DevicesRepo.load(store!);
    expect(reread.get('c0ffee000002')).toEqual(devices.get('c0ffee000002'));
    expect(reread.get('c0ffee000003')).toEqual(devices.get('c0ffee000003'));
  });

  it('stores each AP\'s last contact on its record at close, so a data dir served again says when it was last heard from', async () => {
    const { devices, link, clock } = await start(true);
    const provisioned = devices.get(SERIAL)!.lastRecordedContact;
    clock.set(T0 + 90_000);
    link.notify('healthcheck', { uuid: 1, sanity: 100, data: {} });
    await until('the healthcheck seen', async () => runtime!.fleet.status(SERIAL)?.lastContact, (t) => t === (T0 + 90_000) / 1000, 10_000);
    await runtime!.close();
    runtime = undefined;
    expect(provisioned).toBe(T0 / 1000);
    expect(devices.get(SERIAL)!.lastRecordedContact).toBe((T0 + 90_000) / 1000);
    expect((await DevicesRepo.load(store!)).get(SERIAL)!.lastRecordedContact).toBe((T0 + 90_000) / 1000);
  });

  it('provisionAll stores nothing with --no-auto-provision', async () => {
    const { devices } = await start(false);
    await runtime!.provisionAll([['c0ffee000002', { uuid: 7, capabilities: {} }]]);
    expect(devices.size).toBe(0);
    expect((await DevicesRepo.load(store!)).size).toBe(0);
  });

  it('provision and provisionAll of the same serial at the same time store one record, and neither fails', async () => {
    const { devices } = await start(true);
    const params = (uuid: number) => ({ uuid, firmware: `fw-${uuid}`, capabilities: { compatible: 'edgecore_eap101' } });
    // A replay's provisioning while a live AP with a recorded serial connects, in both orders.
    const all = runtime!.provisionAll([['c0ffee000002', params(2)], ['c0ffee000003', params(3)]]);
    const live = runtime!.provision('c0ffee000002', params(20));
    const first = runtime!.provision('c0ffee000005', params(5));
    const later = runtime!.provisionAll([['c0ffee000005', params(50)], ['c0ffee000006', params(6)]]);
    await expect(Promise.all([all, live, first, later])).resolves.toEqual([undefined, 'accept', 'accept', undefined]);
    expect(devices.get('c0ffee000002')!.firmware).toBe('fw-2');
    expect(devices.get('c0ffee000005')!.firmware).toBe('fw-5');
    const rows = await store!.query<{ serial: string }>(`SELECT serial FROM devices WHERE serial <> '${SERIAL}' ORDER BY serial`);
    expect(rows.map((r) => r.serial)).toEqual(['c0ffee000002', 'c0ffee000003', 'c0ffee000005', 'c0ffee000006']);
  });
});
