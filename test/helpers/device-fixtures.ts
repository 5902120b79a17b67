import { SimulatedClock, createActor } from 'xstate';
import { blankCommand, COMMAND_TIMEOUT_MS } from '../../actors/device/command-lifecycle.js';
import type { DeviceEvent, DeviceEventOf, DeviceEventType } from '../../actors/device/device.events.js';
import { deviceMachine } from '../../actors/device/device.machine.js';
import type { CommandSubmission, DeviceDeps, DeviceTimeouts, RestartKind } from '../../actors/device/device.types.js';
import type { CommandMethod, JsonObject } from '../../src/protocol/frame.js';
import { FakeLink } from './fake-link.js';

export const SERIAL = 'aabbccddeeff';
export const T0 = 1_700_000_000_000;

export interface DeviceOptions {
  blacklisted?: () => boolean;
  admit?: DeviceDeps['admit'];
  stored?: DeviceDeps['storedConfigFor'];
  timeouts?: Partial<DeviceTimeouts>;
  maxPending?: number;
}

/** A real device actor on a simulated clock and a scripted link, recording what it emits. */
export function startDevice(opts: DeviceOptions = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const link = new FakeLink(SERIAL, () => clock.now());
  let n = 0;
  const deps: DeviceDeps = {
    now: () => clock.now(),
    newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    isBlacklisted: () => opts.blacklisted?.() ?? false,
    admit: opts.admit ?? (async () => 'accept'),
    storedConfigFor: opts.stored ?? (() => undefined),
  };
  const actor = createActor(deviceMachine, { input: { serial: SERIAL, deps, link, timeouts: opts.timeouts, maxPending: opts.maxPending }, clock });
  const events: DeviceEvent[] = [];
  actor.on('*', (e) => events.push(e));
  actor.start();
  const of = <T extends DeviceEventType>(type: T) => events.filter((e): e is DeviceEventOf<T> => e.type === type);
  const commandUpdates = (uuid: string) => of('command-updated').filter((e) => e.payload.command.UUID === uuid).map((e) => e.payload.command);
  const lastRecord = (uuid: string) => commandUpdates(uuid).at(-1);
  return { clock, link, actor, events, of, commandUpdates, lastRecord, deps, value: () => actor.getSnapshot().value };
}

let seq = 0;
/** A submission as the command service would build it. */
export function submission(method: CommandMethod, opts: {
  params?: JsonObject; queueable?: boolean; runAt?: number; timeoutMs?: number; restart?: RestartKind; awaitResult?: boolean; uuid?: string;
} = {}): CommandSubmission {
  const uuid = opts.uuid ?? `10000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
  const params = { serial: SERIAL, ...opts.params };
  return {
    command: blankCommand({ UUID: uuid, command: method, serialNumber: SERIAL, submitted: Math.floor(T0 / 1000), submittedBy: 'test', details: JSON.stringify(params) }),
    method,
    params,
    timeoutMs: opts.timeoutMs ?? COMMAND_TIMEOUT_MS[method] ?? 60_000,
    queueable: opts.queueable ?? ['configure', 'upgrade', 'factory'].includes(method),
    awaitResult: opts.awaitResult ?? true,
    restart: opts.restart,
    runAt: opts.runAt ?? 0,
  };
}
