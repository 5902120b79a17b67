import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Fleet, type FleetEvent } from '../../../actors/fleet.js';
import { startSimulateLoad, type LoadRun } from '../../../src/runtime/simulate-load.js';
import { ConfigError } from '../../../src/config/flags.js';
import { loadServeConfig } from '../../../src/config/load.js';
import { connectNats, silentLogger, type LinkLogger } from '../../../src/links/nats/connect.js';
import { NatsLinkManager } from '../../../src/links/nats/nats-link-manager.js';
import { STREAM, ensureConsumer, ensureStream, upSubject } from '../../../src/links/nats/subjects.js';
import { wallClock } from '../../../src/protocol/clock.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { logFrame } from './frames.js';
import { apAgent, startEdgeSide, startNats, waitFor, type EdgeSide, type TestNats } from './harness.js';

/** nats-server 2.10 filters a consumer on a subject that only overlaps the stream's; 2.9 refuses it. */
const filtersOnServer = (nc: NatsConnection): boolean => {
  const [major, minor] = (nc.info?.version ?? '0.0').split('.').map(Number);
  return major! > 2 || (major === 2 && minor! >= 10);
};

/**
 * Two serve workers split the fleet of one edge: each has its own durable and a filter on its
 * serial, so each fleet, data dir and command path holds only its own AP.
 */
describe('serve workers split a fleet by --nats-filter', () => {
  const [serialA, serialB] = ['a0b1c2000001', 'a0b1c2000002'];
  let nats: TestNats;
  let edge: EdgeSide;
  let load: LoadRun;
  let workerA: TestServer;
  let workerB: TestServer;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    workerA = await startTestServer({ nats: nats.url, natsDurable: 'wa', natsFilter: [`ucentral.${serialA}.*`] });
    workerB = await startTestServer({ nats: nats.url, natsDurable: 'wb', natsFilter: [`ucentral.${serialB}.*`] });
    edge = await startEdgeSide(nats.url);
    // The lab venue's first two APs, both through the one edge.
    load = await startSimulateLoad({ scenario: 'lab', edge: edge.edge.url, speed: 10, limit: 2 });
  }, 120_000);
  afterAll(async () => {
    await load?.stop();
    await edge?.stop();
    await workerA?.close();
    await workerB?.close();
    await nats?.stop();
  });

  const health = async (w: TestServer) => (await (await fetch(`${w.running.gatewayUrl}/health`)).json()) as { links: { nats: Record<string, unknown> } };

  it('gives each worker only its own AP, with its state reports', async () => {
    const reporting = (w: TestServer, s: string) => () => w.running.fleet.status(s)?.connected === true && w.running.fleet.details(s)?.lastState !== undefined;
    expect(await waitFor(reporting(workerA, serialA), 20_000)).toBe(true);
    expect(await waitFor(reporting(workerB, serialB), 20_000)).toBe(true);
    expect(edge.edge.stats().sessions).toBe(2);

    for (const [w, own, other] of [[workerA, serialA, serialB], [workerB, serialB, serialA]] as const) {
      expect(w.running.fleet.details(other)).toBeUndefined();
      expect((await w.gw('GET', '/devices?serialOnly=true')).body).toEqual({ serialNumbers: [own] });
      // The state frames became rows of this worker's DuckDB, and none of the other AP's.
      await w.running.ingest.flush();
      const serials = await w.running.store.query<{ serial: string }>('SELECT DISTINCT serial FROM statistics');
      expect(serials.map((r) => r.serial)).toEqual([own]);
    }
  });

  it('reports durable, filter and who applies it in /health', async () => {
    const server = filtersOnServer(edge.nc);
    const a = (await health(workerA)).links.nats;
    const b = (await health(workerB)).links.nats;
    expect(a).toMatchObject({ state: 'connected', durable: 'wa', filter: [`ucentral.${serialA}.*`], filtering: server ? 'server' : 'client', devices: 1, connectedDevices: 1 });
    expect(b).toMatchObject({ state: 'connected', durable: 'wb', filter: [`ucentral.${serialB}.*`], filtering: server ? 'server' : 'client', devices: 1, connectedDevices: 1 });
    // Filtered by the worker: it received the other AP's messages and skipped them.
    if (!server) expect(a.outside).toBeGreaterThan(0);
    else expect(a.outside).toBe(0);
  });

  it('runs a command from each worker on its own AP and gets the result back there', async () => {
    const pingA = await workerA.gw('POST', `/device/${serialA}/ping`);
    expect(pingA.status).toBe(200);
    expect(pingA.body).toMatchObject({ serialNumber: serialA });
    const pingB = await workerB.gw('POST', `/device/${serialB}/ping`);
    expect(pingB.status).toBe(200);
    expect(pingB.body).toMatchObject({ serialNumber: serialB });

    const cfg = await workerB.gw('POST', `/device/${serialB}/configure`, { body: { configuration: { radios: [{ band: '5G', channel: 44, 'channel-width': 20, 'tx-power': 15 }] } } });
    expect(cfg.status).toBe(200);
    expect(cfg.body).toMatchObject({ status: 'completed', errorCode: 0 });

    // The other worker's AP is not in this worker's fleet: no command goes to it from here.
    expect((await workerA.gw('POST', `/device/${serialB}/ping`)).status).toBe(404);
    expect((await workerB.gw('POST', `/device/${serialA}/ping`)).status).toBe(404);
  });
});

