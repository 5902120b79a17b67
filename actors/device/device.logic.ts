// Long by design: the device machine's pure steps and effects, many short functions the machine imports as one module.
import { isObject, type CommandFrame, type JsonObject } from '../../src/protocol/frame.js';
import type { DeviceLink } from '../../src/protocol/device-link.js';
import {
  commandFrame, executedRecord, expiredRecord, failedRecord, reconcileSubmission, recoveryRebootSubmission, refusedRecord, resultRecord, scanEntries,
  sentRecord, survivesRestart, timedOutRecord, type Pending, type Running,
} from './command-lifecycle.js';
import { restrictionRefusal, restrictionsOf } from './restrictions.js';
import type { DeviceEvent } from './device.events.js';
import {
  copyStatus, emptyStatus, type Command, type CommandSubmission, type DeviceDeps, type DeviceStatus, type DeviceTimeouts,
  type RestartKind, type StoredConfig, type VerifiedCertificate,
} from './device.types.js';
import { needsSession, type DecodedFrame } from './frame-decoder.js';
import { eventOf, num, writeStateStatus } from './notifications.js';
import { serialKey } from '../../src/protocol/serial.js';

/**
 * The device machine's context and its pure steps. Each step reads the context and an event and
 * returns effects (`Effects`); device.machine.ts turns them into XState actions. Keeping them pure
 * lets the machine file stay a readable chart and lets tests check a step without an actor.
 */

export interface DeviceContext {
  serial: string;
  deps: DeviceDeps;
  timeouts: DeviceTimeouts;
  maxPending: number;
  /** The link the actor starts with (the link actor's input); later links arrive as `link.attach`. */
  link?: DeviceLink;
  status: DeviceStatus;
  lastState?: JsonObject;
  lastHealthcheck?: { uuid: number; sanity: number; data: JsonObject; recorded: number };
  capabilities?: JsonObject;
  linkUp: boolean;
  /** A `connect` was accepted on this link session. */
  sessionOpen: boolean;
  /** Admission already said yes once: later connects skip the hook. */
  provisioned: boolean;
  /** The `connect` of an AP the admission hook is asked about, and when the AP sent it. */
  heldConnect?: { params: JsonObject; at: number };
  /** What the link said while admission was pending, handed on once it says yes. */
  heldEvents?: HeldEvents;
  protocolErrors: number;
  /** Notifications ignored for a missing params.serial, over the actor's life; not protocol errors. */
  ignoredFrames: number;
  nextRpcId: number;
  current?: Running;
  pending: Pending[];
  /** Ids of commands that timed out or were not awaited: their late replies are not protocol errors. */
  closedRpcIds: number[];
  /** `request` commands whose state/healthcheck report (request_uuid) may still arrive. */
  reportWaiters: Command[];
  /**
   * A reboot / upgrade / factory reset the AP acknowledged: which, when (the ack's time) and the
   * uptime it reported before, until the AP comes back, shows it did not restart, or the wait ends.
   */
  maintenance?: { kind: RestartKind; since: number; uptime: number };
  /** Config uuid reconciliation pushed in this session (pushed once per session). */
  pushedConfigUuid?: number;
}

/**
 * What the link said while admission was pending, handed on in order once it says yes. Not only
 * frames: when an AP's whole session reaches serve at once (a stream backlog for a data dir
 * that does not know it yet), its disconnect and its next session come during the admission too.
 */
export type HeldLinkEvent =
  | { type: 'link.frame'; at: number; bytes: number; frame: DecodedFrame }
  | { type: 'link.connected'; at: number; ipAddress?: string; certificate?: VerifiedCertificate }
  | { type: 'link.disconnected'; at: number; reason?: string };

/**
 * The held events, newest first, each linked to the one before: holding one more is a new head,
 * not a copy of the list (a backlog of thousands of frames was quadratic). `inOrder` gives them
 * oldest first.
 */
export interface HeldEvents {
  event: HeldLinkEvent;
  before: HeldEvents | undefined;
  /** Events held in all, the frames' bytes, and whether a connect or disconnect is among them. */
  count: number;
  bytes: number;
  linkChange: boolean;
}

/** The held events, oldest first. */
export function inOrder(events: HeldEvents | undefined): HeldLinkEvent[] {
  const out: HeldLinkEvent[] = [];
  for (let h = events; h; h = h.before) out.push(h.event);
  return out.reverse();
}

