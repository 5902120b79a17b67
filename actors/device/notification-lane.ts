import type { DeviceEvent } from './device.events.js';
import type { DeviceContext } from './device.logic.js';
import type { LinkMachineEvent } from './link-actor.js';

/**
 * The notification lane (docs/actors.md, "Notification lane"): a plain notification (state,
 * healthcheck, log, telemetry...) on an open session changes three context fields and emits one
 * event. The machine declares when that is all it would do (device.machine.ts
 * `notificationFastPath`, read from its own `link.frame` transitions); the link actor then
 * applies that step here without a machine step: that step (snapshot, context copy, state-node
 * sets) cost about as much as everything else per frame, and nearly every frame of a fleet is
 * such a notification.
 */

export interface LaneStep {
  ctx: Partial<DeviceContext>;
  emit: DeviceEvent[];
}

/** The machine's fast path (device.machine.ts `notificationFastPath`). */
export type FastPath = (ctx: DeviceContext, online: boolean, event: Extract<LinkMachineEvent, { type: 'link.frame' }>) => LaneStep | undefined;

/** The part of the device actor the lane reads: its current snapshot. */
export interface LaneDevice {
  getSnapshot(): { status: string; value: unknown; context: DeviceContext };
}

/** Whether a snapshot's state value is `online` or one of its children. */
function isOnline(value: unknown): boolean {
  return value === 'online' || (typeof value === 'object' && value !== null && 'online' in value);
}

/**
 * Applies a plain notification to `device` when the machine's fast path takes it; returns false
 * when the machine must. The update is written into the current snapshot's context (the one
 * place outside the machine that writes it): the next machine step starts from it, as it would
 * from the context `handleNotification` had assigned. Events go to `deps.notificationLane.publish`, where
 * the fleet sends the machine's emitted events too.
 */
export function tryNotificationLane(device: LaneDevice, fastPath: FastPath, event: Extract<LinkMachineEvent, { type: 'link.frame' }>): boolean {
  const snap = device.getSnapshot() as ReturnType<LaneDevice['getSnapshot']> | undefined;
  // No snapshot yet: a link that reports while the actor is still being created.
  if (!snap || snap.status !== 'active') return false;
  const ctx = snap.context;
  const notificationLane = ctx.deps.notificationLane;
  if (!notificationLane || !notificationLane.open()) return false;
  let step: LaneStep | undefined;
  try {
    step = fastPath(ctx, isOnline(snap.value), event);
  } catch {
    // A hook that throws (isBlacklisted, storedConfigFor): the machine runs the same step and
    // deals with the error as it always did, instead of the link that delivered the frame.
    return false;
  }
  if (!step) return false;
  Object.assign(ctx, step.ctx);
  for (const e of step.emit) notificationLane.publish(e);
  return true;
}