/** A durable asked for another filter than the one it was made for is made again from its ack floor. */
describe('a durable whose filter changes', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });
  const [s1, s2] = ['a0b1c2000031', 'a0b1c2000032'];
  const logsOf = (events: FleetEvent[], serial: string) => events.filter((e) => e.type === 'log' && e.serial === serial).map((e) => (e.payload as { log: string }).log);

  async function setup() {
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const nc = await connectNats({ url: nats.url, name: 'ap-agent', logger: silentLogger });
    cleanups.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm);
    return { nats, nc, jsm };
  }

  it('sends one subject as filter_subject (nats-server 2.9 refuses filter_subjects) and keeps or remakes the durable', async () => {
    const { nc, jsm } = await setup();
    // ucentral.<serial>.up lies within a stream subject, so every nats-server filters on it.
    expect(await ensureConsumer(jsm, 'one', [`ucentral.${s1}.up`])).toEqual({ made: 'created', filtering: 'server' });
    expect((await jsm.consumers.info(STREAM, 'one')).config.filter_subject).toBe(`ucentral.${s1}.up`);
    expect(await ensureConsumer(jsm, 'one', [`ucentral.${s1}.up`])).toEqual({ made: 'kept', filtering: 'server' });
    expect(await ensureConsumer(jsm, 'one', [`ucentral.${s2}.up`])).toEqual({ made: 'refiltered', filtering: 'server' });
    expect((await jsm.consumers.info(STREAM, 'one')).config.filter_subject).toBe(`ucentral.${s2}.up`);

    const two = [`ucentral.${s1}.*`, `ucentral.${s2}.*`];
    const made = await ensureConsumer(jsm, 'two', two);
    if (filtersOnServer(nc)) {
      expect(made).toEqual({ made: 'created', filtering: 'server' });
      expect((await jsm.consumers.info(STREAM, 'two')).config.filter_subjects).toEqual(two);
    } else {
      // The worker filters instead, and says why.
      expect(made).toMatchObject({ made: 'created', filtering: 'client', refused: expect.stringMatching(/filter_subjects' requires server 2\.10/) });
      expect((await jsm.consumers.info(STREAM, 'two')).config.filter_subject ?? '').toBe('');
      // Made for those two already: kept at the next start, not made again.
      expect(await ensureConsumer(jsm, 'two', two)).toEqual({ made: 'kept', filtering: 'client' });
    }
    // No filter any more: the whole stream again.
    expect(await ensureConsumer(jsm, 'two', [])).toEqual({ made: 'refiltered', filtering: 'none' });
  });

  it('a worker moved to another serial gets that serial from the ack floor on, and nothing of the old one', async () => {
    const { nats, nc } = await setup();
    const { pub, session } = apAgent(nc, [s1, s2]);
    for (const s of [s1, s2]) {
      await session(s);
      await pub(upSubject(s), logFrame(s, `${s} before`));
    }

    const worker = async (filter: string, logger: LinkLogger = silentLogger) => {
      const fleet = new Fleet({ clock: wallClock, newId: randomUUID });
      const events: FleetEvent[] = [];
      fleet.events$.subscribe((e) => events.push(e));
      const manager = await NatsLinkManager.start({ url: nats.url, logger, durable: 'wf', filterSubjects: [filter], onDevice: (l) => fleet.attach(l), persisted: () => Promise.resolve() });
      const stop = async () => {
        await manager.close();
        fleet.stopAll();
      };
      cleanups.push(stop);
      return { fleet, events, manager, stop };
    };

    const first = await worker(`ucentral.${s1}.*`);
    expect(await waitFor(() => logsOf(first.events, s1).length === 1)).toBe(true);
    expect(first.fleet.details(s2)).toBeUndefined();
    await first.stop(); // acknowledges everything it took: the ack floor is past both "before" logs
    expect(first.manager.status().unacked).toBe(0);

    await pub(upSubject(s1), logFrame(s1, `${s1} after`));
    await pub(upSubject(s2), logFrame(s2, `${s2} after`));
    const warnings: string[] = [];
    const second = await worker(`ucentral.${s2}.*`, { ...silentLogger, warn: (_o, msg) => warnings.push(msg ?? '') });
    expect(await waitFor(() => logsOf(second.events, s2).length >= 1 && second.fleet.status(s2)?.connected === true)).toBe(true);
    // A last frame: the stream delivers in order, so once it is here nothing before it is to come.
    await pub(upSubject(s2), logFrame(s2, `${s2} last`));
    expect(await waitFor(() => logsOf(second.events, s2).includes(`${s2} last`))).toBe(true);
    expect(logsOf(second.events, s2)).toEqual([`${s2} after`, `${s2} last`]);
    expect(second.fleet.details(s1)).toBeUndefined();
    expect(second.manager.status()).toMatchObject({ durable: 'wf', filter: [`ucentral.${s2}.*`], devices: 1 });
    expect(warnings.some((w) => /made for another filter/.test(w))).toBe(true);
  });
});

describe('--nats-durable and --nats-filter settings', () => {
  const nats = 'nats://127.0.0.1:4999';

  it('reads them from flags and env, the filter as a comma-separated list', () => {
    expect(loadServeConfig({ flags: {}, env: {} }).natsDurable).toBe('airtwin-serve');
    const c = loadServeConfig({ flags: { nats, natsDurable: 'wa' }, env: { AIRTWIN_NATS_FILTER: 'ucentral.a0b1c2300047.*, ucentral.a0b1c2300048.*' } });
    expect(c.natsDurable).toBe('wa');
    expect(c.natsFilter).toEqual(['ucentral.a0b1c2300047.*', 'ucentral.a0b1c2300048.*']);
    expect(loadServeConfig({ flags: { nats }, env: { AIRTWIN_NATS_DURABLE: 'wb', AIRTWIN_NATS_FILTER: 'ucentral.*.*' } })).toMatchObject({ natsDurable: 'wb', natsFilter: ['ucentral.*.*'] });
  });

  it.each([
    ['ucentral.a0b1c23*.*', /--nats-filter: "ucentral\.a0b1c23\*\.\*" is invalid: a wildcard must be a whole token/],
    ['devices.a0b1c2300047.*', /--nats-filter: .* not a subject under ucentral\./],
    ['ucentral.A0B1C2300047.*', /--nats-filter: .* A0B1C2300047 is not a serial/],
    ['ucentral.a0b1c2300047.down', /--nats-filter: .* only \.up and \.presence/],
    ['ucentral.a0b1c2300047', /--nats-filter: .* matches no/],
    ['ucentral.>.up', /--nats-filter: .* > must be the last token/],
    ['ucentral.*.*,ucentral.a0b1c2300047.*', /--nats-filter: ucentral\.\*\.\* and ucentral\.a0b1c2300047\.\* overlap/],
  ])('refuses the filter %s naming the flag', (filter, message) => {
    expect(() => loadServeConfig({ flags: { nats, natsFilter: filter }, env: {} })).toThrow(ConfigError);
    expect(() => loadServeConfig({ flags: { nats, natsFilter: filter }, env: {} })).toThrow(message);
  });

  it('refuses a filter without --nats and a durable NATS cannot name', () => {
    expect(() => loadServeConfig({ flags: { natsFilter: 'ucentral.*.*' }, env: {} })).toThrow(/--nats-filter: needs --nats/);
    expect(() => loadServeConfig({ flags: { nats, natsDurable: 'a.b' }, env: {} })).toThrow(/--nats-durable/);
  });

  it('airtwin serve exits 2 with one line naming --nats-filter', () => {
    const bin = new URL('../../../bin/airtwin.mjs', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [bin, 'serve', '--nats', nats, '--nats-filter', 'ucentral.a0b1c23*.*'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^airtwin: --nats-filter: "ucentral\.a0b1c23\*\.\*" is invalid/);
  }, 120_000);
});
