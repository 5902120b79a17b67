/**
 * Runs the DeviceLink contract (test/integration/links/device-link.contract.ts) against the
 * ReplayLink, driven by the real replayer reading a recording on a VirtualClock at speed 1, so
 * lines play as the harness advances virtual time. The AP side is the recording: it connects,
 * logs, and holds one recorded ping exchange (down id 77, its result 40 ms later) that answers
 * the contract's ping whatever id the caller uses. A replayed AP cannot send malformed text
 * (the reader rejects a bad line before it reaches a link), so that case is skipped here; the
 * replayer's own tests cover malformed lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterAll } from 'vitest';
import type { DeviceEvent } from '../../../actors/device/device.events.js';
import { VirtualClock } from '../../../simulator/clock.js';
import type { DeviceLink, LinkEvent } from '../../../src/protocol/device-link.js';
import type { JsonObject } from '../../../src/protocol/frame.js';
import { startReplay } from '../../../src/links/replay/replayer.js';
import type { ReplayLink } from '../../../src/links/replay/replay-link.js';
import { flush } from '../../helpers/fake-link.js';
import { describeDeviceLinkContract, type LinkHarness } from '../links/device-link.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERIAL = 'feedbeef0001';
const T = 1_767_600_000_000;

function recording(): string {
  const up = (t: number, frame: JsonObject) => JSON.stringify({ t, serial: SERIAL, dir: 'up', frame });
  const lines = [
    JSON.stringify({ t: T, serial: SERIAL, event: 'connect' }),
    up(T, { jsonrpc: '2.0', method: 'connect', params: { serial: SERIAL, uuid: 1, firmware: 'fw', capabilities: { compatible: 'x' } } }),
    JSON.stringify({ t: T, serial: SERIAL, dir: 'down', frame: { jsonrpc: '2.0', id: 77, method: 'ping', params: { serial: SERIAL } } }),
    up(T + 40, { jsonrpc: '2.0', id: 77, result: { serial: SERIAL, uuid: 1, status: { error: 0, text: 'pong' } } }),
    ...Array.from({ length: 10 }, (_, i) => up(T + 10_000 * (i + 1), { jsonrpc: '2.0', method: 'log', params: { serial: SERIAL, log: `recorded ${i}`, severity: 6 } })),
  ];
  const file = join(dir, 'contract.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describeDeviceLinkContract('ReplayLink (replayer on a recording)', async (): Promise<LinkHarness> => {
  const file = recording();
  const clock = new VirtualClock(T);
  let link: ReplayLink | undefined;
  let listener: ((e: LinkEvent) => void) | undefined;
  let closed = false;
  let replay: ReturnType<typeof startReplay> | undefined;
  // The harness is the device actor's side: it listens to the link and lets the contract send.
  const fleet = {
    events$: new Subject<DeviceEvent>(),
    attach: (l: DeviceLink) => {
      link = l as ReplayLink;
      l.subscribe((e) => listener?.(e));
      const close = l.close.bind(l);
      l.close = (reason?: string) => { closed = true; return close(reason); };
    },
    submit: () => undefined,
  };
  const until = async (cond: () => boolean, maxMs = 60_000) => {
    for (let t = 0; t < maxMs && !cond(); t += 20) {
      clock.runUntil(clock.now() + 20);
      for (let i = 0; i < 5; i++) await flush();
    }
    return cond();
  };
  return {
    serial: SERIAL,
    start: async (l) => { listener = l; },
    link: () => link!,
    connectAp: async () => {
      let played = 0;
      replay = startReplay({ file, fleet, clock, speed: 1, keepTime: true, progressEvery: 1, onProgress: (p) => { played = p.lines; } });
      // Lines come off the disk asynchronously. Wait (polling; the test's timeout bounds it) for
      // the three lines at T (the connect, the AP's connect frame, the recorded ping the
      // contract's ping will match) without moving virtual time past them, so the recorded ping
      // result (40 ms later) is still ahead when the contract sends its ping; advancing first
      // could play it before anyone asked, and a ping sent before the recorded one was read
      // would be refused.
      while (!(link?.connected && played >= 3)) {
        clock.runUntil(T);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    until,
    // A recorded disconnect, as the replayer plays one.
    dropAp: async () => { link?.disconnect(); },
    apWasDropped: () => closed,
    // Scripted frames go through the same path as recorded `up` lines.
    apSend: (f) => { link?.deliver(f as JsonObject, JSON.stringify(f).length); },
    teardown: async () => {
      replay?.stop();
      await replay?.done;
    },
  };
});
