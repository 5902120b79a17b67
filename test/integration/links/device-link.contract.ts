/**
 * One contract for every DeviceLink adapter: connect, ordering, command result
 * matching, close, malformed frame handling. A runner registers an adapter through a harness
 * that plays the AP side; the suite never learns which adapter it tests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceLink, LinkEvent } from '../../../src/protocol/device-link.js';
import { isObject } from '../../../src/protocol/frame.js';

export interface LinkHarness {
  readonly serial: string;
  /** Subscribe `listener` to the link as soon as it exists (at once, or when the adapter discovers the AP). */
  start(listener: (e: LinkEvent) => void): Promise<void>;
  /** The link; defined once the AP connected. */
  link(): DeviceLink;
  /** The AP comes online and sends its `connect`. */
  connectAp(): Promise<void>;
  /** Let the AP side run until `cond` holds (virtual or real time), bounded by `maxMs`. */
  until(cond: () => boolean, maxMs?: number): Promise<boolean>;
  /** The AP goes away on its own (reboot, socket closed). */
  dropAp(): Promise<void>;
  /** After `link.close()`: the AP side saw its connection end. */
  apWasDropped(): boolean;
  /** Adapters whose AP can be scripted: send a frame / raw text up. */
  apSend?(frame: object): void;
  apSendRaw?(text: string): void;
  teardown(): Promise<void>;
}

const frames = (events: LinkEvent[]) => events.filter((e): e is Extract<LinkEvent, { type: 'frame' }> => e.type === 'frame');

export function describeDeviceLinkContract(adapter: string, make: () => Promise<LinkHarness>): void {
  describe(`DeviceLink contract: ${adapter}`, () => {
    let h: LinkHarness | undefined;
    const events: LinkEvent[] = [];
    const open = async () => {
      events.length = 0;
      h = await make();
      await h.start((e) => events.push(e));
      await h.connectAp();
      expect(await h.until(() => frames(events).length > 0)).toBe(true);
      return h;
    };
    afterEach(async () => {
      await h?.teardown();
      h = undefined;
    });

    it('reports connected first, then the AP\'s connect frame for its serial', async () => {
      const t = await open();
      expect(events[0]?.type).toBe('connected');
      const first = frames(events)[0]!;
      expect(first.frame).toMatchObject({ jsonrpc: '2.0', method: 'connect', params: { serial: t.serial } });
      expect(first.bytes).toBeGreaterThan(0);
      expect(t.link().serial).toBe(t.serial);
    });

    it('delivers events in order with non-decreasing times', async () => {
      const t = await open();
      if (t.apSend) for (let i = 0; i < 20; i++) t.apSend({ jsonrpc: '2.0', method: 'log', params: { serial: t.serial, log: `n${i}`, severity: 6 } });
      // With scripted frames, wait for all of them (the connect frame and 20 logs): over NATS they
      // arrive asynchronously, and 4 frames could be in before the rest.
      expect(await t.until(() => frames(events).length >= (t.apSend ? 21 : 4), 180_000)).toBe(true);
      const at = events.map((e) => e.at);
      expect(at).toEqual([...at].sort((a, b) => a - b));
      if (t.apSend) {
        const logs = frames(events).map((f) => ('result' in f.frame ? undefined : (f.frame as { params: { log?: string } }).params.log)).filter((l) => l?.startsWith('n'));
        expect(logs).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
      }
    });

    it('answers a command with a result frame carrying the same id and serial', async () => {
      const t = await open();
      await t.link().send({ jsonrpc: '2.0', id: 4242, method: 'ping', params: { serial: t.serial } });
      const answered = () => frames(events).find((f) => (f.frame as { id?: number }).id === 4242);
      expect(await t.until(() => answered() !== undefined, 30_000)).toBe(true);
      const result = (answered()!.frame as { result: unknown }).result;
      expect(isObject(result) && result.serial).toBe(t.serial);
    });

    it('reports disconnected when the AP leaves, and then refuses to send with DEVICE_OFFLINE', async () => {
      const t = await open();
      await t.dropAp();
      expect(await t.until(() => events.some((e) => e.type === 'disconnected'), 30_000)).toBe(true);
      await expect(t.link().send({ jsonrpc: '2.0', id: 9, method: 'ping', params: { serial: t.serial } })).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    });

    it('close() drops the AP and reports disconnected once', async () => {
      const t = await open();
      await t.link().close('contract test');
      expect(await t.until(() => t.apWasDropped() && events.some((e) => e.type === 'disconnected'), 10_000)).toBe(true);
      await t.until(() => false, 200);
      expect(events.filter((e) => e.type === 'disconnected')).toHaveLength(1);
    });

    it('reports a malformed frame as an event, never a throw, and keeps going', async (ctx) => {
      const t = await open();
      if (!t.apSendRaw || !t.apSend) return ctx.skip(); // this adapter's AP cannot send malformed text
      t.apSendRaw('{"not": "a frame"');
      t.apSend({ jsonrpc: '2.0', method: 'log', params: { serial: t.serial, log: 'after', severity: 6 } });
      const after = () => frames(events).some((f) => (f.frame as { params?: { log?: string } }).params?.log === 'after');
      expect(await t.until(after)).toBe(true);
      const bad = events.find((e) => e.type === 'malformed');
      expect(bad).toMatchObject({ type: 'malformed', reason: expect.any(String) });
      expect(bad!.type === 'malformed' && bad!.bytes).toBeGreaterThan(0);
    });
  });
}
