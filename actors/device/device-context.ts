/**
 * The device machine's context, the effects a step returns and the helpers every step uses
 * (merging steps with `chain`, stamping events). The steps are in device.logic.ts (session,
 * frames, notifications, reconciliation) and command-steps.ts (the command queue and lifecycle).
 */
import type { CommandFrame, JsonObject } from '../../src/protocol/frame.js';
import type { DeviceLink } from '../../src/protocol/device-link.js';
import type { Pending, Running } from './command-lifecycle.js';
import type { DeviceEvent } from './device.events.js';
import {
  emptyStatus, type Command, type DeviceDeps, type DeviceStatus, type DeviceTimeouts, type RestartKind, type VerifiedCertificate,
} from './device.types.js';
import type { DecodedFrame } from './frame-decoder.js';


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
export const MAX_REPORT_WAITERS = 16;

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

export const sec = (ms: number) => Math.floor(ms / 1000);
export const dueId = (uuid: string) => `due:${uuid}`;
export const expireId = (uuid: string) => `expire:${uuid}`;

/** A fleet event of this device, stamped with its serial and time. */
export function deviceEvent(ctx: DeviceContext, e: Omit<DeviceEvent, 'serial' | 'at'>, at = ctx.deps.now()): DeviceEvent {
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

export function updated(ctx: DeviceContext, command: Command, extra: { created?: boolean; queued?: boolean; latencyMs?: number } = {}): DeviceEvent {
  return deviceEvent(ctx, { type: 'command-updated', payload: { command, created: extra.created ?? false, queued: extra.queued ?? false, latencyMs: extra.latencyMs } });
}

export function closeIds(ctx: DeviceContext, id: number): number[] {
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
