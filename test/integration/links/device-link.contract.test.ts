/** Runs the DeviceLink contract against SimLink (virtual clock) and NatsLink (edge + real nats-server). */
import { afterAll, beforeAll } from 'vitest';
import { SimLink } from '../../../simulator/link.js';
import { loadScenario } from '../../../simulator/scenario.js';
import { createEdge } from '../../../src/links/edge/edge-server.js';
import { connectNats, silentLogger } from '../../../src/links/nats/connect.js';
import { NatsLinkManager } from '../../../src/links/nats/nats-link-manager.js';
import type { NatsLink } from '../../../src/links/nats/nats-link.js';
import { WsApClient } from '../../../src/links/sim-ws-client.js';
import type { LinkEvent } from '../../../src/protocol/device-link.js';
import { flush } from '../../helpers/fake-link.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { venueOf } from '../../helpers/sim-venue.js';
import { describeDeviceLinkContract, type LinkHarness } from './device-link.contract.js';

describeDeviceLinkContract('SimLink', async (): Promise<LinkHarness> => {
  const { venue, clock } = venueOf(loadScenario('lab').scenario, 7);
  const serial = venue.aps[0]!.serial;
  const link = new SimLink(venue, serial, { connectDelayMs: 1000, autoStart: false });
  let dropped = false;
  link.subscribe((e) => { if (e.type === 'disconnected') dropped = true; });
  return {
    serial,
    start: async (listener) => { link.subscribe(listener); },
    link: () => link,
    connectAp: async () => { link.start(); },
    until: async (cond, maxMs = 60_000) => {
      for (let t = 0; t < maxMs && !cond(); t += 500) {
        clock.runUntil(clock.now() + 500);
        await flush();
      }
      return cond();
    },
    // A simulated AP leaves by rebooting (the only way it goes away on its own).
    dropAp: () => link.send({ jsonrpc: '2.0', id: 5, method: 'reboot', params: { serial } }),
    apWasDropped: () => dropped,
    // Fault injection: the simulated AP puts this text on the link as if it had sent it.
    apSend: (f) => link.injectRaw(JSON.stringify(f)),
    apSendRaw: (text) => link.injectRaw(text),
    teardown: () => link.close(),
  };
});

let nats: TestNats;
beforeAll(async () => { nats = await startNats({ jetstream: true }); });
afterAll(async () => { await nats?.stop(); });

let n = 0;
describeDeviceLinkContract('NatsLink (edge over websockets)', async (): Promise<LinkHarness> => {
  const serial = `c0ffee0000${String(++n).padStart(2, '0')}`;
  const nc = await connectNats({ url: nats.url, name: 'contract', logger: silentLogger });
  const edge = await createEdge({ port: 0, host: '127.0.0.1', nats: nc, logger: silentLogger });
  let listener: ((e: LinkEvent) => void) | undefined;
  let link: NatsLink | undefined;
  const manager = await NatsLinkManager.start({
    nc, logger: silentLogger, durable: `contract-${n}`,
    onDevice: (l) => { if (l.serial === serial) { link = l; l.subscribe((e) => listener?.(e)); } },
  });
  let ap: WsApClient | undefined;
  let apClosed = false;
  // An echo AP: answers every command with a success result.
  const openAp = () => new WsApClient({
    url: `${edge.url}/device`,
    onCommand: (f) => ap?.send({ jsonrpc: '2.0', id: f.id, result: { serial, status: { error: 0, text: 'ok' } } }),
    onClose: () => { apClosed = true; },
  });
  return {
    serial,
    start: async (l) => { listener = l; },
    link: () => link!,
    connectAp: async () => {
      ap = openAp();
      await ap.opened;
      ap.send({ jsonrpc: '2.0', method: 'connect', params: { serial, uuid: 1, firmware: 'fw', capabilities: { compatible: 'x' } } });
    },
    until: async (cond, maxMs = 10_000) => {
      for (let t = 0; t < Math.min(maxMs, 15_000) && !cond(); t += 20) await new Promise((r) => setTimeout(r, 20));
      return cond();
    },
    dropAp: async () => { await ap?.close(); },
    apWasDropped: () => apClosed,
    apSend: (f) => ap?.send(f),
    apSendRaw: (text) => ap?.send(text),
    teardown: async () => {
      ap?.terminate();
      await manager.close();
      await edge.close();
      await nc.close();
    },
  };
});
