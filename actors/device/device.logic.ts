/**
 * The device machine's pure steps for its link and session: connects and disconnects, frames
 * and their protocol checks, admission holds, notifications, maintenance and configuration
 * reconciliation. Each step reads the context and an event and returns effects (`Effects`);
 * device.machine.ts turns them into XState actions. Keeping them pure lets the machine file stay
 * a readable chart and lets tests check a step without an actor. The command steps are in
 * command-steps.ts; this module re-exports them and the context, the one import of the machine.
 */
import { isObject, type JsonObject } from '../../src/protocol/frame.js';
import { reconcileSubmission, recoveryRebootSubmission } from './command-lifecycle.js';
import type { DeviceEvent } from './device.events.js';
import { copyStatus, type Command, type DeviceStatus, type StoredConfig, type VerifiedCertificate } from './device.types.js';
import { needsSession, type DecodedFrame } from './frame-decoder.js';
import { eventOf, num, writeStateStatus } from './notifications.js';
import { serialKey } from '../../src/protocol/serial.js';
import {
  chain, deviceEvent, frameTime, HELD_OVERFLOW, MAX_HELD_BYTES, MAX_HELD_EVENTS, sec, updated, type DeviceContext, type Effects, type HeldLinkEvent,
} from './device-context.js';
import { abortCurrent, accept } from './command-steps.js';

export {
  chain, frameTime, hasKeys, HELD_OVERFLOW, inOrder, initialContext, MAX_HELD_BYTES, MAX_HELD_EVENTS, MAX_PROTOCOL_ERRORS,
  type DeviceContext, type Effects, type HeldEvents, type HeldLinkEvent, type TimerEvent,
} from './device-context.js';
export * from './command-steps.js';

export function linkConnected(ctx: DeviceContext, e: { at: number; ipAddress?: string; certificate?: VerifiedCertificate }): Effects {
  return chain(ctx, (c) => abortCurrent(c, 'The device opened a new connection before replying.'), (c) => ({
    ctx: {
      linkUp: true, sessionOpen: false, protocolErrors: 0, heldConnect: undefined, heldEvents: undefined,
      status: { ...c.status, connected: false, ipAddress: e.ipAddress ?? '', verifiedCertificate: e.certificate ?? 'NO_CERTIFICATE', lastContact: contactAt(c, frameTime(c, e.at)) },
    },
  }));
}

export function linkDisconnected(ctx: DeviceContext, reason: string, at = ctx.deps.now()): Effects {
  return chain(ctx, (c) => abortCurrent(c, 'The device disconnected before replying.'), (c) => ({
    ctx: { linkUp: false, sessionOpen: false, heldConnect: undefined, heldEvents: undefined, status: { ...c.status, connected: false, started: 0 } },
    emit: [deviceEvent(c, { type: 'disconnected', payload: { reason } }, frameTime(c, at))],
  }));
}

/** Drop the AP: close its link and say why. The link's `disconnected` follows. */
export function drop(ctx: DeviceContext, reason: Extract<DeviceEvent, { type: 'dropped' }>['payload']['reason'], detail: string): Effects {
  return chain(ctx, (c) => abortCurrent(c, `The device was dropped: ${detail}`), (c) => ({
    ctx: { sessionOpen: false, heldConnect: undefined, heldEvents: undefined, status: { ...c.status, connected: false, started: 0 } },
    emit: [deviceEvent(c, { type: 'dropped', payload: { reason, detail } })],
    close: detail,
  }));
}

/** Every frame, valid or not, counts as traffic and contact (at `at`, when the AP sent it). */
export function countFrame(ctx: DeviceContext, bytes: number, at = ctx.deps.now()): Effects {
  return { ctx: { status: countedStatus(ctx, bytes, frameTime(ctx, at)) } };
}

/** `when` (a frameTime) is when the AP sent the frame. */
function countedStatus(ctx: DeviceContext, bytes: number, when: number): DeviceStatus {
  const status = copyStatus(ctx.status);
  status.rxBytes += bytes;
  status.messageCount += 1;
  status.lastContact = contactAt(ctx, when);
  return status;
}

/**
 * lastContact after hearing from the AP at `when`: when it sent that, not when serve read it (a
 * backlog of an AP that went away an hour ago does not make it heard from now), and never earlier
 * than a contact already known (frames of two edges may come out of order).
 */
