import type { DeviceEvent } from './device.events.js';
import { frameViolation, plainNotificationStep, type DeviceContext } from './device.logic.js';
import type { DecodedFrame } from './frame-decoder.js';

/**
 * The notification lane (docs/actors.md, "Notification lane"): a plain notification (state,
 * healthcheck, log, telemetry...) on an open session changes three context fields and emits one
 * event. It runs the same pure step the machine's `handleNotification` runs, without a machine
 * step: that step (snapshot, context copy, state-node sets) cost about as much as everything
 * else per frame, and nearly every frame of a fleet is such a notification.
 *
 * The lane takes a frame only when the machine would do exactly this with it: the device is
 * `online`, not blacklisted, the frame is a notification other than connect that breaks no rule,
 * and the step's outcome is a context update of these fields plus its event. Anything else (a
 * state that starts a reconciliation, a report a `request` waits for, a recovery reboot, every
 * result, connect and refusal) goes through the machine as before.
 */

export interface LaneStep {
  ctx: Partial<DeviceContext>;
  emit: DeviceEvent[];
}

/**
 * What the machine would do with `frame` in `ctx` when that is a plain notification update, or
 * undefined when the machine must handle it. Pure: reads `ctx`, returns the update.
 */
export function laneStep(ctx: DeviceContext, online: boolean, bytes: number, frame: DecodedFrame, at: number): LaneStep | undefined {
  if (!online || frame.kind !== 'notification' || frame.method === 'connect') return undefined;
  // The machine's guards, in its order: blacklist first, then the protocol rules.
  if (ctx.deps.isBlacklisted(ctx.serial) || frameViolation(ctx, frame) !== undefined) return undefined;
  return plainNotificationStep(ctx, bytes, frame, at);
}

/** The part of the device actor the lane reads: its current snapshot. */
export interface LaneDevice {
  getSnapshot(): { status: string; value: unknown; context: DeviceContext };
}

/** Whether a snapshot's state value is `online` or one of its children. */
function isOnline(value: unknown): boolean {
  return value === 'online' || (typeof value === 'object' && value !== null && 'online' in value);
}

/**
 * Applies a plain notification to `device` when the lane may take it; returns false when the
 * machine must. The update is written into the current snapshot's context: the next machine
 * step starts from it, as it would from the context `handleNotification` had assigned. Events
 * go to `deps.lane.publish`, where the fleet sends the machine's emitted events too.
 */
export function tryLane(device: LaneDevice, bytes: number, frame: DecodedFrame, at: number): boolean {
  const snap = device.getSnapshot() as ReturnType<LaneDevice['getSnapshot']> | undefined;
  // No snapshot yet: a link that reports while the actor is still being created.
  if (!snap || snap.status !== 'active') return false;
  const ctx = snap.context;
  const lane = ctx.deps.lane;
  if (!lane || !lane.open()) return false;
  let step: LaneStep | undefined;
  try {
    step = laneStep(ctx, isOnline(snap.value), bytes, frame, at);
  } catch {
    // A hook that throws (isBlacklisted, storedConfigFor): the machine runs the same step and
    // deals with the error as it always did, instead of the link that delivered the frame.
    return false;
  }
  if (!step) return false;
  Object.assign(ctx, step.ctx);
  for (const e of step.emit) lane.publish(e);
  return true;
}
