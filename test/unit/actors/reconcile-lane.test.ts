import { describe, expect, it } from 'vitest';
import { initialContext, plainNotificationStep } from '../../../actors/device/device.logic.js';
import { DEFAULT_TIMEOUTS, type DeviceDeps, type StoredConfig } from '../../../actors/device/device.types.js';
import { decodeFrame } from '../../../actors/device/frame-decoder.js';

/**
 * A state from an AP that runs its stored configuration has nothing to reconcile, so it stays on
 * the notification lane (no machine step); only a stored configuration newer than the AP's,
 * not pushed yet, sends the state through the machine, which queues the configure.
 */
const SERIAL = 'aabbccddeeff';
const T = 1_700_000_000_000;

function contextWith(stored: StoredConfig | undefined, deviceUuid: number, pushed?: number) {
  const deps: DeviceDeps = {
    now: () => T, newId: () => '00000000-0000-4000-8000-000000000001',
    isBlacklisted: () => false, admit: async () => 'accept', storedConfigFor: () => stored,
  };
  const ctx = initialContext(SERIAL, deps, DEFAULT_TIMEOUTS, 10);
  return { ...ctx, linkUp: true, sessionOpen: true, provisioned: true, pushedConfigUuid: pushed, status: { ...ctx.status, UUID: deviceUuid, connected: true } };
}

function stateFrame(uuid: number) {
  const decoded = decodeFrame({ jsonrpc: '2.0', method: 'state', params: { serial: SERIAL, uuid, state: { unit: { uptime: 10 }, radios: [] } } });
  if (decoded.kind !== 'notification') throw new Error(`not a notification: ${decoded.kind}`);
  return decoded;
}

const config = (uuid: number): StoredConfig => ({ uuid, configuration: JSON.stringify({ uuid, radios: [] }) });

describe('reconciliation and the notification lane', () => {
  it('keeps a state on the lane when the AP runs its stored configuration, or a newer one', () => {
    expect(plainNotificationStep(contextWith(config(5), 5), 100, stateFrame(5), T)).toBeDefined();
    expect(plainNotificationStep(contextWith(config(5), 7), 100, stateFrame(7), T)).toBeDefined();
    expect(plainNotificationStep(contextWith(undefined, 5), 100, stateFrame(5), T)).toBeDefined();
  });

  it('sends a state through the machine when the stored configuration is newer and not pushed yet', () => {
    expect(plainNotificationStep(contextWith(config(9), 5), 100, stateFrame(5), T)).toBeUndefined();
    // Once pushed, the lane takes the states again until the AP reports the new uuid.
    expect(plainNotificationStep(contextWith(config(9), 5, 9), 100, stateFrame(5), T)).toBeDefined();
  });
});

describe('the notification lane and late frames', () => {
  it('dates the event by when the link says the frame was sent, never later than now', () => {
    const late = plainNotificationStep(contextWith(undefined, 5), 100, stateFrame(5), T - 60_000);
    expect(late?.emit.map((e) => e.at)).toEqual([T - 60_000]);
    const ahead = plainNotificationStep(contextWith(undefined, 5), 100, stateFrame(5), T + 60_000);
    expect(ahead?.emit.map((e) => e.at)).toEqual([T]);
    const garbled = plainNotificationStep(contextWith(undefined, 5), 100, stateFrame(5), Number.NaN);
    expect(garbled?.emit.map((e) => e.at)).toEqual([T]);
  });
});