function contactAt(ctx: DeviceContext, when: number): number {
  // A known contact past now (a record written by a run whose clock ran ahead) does not hold it back.
  return Math.max(Math.min(ctx.status.lastContact, sec(ctx.deps.now())), sec(when));
}

/** Why a frame breaks the protocol in the current context, or undefined when it is acceptable. */
export function frameViolation(ctx: DeviceContext, f: DecodedFrame): string | undefined {
  if (f.kind === 'invalid') return f.reason;
  // Not protocol errors: the machine drops (bad-serial) or counts (ignored) these before asking.
  if (f.kind === 'ignored' || f.kind === 'bad-serial') return undefined;
  if (f.kind === 'result') {
    if (f.id <= 1) return undefined; // ids 0 and 1 are one-way (upstream too): replies are ignored
    if (ctx.current?.rpcId === f.id || ctx.closedRpcIds.includes(f.id)) return undefined;
    return `result for unknown command id ${f.id}`;
  }
  if (f.method === 'connect') {
    const serial = typeof f.params.serial === 'string' ? serialKey(f.params.serial) : '';
    if (serial !== ctx.serial) return `connect for serial ${JSON.stringify(f.params.serial)} on the link of ${ctx.serial}`;
    if (!isObject(f.params.capabilities)) return 'connect: capabilities is not an object';
    return undefined;
  }
  return needsSession(f.method) && !ctx.sessionOpen ? `${f.method} before connect` : undefined;
}

export function protocolError(ctx: DeviceContext, reason: string): Effects {
  const count = ctx.protocolErrors + 1;
  return { ctx: { protocolErrors: count }, emit: [deviceEvent(ctx, { type: 'protocol-error', payload: { reason, count } })] };
}

/**
 * Keep a link event while admission is pending. A frame past the bounds is not kept: it counts
 * as traffic and as ignored, with its reason, as a frame without params.serial does.
 */
export function holdLinkEvent(ctx: DeviceContext, e: HeldLinkEvent): Effects {
  const previous = ctx.heldEvents;
  const count = (previous?.count ?? 0) + 1;
  const bytes = previous?.bytes ?? 0;
  if (e.type !== 'link.frame') return { ctx: { heldEvents: { event: e, before: previous, count, bytes, linkChange: true } } };
  if (count > MAX_HELD_EVENTS || bytes + e.bytes > MAX_HELD_BYTES) {
    const method = 'method' in e.frame ? e.frame.method : e.frame.kind;
    const ignored = ctx.ignoredFrames + 1;
    return {
      ctx: { status: countedStatus(ctx, e.bytes, frameTime(ctx, e.at)), ignoredFrames: ignored },
      emit: [deviceEvent(ctx, { type: 'frame-ignored', payload: { method, reason: HELD_OVERFLOW, count: ignored } })],
    };
  }
  return { ctx: { heldEvents: { event: e, before: previous, count, bytes: bytes + e.bytes, linkChange: previous?.linkChange ?? false } } };
}

/** A notification without params.serial: counted as traffic and as ignored, nothing else. */
export function ignoreFrame(ctx: DeviceContext, bytes: number, f: Extract<DecodedFrame, { kind: 'ignored' }>, at = ctx.deps.now()): Effects {
  const count = ctx.ignoredFrames + 1;
  return {
    ctx: { status: countedStatus(ctx, bytes, frameTime(ctx, at)), ignoredFrames: count },
    emit: [deviceEvent(ctx, { type: 'frame-ignored', payload: { method: f.method, reason: f.reason, count } })],
  };
}

/**
 * A `connect` was admitted: the session opens, status and capabilities come from its params.
 * `at` is when the AP sent it (frameTime); its events and the session's start are dated then.
 */