/**
 * Bounds of what is held while admission is pending. Past either, frames are not held: each is
 * counted as ignored (`frame-ignored`, reason HELD_OVERFLOW) instead. Connects and disconnects
 * of the link are always held: dropping one would leave the device in the wrong state.
 */
export const MAX_HELD_EVENTS = 4096;
export const MAX_HELD_BYTES = 8 * 1024 * 1024;
export const HELD_OVERFLOW = `more frames than can be held while admission is pending (${MAX_HELD_EVENTS} or ${MAX_HELD_BYTES / 1024 / 1024} MiB)`;

export type TimerEvent = { type: 'command.due'; uuid: string } | { type: 'command.expire'; uuid: string };

/** Effects of one step, in the order the machine applies them. */
export interface Effects {
  ctx?: Partial<DeviceContext>;
  emit?: DeviceEvent[];
  send?: CommandFrame[];
  close?: string;
  timers?: { event: TimerEvent; delay: number; id: string }[];
  cancel?: string[];
}

/** The protocol error budget per link session, as upstream (docs/upstream.md#device-sessions). */
export const MAX_PROTOCOL_ERRORS = 10;
const MAX_CLOSED_IDS = 32;
const MAX_REPORT_WAITERS = 16;

/** T with every optional field required to be written out (its value may still be undefined). */
type EveryField<T> = { [K in keyof Required<T>]: T[K] };

export function initialContext(serial: string, deps: DeviceDeps, timeouts: DeviceTimeouts, maxPending: number, link?: DeviceLink): DeviceContext {
  // Every field is present from the start (optional ones undefined), so every context has the same
  // key order. XState's assign builds each new context with Object.assign({}, context, update); past
  // 19 keys V8 turns such an object into a slow dictionary (several µs per frame) unless that key
  // order is already known as a fast shape, which the spread below records once.
  const ctx: EveryField<DeviceContext> = {
    serial, deps, timeouts, maxPending, link, status: emptyStatus(serial), lastState: undefined, lastHealthcheck: undefined,
    capabilities: undefined, linkUp: false, sessionOpen: false, provisioned: false, heldConnect: undefined, heldEvents: undefined,
    protocolErrors: 0, ignoredFrames: 0, nextRpcId: 2, current: undefined, pending: [], closedRpcIds: [], reportWaiters: [],
    maintenance: undefined, pushedConfigUuid: undefined,
  };
  return { ...ctx };
}

const sec = (ms: number) => Math.floor(ms / 1000);
const dueId = (uuid: string) => `due:${uuid}`;
const expireId = (uuid: string) => `expire:${uuid}`;

/** A fleet event of this device, stamped with its serial and time. */
function deviceEvent(ctx: DeviceContext, e: Omit<DeviceEvent, 'serial' | 'at'>, at = ctx.deps.now()): DeviceEvent {
  return { ...e, serial: ctx.serial, at } as DeviceEvent;
}

/**
 * When what a frame (or presence) reports happened: the link's time for it, not when the actor
 * runs. They differ for frames that reach serve late (JetStream's backlog after serve was down,
 * an edge's outage buffer): their rows belong at the time the AP sent them. Never later than
 * now: a link whose clock runs ahead (an edge's) cannot date rows into the future.
 */
export function frameTime(ctx: DeviceContext, at: number): number {
  const now = ctx.deps.now();
  return Number.isFinite(at) && at < now ? at : now;
}

function updated(ctx: DeviceContext, command: Command, extra: { created?: boolean; queued?: boolean; latencyMs?: number } = {}): DeviceEvent {
  return deviceEvent(ctx, { type: 'command-updated', payload: { command, created: extra.created ?? false, queued: extra.queued ?? false, latencyMs: extra.latencyMs } });
}

function closeIds(ctx: DeviceContext, id: number): number[] {
  return [...ctx.closedRpcIds, id].slice(-MAX_CLOSED_IDS);
}

/** Whether a step's context update sets anything. */
export function hasKeys<T extends object>(o: T | undefined): o is T {
  for (const _ in o) return true;
  return false;
}

/**
 * Merge several steps' effects, each later step seeing the context the earlier ones produced.
 * Only what the steps produced is set (no empty ctx or arrays), and the full context is rebuilt
 * only when a step that changed it is followed by another step.
 */