export function openSession(ctx: DeviceContext, params: JsonObject, at = ctx.deps.now()): Effects {
  const when = frameTime(ctx, at);
  const capabilities = isObject(params.capabilities) ? params.capabilities : {};
  const firmware = typeof params.firmware === 'string' ? params.firmware : '';
  const uuid = num(params.uuid);
  const compatible = typeof capabilities.compatible === 'string' && capabilities.compatible !== ''
    ? capabilities.compatible : typeof capabilities.model === 'string' ? capabilities.model : '';
  const reason = typeof params.reason === 'string' ? params.reason : '';
  const emit: DeviceEvent[] = [];
  if (ctx.status.firmware !== '' && ctx.status.firmware !== firmware) {
    emit.push(deviceEvent(ctx, { type: 'firmware-changed', payload: { oldFirmware: ctx.status.firmware, newFirmware: firmware } }, when));
  }
  if (ctx.maintenance) emit.push(deviceEvent(ctx, { type: 'maintenance', payload: { kind: ctx.maintenance.kind, phase: 'done' } }, when));
  emit.push(deviceEvent(ctx, { type: 'capabilities', payload: { capabilities } }, when));
  emit.push(deviceEvent(ctx, { type: 'connected', payload: { ipAddress: ctx.status.ipAddress, firmware, uuid, capabilities, reason, params } }, when));
  return chain(ctx, (c) => abortCurrent(c, 'The device reconnected before replying.'), (c) => ({
    ctx: {
      sessionOpen: true, provisioned: true, heldConnect: undefined, heldEvents: undefined, capabilities, maintenance: undefined, pushedConfigUuid: undefined,
      status: { ...c.status, connected: true, UUID: uuid, firmware, compatible, connectReason: reason, started: sec(when) },
    },
    emit,
  }), reconcile);
}

/** Config uuid reconciliation (docs/upstream.md#configuration-reconciliation): push a stored configuration newer than the AP's, once per session. */
export function reconcile(ctx: DeviceContext): Effects {
  return reconcileWith(ctx, storedConfigToPush(ctx));
}

/** The stored configuration reconciliation compares the AP's with (the device policy's, DevicePolicy). */
function storedConfigToPush(ctx: DeviceContext): StoredConfig | undefined {
  return ctx.deps.storedConfigFor(ctx.serial);
}

/** Whether `stored` is a configuration this session has not pushed yet. */
function unpushed(ctx: DeviceContext, stored: StoredConfig | undefined): stored is StoredConfig {
  return stored !== undefined && stored.uuid !== ctx.pushedConfigUuid;
}

/**
 * Whether a state reporting `deviceUuid` leaves anything to reconcile: a stored configuration
 * newer than the one the AP runs, not pushed yet (reconcileSubmission's own test). An AP that
 * runs its stored configuration, the usual case, needs no machine step for its states, so they
 * stay on the notification lane.
 */
function wantsPush(ctx: DeviceContext, deviceUuid: number, stored: StoredConfig | undefined): stored is StoredConfig {
  return unpushed(ctx, stored) && deviceUuid !== 0 && stored.uuid > deviceUuid;
}

function reconcileWith(ctx: DeviceContext, stored: StoredConfig | undefined): Effects {
  if (!unpushed(ctx, stored)) return {};
  const busyWithConfigure = ctx.current?.sub.method === 'configure' || ctx.pending.some((p) => p.sub.method === 'configure');
  if (busyWithConfigure) return {};
  const sub = reconcileSubmission(ctx.serial, ctx.status.UUID, stored, ctx.deps.now(), ctx.deps.newId);
  if (!sub) return {};
  return chain(ctx, (c) => accept(c, sub, 'queued'), (c) => ({
    ctx: { pushedConfigUuid: stored.uuid },
    emit: [deviceEvent(c, { type: 'config-pending', payload: { source: 'gateway', deviceUuid: c.status.UUID, pendingUuid: stored.uuid, commandUuid: sub.command.UUID } })],
  }));
}

type NotificationFrame = Extract<DecodedFrame, { kind: 'notification' }>;

function withFollowUps(ctx: DeviceContext, { effects, more }: { effects: Effects; more: ((c: DeviceContext) => Effects)[] }): Effects {
  return more.length === 0 ? effects : chain(ctx, () => effects, ...more);
}

/**
 * countFrame then notification, as one step: the per-frame hot path. It builds one new status
 * (traffic and, for a state, the state's fields) and one Effects; the rarer follow-ups (reconciliation
 * push, recovery reboot, a `request`'s report) are chained after it as before.
 */
export function receiveNotification(ctx: DeviceContext, bytes: number, f: NotificationFrame, at: number): Effects {
  return withFollowUps(ctx, notificationParts(ctx, f, bytes, at));
}

/**
 * The notification lane's step (notification-lane.ts): what `receiveNotification` returns when
 * the notification needs no follow-up step (reconciliation, a waiting request, a recovery
 * reboot), else undefined. Follow-ups are not run, so no id is drawn for a frame the machine
 * will then handle.
 */