export function chain(ctx: DeviceContext, ...steps: ((c: DeviceContext) => Effects)[]): Effects {
  const out: Effects = {};
  let cur = ctx;
  /** `out.ctx` is a copy this function may extend (not a step's own object). */
  let ownCtx = false;
  /** The steps so far changed the context since `cur` was built. */
  let stale = false;
  for (const step of steps) {
    if (stale) {
      cur = { ...ctx, ...out.ctx };
      stale = false;
    }
    const effects = step(cur);
    if (hasKeys(effects.ctx)) {
      if (!out.ctx) out.ctx = effects.ctx;
      else if (ownCtx) Object.assign(out.ctx, effects.ctx);
      else {
        out.ctx = { ...out.ctx, ...effects.ctx };
        ownCtx = true;
      }
      stale = true;
    }
    if (effects.emit && effects.emit.length > 0) out.emit = out.emit ? out.emit.concat(effects.emit) : effects.emit;
    if (effects.send && effects.send.length > 0) out.send = out.send ? out.send.concat(effects.send) : effects.send;
    if (effects.timers && effects.timers.length > 0) out.timers = out.timers ? out.timers.concat(effects.timers) : effects.timers;
    if (effects.cancel && effects.cancel.length > 0) out.cancel = out.cancel ? out.cancel.concat(effects.cancel) : effects.cancel;
    if (effects.close !== undefined) out.close = effects.close;
  }
  return out;
}

/** A running command ends without a reply (disconnect, reconnect, shutdown). */
export function abortCurrent(ctx: DeviceContext, reason: string): Effects {
  if (!ctx.current) return {};
  const cmd = failedRecord(ctx.current.sub.command, ctx.deps.now(), reason);
  return { ctx: { current: undefined, closedRpcIds: closeIds(ctx, ctx.current.rpcId) }, emit: [updated(ctx, cmd)] };
}

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

export function isCurrentResult(ctx: DeviceContext, f: DecodedFrame): f is Extract<DecodedFrame, { kind: 'result' }> {
  return f.kind === 'result' && ctx.current !== undefined && ctx.current.rpcId === f.id;
}

/** Which maintenance state a reply leads to (a successful reboot / upgrade / factory), if any. */
export function restartAfter(ctx: DeviceContext, f: DecodedFrame): RestartKind | undefined {
  if (!isCurrentResult(ctx, f) || !ctx.current?.sub.restart) return undefined;
  return resultRecord(ctx.current.sub.command, f.result, 0).status === 'completed' ? ctx.current.sub.restart : undefined;
}