export function plainNotificationStep(ctx: DeviceContext, bytes: number, f: NotificationFrame, at: number): { ctx: Partial<DeviceContext>; emit: DeviceEvent[] } | undefined {
  const { effects, more } = notificationParts(ctx, f, bytes, at);
  // The step always sets `status` (plus lastState / lastHealthcheck) and emits one event.
  return more.length === 0 && effects.ctx && effects.emit ? { ctx: effects.ctx, emit: effects.emit } : undefined;
}

/**
 * One notification's effects: a new status (traffic, contact and, for a state or healthcheck,
 * its fields), its event, and the rarer follow-up steps.
 */
function notificationParts(ctx: DeviceContext, f: NotificationFrame, bytes: number, at: number): { effects: Effects; more: ((c: DeviceContext) => Effects)[] } {
  const now = ctx.deps.now();
  const when = frameTime(ctx, at);
  const event = eventOf(ctx.serial, f.method, f.params, when, ctx.status.UUID, f.stateText);
  const status = countedStatus(ctx, bytes, when);
  let next: Partial<DeviceContext> = { status };
  let requestUuid: string | undefined;
  const more: ((c: DeviceContext) => Effects)[] = [];
  if (event.type === 'state') {
    const { uuid, state } = event.payload;
    writeStateStatus(status, state, uuid);
    next = { lastState: state, status };
    requestUuid = event.payload.requestUuid;
    // Reconciliation sees the status this state set; the stored config is looked up once.
    const stored = storedConfigToPush(ctx);
    if (wantsPush(ctx, status.UUID, stored)) more.push((c) => reconcileWith(c, stored));
  } else if (event.type === 'healthcheck') {
    const { uuid, sanity, data } = event.payload;
    status.sanity = sanity;
    next = { lastHealthcheck: { uuid, sanity, data, recorded: sec(when) }, status };
    requestUuid = event.payload.requestUuid;
  } else if (f.method === 'recovery' && f.params.reboot === true && ctx.deps.rebootsOutOfRecovery !== false) {
    // The AP asks to be rebooted out of recovery; it runs as soon as a session is open and idle.
    more.push((c) => accept(c, recoveryRebootSubmission(c.serial, now, c.deps.newId), 'queued'));
  }
  if (requestUuid) {
    const uuid = requestUuid;
    more.push((c) => reportArrived(c, uuid, f.params));
  }
  return { effects: { ctx: next, emit: [event] }, more };
}

/** The state/healthcheck a `request` asked for becomes that command's results, as upstream. */
function reportArrived(ctx: DeviceContext, uuid: string, params: JsonObject): Effects {
  const waiter = ctx.reportWaiters.find((c) => c.UUID === uuid);
  if (!waiter) return {};
  const cmd: Command = { ...waiter, results: JSON.stringify(params), completed: sec(ctx.deps.now()) };
  return { ctx: { reportWaiters: ctx.reportWaiters.filter((c) => c.UUID !== uuid) }, emit: [updated(ctx, cmd)] };
}

/**
 * Whether a frame in a maintenance state shows the AP did not restart: a `state` on the session
 * that acknowledged the command (a restarting AP drops it and connects anew, which leaves the
 * maintenance state), sent `restartGraceMs` or more after the ack (a real AP restarts ~10 s after
 * acknowledging, and may send a state meanwhile). Only a frame the root checks would take as a
 * plain state (not blacklisted, no protocol violation).
 */
export function keptSession(ctx: DeviceContext, f: DecodedFrame, at: number): boolean {
  const m = ctx.maintenance;
  return m !== undefined && ctx.sessionOpen && f.kind === 'notification' && f.method === 'state'
    && frameTime(ctx, at) - m.since >= ctx.timeouts.restartGraceMs
    && !ctx.deps.isBlacklisted(ctx.serial) && frameViolation(ctx, f) === undefined;
}

/**
 * The maintenance state ends without the AP coming back: `timedout` (the wait ran out) or, for a
 * state on the same session (keptSession), `not-restarted`, unless its uptime went back (the AP
 * did restart, its session surviving: `done`).
 */
export function endMaintenance(ctx: DeviceContext, phase: 'timedout' | 'not-restarted', uptime?: number): Effects {
  const m = ctx.maintenance;
  if (!m) return {};
  const restarted = phase === 'not-restarted' && uptime !== undefined && uptime < m.uptime;
  return { ctx: { maintenance: undefined }, emit: [deviceEvent(ctx, { type: 'maintenance', payload: { kind: m.kind, phase: restarted ? 'done' : phase } })] };
}