export function completeCurrent(ctx: DeviceContext, result: JsonObject): Effects {
  const run = ctx.current;
  if (!run) return {};
  const now = ctx.deps.now();
  const cmd = { ...resultRecord(run.sub.command, result, now), executionTime: now - run.sentAt };
  const emit = [updated(ctx, cmd, { latencyMs: now - run.sentAt })];
  const next: Partial<DeviceContext> = { current: undefined };
  const entries = scanEntries(result);
  if (cmd.command === 'wifiscan' && cmd.status === 'completed' && entries) {
    emit.push(deviceEvent(ctx, { type: 'wifiscan-result', payload: { source: 'command', commandUuid: cmd.UUID, entries } }));
  }
  if (cmd.command === 'request' && cmd.status === 'completed') next.reportWaiters = [...ctx.reportWaiters, cmd].slice(-MAX_REPORT_WAITERS);
  if (cmd.status === 'completed' && run.sub.restart) {
    next.maintenance = { kind: run.sub.restart, since: now, uptime: ctx.status.uptime };
    emit.push(deviceEvent(ctx, { type: 'maintenance', payload: { kind: run.sub.restart, phase: 'started' } }));
  }
  return { ctx: next, emit };
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

export function timeoutCurrent(ctx: DeviceContext): Effects {
  const run = ctx.current;
  if (!run) return {};
  const cmd = timedOutRecord(run.sub.command, ctx.deps.now(), run.sub.timeoutMs);
  return { ctx: { current: undefined, closedRpcIds: closeIds(ctx, run.rpcId) }, emit: [updated(ctx, cmd)] };
}

/** Gap before a queueable command whose send failed is tried again (gateway: command.retry). */
export const SEND_RETRY_MS = 120_000;

/**
 * The link could not take the frame. A queueable command (configure, upgrade, factory) goes back
 * to the head of the queue, pending, and is tried again after SEND_RETRY_MS, still bounded by its
 * expiry (docs/upstream.md#command-lifecycle); any other command fails, and so does a queueable
 * one the link refused for good (`forGood`: a link that takes no new command), which no retry could deliver.
 */
export function sendFailed(ctx: DeviceContext, reason: string, forGood = false): Effects {
  const run = ctx.current;
  if (!run) return {};
  const now = ctx.deps.now();
  const base = { current: undefined, closedRpcIds: closeIds(ctx, run.rpcId) };
  if (run.sub.queueable && !forGood) {
    const uuid = run.sub.command.UUID;
    const command: Command = {
      ...run.sub.command, status: 'pending', executed: 0, lastTry: Math.floor(now / 1000), errorText: `Not sent yet: ${reason}; retrying.`,
    };
    const expiresAt = Math.max(run.sub.runAt, run.sentAt) + ctx.timeouts.pendingTtlMs;
    return {
      ctx: { ...base, pending: [{ sub: { ...run.sub, command }, ready: false, expiresAt }, ...ctx.pending] },
      emit: [updated(ctx, command, { queued: true })],
      timers: [
        { event: { type: 'command.due', uuid }, delay: SEND_RETRY_MS, id: dueId(uuid) },
        { event: { type: 'command.expire', uuid }, delay: Math.max(0, expiresAt - now), id: expireId(uuid) },
      ],
    };
  }
  const cmd = failedRecord(run.sub.command, now, `The command could not be sent: ${reason}`);
  return { ctx: base, emit: [updated(ctx, cmd)] };
}

export function nextReady(ctx: DeviceContext): Pending | undefined {
  return ctx.pending.find((p) => p.ready);
}

/**
 * Why the AP's restrictions (the capabilities of this session) refuse the next ready command.
 * The command service checks at submission; this catches a command queued before the AP first
 * reported its restrictions (a provisioned AP that never connected, a `when` in the future).
 */
export function nextRefusal(ctx: DeviceContext): string | undefined {
  return readyRefusal(ctx)?.why;
}

function readyRefusal(ctx: DeviceContext): { p: Pending; why: string } | undefined {
  const p = nextReady(ctx);
  const why = p && restrictionRefusal(p.sub.method, p.sub.params, restrictionsOf(ctx.capabilities))?.description;
  return p && why ? { p, why } : undefined;
}

/** Fail the next ready command its restrictions refuse, without sending it. */
export function refuseNext(ctx: DeviceContext): Effects {
  const refused = readyRefusal(ctx);
  if (!refused) return {};
  const { p, why } = refused;
  const uuid = p.sub.command.UUID;
  const cmd = refusedRecord(p.sub.command, ctx.deps.now(), `Not sent: ${why}`);
  return { ctx: { pending: ctx.pending.filter((x) => x !== p) }, emit: [updated(ctx, cmd)], cancel: [expireId(uuid), dueId(uuid)] };
}

/** Send the first ready command. Awaited ones become `current`; the others complete at once. */
export function startNext(ctx: DeviceContext): Effects {
  const p = nextReady(ctx);
  if (!p) return {};
  const now = ctx.deps.now();
  const rpcId = ctx.nextRpcId;
  const frame = commandFrame(rpcId, p.sub, ctx.capabilities?.compress_cmd === true);
  const pending = ctx.pending.filter((x) => x !== p);
  const status = { ...ctx.status, txBytes: ctx.status.txBytes + Buffer.byteLength(JSON.stringify(frame)) };
  const base = { pending, nextRpcId: rpcId + 1, status };
  if (!p.sub.awaitResult) {
    return { ctx: { ...base, closedRpcIds: closeIds(ctx, rpcId) }, emit: [updated(ctx, sentRecord(p.sub.command, now))], send: [frame], cancel: [expireId(p.sub.command.UUID)] };
  }
  const command = executedRecord(p.sub.command, now);
  return {
    ctx: { ...base, current: { sub: { ...p.sub, command }, rpcId, sentAt: now } },
    emit: [updated(ctx, command)], send: [frame], cancel: [expireId(p.sub.command.UUID)],
  };
}

/** How a submission is taken: `now` runs at once (idle), `queued` waits its turn, `scheduled` waits for `when`. */
export type AcceptMode = 'now' | 'queued';

export function isScheduledLater(ctx: DeviceContext, sub: CommandSubmission): boolean {
  return sub.runAt > ctx.deps.now();
}

export function queueFull(ctx: DeviceContext): boolean {
  return ctx.pending.length >= ctx.maxPending;
}

export function accept(ctx: DeviceContext, sub: CommandSubmission, mode: AcceptMode): Effects {
  const now = ctx.deps.now();
  const later = sub.runAt > now;
  const expiresAt = Math.max(sub.runAt, now) + ctx.timeouts.pendingTtlMs;
  const uuid = sub.command.UUID;
  const timers: NonNullable<Effects['timers']> = [{ event: { type: 'command.expire', uuid }, delay: expiresAt - now, id: expireId(uuid) }];
  if (later) timers.push({ event: { type: 'command.due', uuid }, delay: sub.runAt - now, id: dueId(uuid) });
  const command: Command = { ...sub.command, status: 'pending' };
  return {
    ctx: { pending: [...ctx.pending, { sub: { ...sub, command }, ready: !later, expiresAt }] },
    emit: [updated(ctx, command, { created: true, queued: later || mode === 'queued' })],
    timers,
  };
}

export function reject(ctx: DeviceContext, sub: CommandSubmission, code: 'DEVICE_OFFLINE' | 'DEVICE_BUSY', reason: string): Effects {
  return { emit: [deviceEvent(ctx, { type: 'command-rejected', payload: { command: sub.command, code, reason } })] };
}

export function markDue(ctx: DeviceContext, uuid: string): Effects {
  return { ctx: { pending: ctx.pending.map((p) => (p.sub.command.UUID === uuid ? { ...p, ready: true } : p)) } };
}

export function expire(ctx: DeviceContext, uuid: string, reason?: string): Effects {
  const p = ctx.pending.find((x) => x.sub.command.UUID === uuid);
  if (!p) return {};
  const cmd = expiredRecord(p.sub.command, ctx.deps.now(), reason ?? 'The device did not come online in time to run the command.');
  return { ctx: { pending: ctx.pending.filter((x) => x !== p) }, emit: [updated(ctx, cmd)], cancel: [dueId(uuid), expireId(uuid)] };
}

/**
 * The actor is stopping: the running command fails and the queue expires. With `keepQueued` (the
 * service shuts down cleanly) the waiting commands that survive a restart (survivesRestart) are
 * left as they are, `pending` in the store, for the next start to reopen; the rest expire.
 */
export function abandonAll(ctx: DeviceContext, reason: string, keepQueued = false): Effects {
  const ending = keepQueued ? ctx.pending.filter((p) => !survivesRestart(p.sub)) : ctx.pending;
  return chain(ctx, (c) => abortCurrent(c, reason), ...ending.map((p) => (c: DeviceContext) => expire(c, p.sub.command.UUID, reason)));
}

/**
 * A command the store still had `pending` after a restart (CommandService.restore) takes its
 * place in the queue again, with the expiry it had (its `when`, else when it was submitted, plus
 * pendingTtlMs) and its due timer, so it runs or ends like any queued command. It was accepted
 * before, so an AP that is offline or busy does not refuse it. Past that expiry, or with the queue
 * full, it ends `expired` at once instead.
 */
export function restore(ctx: DeviceContext, sub: CommandSubmission): Effects {
  const now = ctx.deps.now();
  const uuid = sub.command.UUID;
  if (ctx.pending.some((p) => p.sub.command.UUID === uuid) || ctx.current?.sub.command.UUID === uuid) return {};
  const expiresAt = Math.max(sub.runAt, sub.command.submitted * 1000) + ctx.timeouts.pendingTtlMs;
  const why = expiresAt <= now
    ? `The device did not run the command within ${Math.round(ctx.timeouts.pendingTtlMs / 60_000)} min of its time, while the service was stopped.`
    : queueFull(ctx) ? 'The command queue of the device was full when the service restarted.' : undefined;
  if (why) return { emit: [updated(ctx, expiredRecord(sub.command, now, why))] };
  const later = sub.runAt > now;
  const timers: NonNullable<Effects['timers']> = [{ event: { type: 'command.expire', uuid }, delay: expiresAt - now, id: expireId(uuid) }];
  if (later) timers.push({ event: { type: 'command.due', uuid }, delay: sub.runAt - now, id: dueId(uuid) });
  const command: Command = { ...sub.command, status: 'pending' };
  return {
    ctx: { pending: [...ctx.pending, { sub: { ...sub, command }, ready: !later, expiresAt }] },
    emit: [updated(ctx, command, { queued: true })],
    timers,
  };
}
