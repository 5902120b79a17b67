import { enqueueActions, fromPromise, setup } from 'xstate';
import type { DeviceLink } from '../../src/protocol/device-link.js';
import { isObject, type JsonObject } from '../../src/protocol/frame.js';
import type { DeviceEvent } from './device.events.js';
import {
  DEFAULT_MAX_PENDING, DEFAULT_TIMEOUTS, type Admission, type CommandSubmission, type DeviceDeps, type DeviceTimeouts, type RestartKind,
} from './device.types.js';
import {
  MAX_PROTOCOL_ERRORS, abandonAll, accept, completeCurrent, countFrame, drop, endMaintenance, expire, frameViolation, hasKeys, holdLinkEvent, ignoreFrame, inOrder,
  initialContext, isCurrentResult, isScheduledLater, keptSession, linkConnected, linkDisconnected, markDue, nextReady, nextRefusal, openSession, plainNotificationStep,
  protocolError, queueFull, receiveNotification, refuseNext, reject, restartAfter, restore, sendFailed, startNext, timeoutCurrent,
  type DeviceContext, type Effects, type TimerEvent,
} from './device.logic.js';
import { linkActor, type LinkActorEvent, type LinkMachineEvent } from './link-actor.js';
import type { LaneDevice, LaneStep } from './notification-lane.js';

/**
 * One XState machine per AP serial (docs/actors.md has the chart and the command policy).
 * Effects are named; their logic lives in device.logic.ts as pure steps. Every timeout is an
 * `after` delay or a delayed `raise`, so the actor's clock (the process Clock) drives them.
 */

export type DeviceMachineEvent =
  | LinkMachineEvent
  | TimerEvent
  /** `deps`: the actor's hooks from now on (the device policy of the new link, Fleet.attach). */
  | { type: 'link.attach'; link: DeviceLink; deps?: DeviceDeps }
  | { type: 'command.submit'; submission: CommandSubmission }
  /** A command the store had open after a restart (CommandService.restore): queued again, never refused. */
  | { type: 'command.restore'; submission: CommandSubmission }
  /** `keepQueued`: the service stops cleanly; what survives a restart stays pending for the next start. */
  | { type: 'device.shutdown'; reason: string; keepQueued?: boolean };

export interface DeviceInput {
  serial: string;
  deps: DeviceDeps;
  link?: DeviceLink;
  timeouts?: Partial<DeviceTimeouts>;
  maxPending?: number;
}

/** The subset of XState's `enqueue` the effects need; typed loosely once here instead of per action. */
interface Enqueue {
  assign(values: Partial<DeviceContext>): void;
  emit(event: DeviceEvent): void;
  sendTo(target: string, event: LinkActorEvent): void;
  raise(event: TimerEvent, options: { delay: number; id: string }): void;
  cancel(id: string): void;
}

function run(enqueue: unknown, effects: Effects): void {
  const q = enqueue as Enqueue;
  if (hasKeys(effects.ctx)) q.assign(effects.ctx);
  if (effects.cancel) for (const id of effects.cancel) q.cancel(id);
  if (effects.timers) for (const t of effects.timers) q.raise(t.event, { delay: Math.max(0, t.delay), id: t.id });
  if (effects.send) for (const frame of effects.send) q.sendTo('link', { type: 'send', frame });
  if (effects.emit) for (const e of effects.emit) q.emit(e);
  if (effects.close !== undefined) q.sendTo('link', { type: 'close', reason: effects.close });
}

/** The machine event of one type. */
type EventOf<T extends DeviceMachineEvent['type']> = Extract<DeviceMachineEvent, { type: T }>;
const frameOf = (e: DeviceMachineEvent) => (e.type === 'link.frame' ? e.frame : undefined);
const subOf = (e: DeviceMachineEvent) => (e as EventOf<'command.submit'>).submission;
const violation = (c: DeviceContext, e: DeviceMachineEvent) => {
  const f = frameOf(e);
  return f ? frameViolation(c, f) : undefined;
};
const isConnect = (e: DeviceMachineEvent) => {
  const f = frameOf(e);
  return f?.kind === 'notification' && f.method === 'connect';
};
const ackOf = (kind: RestartKind) => ({ context, event }: { context: DeviceContext; event: DeviceMachineEvent }) => {
  const f = frameOf(event);
  return f !== undefined && restartAfter(context, f) === kind;
};

export const deviceMachine = setup({
  types: {
    context: {} as DeviceContext,
    events: {} as DeviceMachineEvent,
    input: {} as DeviceInput,
    emitted: {} as DeviceEvent,
  },
  actors: {
    link: linkActor,
    admit: fromPromise<Admission, { serial: string; params: JsonObject; deps: DeviceDeps }>(({ input }) => input.deps.admit(input.serial, input.params)),
  },
  delays: {
    connectTimeout: ({ context }) => context.timeouts.connectMs,
    admitTimeout: ({ context }) => context.timeouts.admitMs,
    commandTimeout: ({ context }) => context.current?.sub.timeoutMs ?? 0,
    rebootTimeout: ({ context }) => context.timeouts.rebootMs,
    upgradeTimeout: ({ context }) => context.timeouts.upgradeMs,
    factoryTimeout: ({ context }) => context.timeouts.factoryMs,
  },
  guards: {
    blacklisted: ({ context }) => context.deps.isBlacklisted(context.serial),
    badSerial: ({ event }) => frameOf(event)?.kind === 'bad-serial',
    ignoredFrame: ({ event }) => frameOf(event)?.kind === 'ignored',
    lastProtocolError: ({ context, event }) => context.protocolErrors + 1 >= MAX_PROTOCOL_ERRORS && violation(context, event) !== undefined,
    protocolViolation: ({ context, event }) => violation(context, event) !== undefined,
    isConnect: ({ event }) => isConnect(event),
    plainNotification: ({ event }) => {
      const f = frameOf(event);
      return f?.kind === 'notification' && f.method !== 'connect';
    },
    connectOfProvisioned: ({ context, event }) => isConnect(event) && context.provisioned,
    rebootAck: ackOf('reboot'),
    upgradeAck: ackOf('upgrade'),
    factoryAck: ackOf('factory'),
    currentResult: ({ context, event }) => {
      const f = frameOf(event);
      return f !== undefined && isCurrentResult(context, f);
    },
    keptSession: ({ context, event }) => event.type === 'link.frame' && keptSession(context, event.frame, event.at),
    currentRpc: ({ context, event }) => event.type === 'link.sendFailed' && context.current?.rpcId === event.rpcId,
    queueFull: ({ context }) => queueFull(context),
    scheduledLater: ({ context, event }) => isScheduledLater(context, subOf(event)),
    queueable: ({ event }) => subOf(event).queueable,
    hasReady: ({ context }) => nextReady(context) !== undefined,
    nextIsOneWay: ({ context }) => nextReady(context)?.sub.awaitResult === false,
    nextIsRefused: ({ context }) => nextRefusal(context) !== undefined,
    sessionOpen: ({ context }) => context.sessionOpen,
    /** A disconnect or reconnect of the link is held: what follows belongs to a later session. */
    heldLinkChange: ({ context }) => context.heldEvents?.linkChange === true,
  },
  actions: {
    countFrame: enqueueActions(({ context, event, enqueue }) => run(enqueue, countFrame(context, (event as EventOf<'link.frame'>).bytes, (event as EventOf<'link.frame'>).at))),
    noteProtocolError: enqueueActions(({ context, event, enqueue }) => run(enqueue, protocolError(context, violation(context, event) ?? 'invalid frame'))),
    dropForErrors: enqueueActions(({ context, enqueue }) => run(enqueue, drop(context, 'protocol-errors', `${context.protocolErrors} protocol errors`))),
    dropBadSerial: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (f?.kind === 'bad-serial') run(enqueue, drop(context, 'bad-serial', f.reason));
    }),
    noteIgnored: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (event.type === 'link.frame' && f?.kind === 'ignored') run(enqueue, ignoreFrame(context, event.bytes, f, event.at));
    }),
    dropBlacklisted: enqueueActions(({ context, enqueue }) => run(enqueue, drop(context, 'blacklisted', `${context.serial} is blacklisted`))),
    dropNoConnect: enqueueActions(({ context, enqueue }) => run(enqueue, drop(context, 'no-connect', 'no connect message in time'))),
    refuseUnprovisioned: enqueueActions(({ context, enqueue }) => run(enqueue, drop(context, 'not-provisioned', `${context.serial} is not provisioned`))),
    admissionFailed: enqueueActions(({ context, enqueue }) => run(enqueue, drop(context, 'admission-failed', 'the admission check failed or took too long'))),
    holdConnect: enqueueActions(({ event, enqueue }) => {
      const f = frameOf(event);
      if (event.type === 'link.frame' && f?.kind === 'notification') run(enqueue, { ctx: { heldConnect: { params: f.params, at: event.at } } });
    }),
    openSessionFromFrame: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (event.type === 'link.frame' && f?.kind === 'notification') run(enqueue, openSession(context, f.params, event.at));
    }),
    openSessionFromHeld: enqueueActions(({ context, enqueue }) => {
      const heldInOrder = inOrder(context.heldEvents);
      run(enqueue, openSession(context, context.heldConnect?.params ?? {}, context.heldConnect?.at));
      // Replayed in order through the root handlers, so blacklist and protocol checks still
      // apply, and a held disconnect (then maybe a next session) comes after the frames before it.
      for (const h of heldInOrder) enqueue.raise(h);
    }),
    holdLinkEvent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'link.frame' || event.type === 'link.connected' || event.type === 'link.disconnected') run(enqueue, holdLinkEvent(context, event));
    }),
    handleNotification: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (event.type !== 'link.frame' || f?.kind !== 'notification') return;
      run(enqueue, receiveNotification(context, event.bytes, f, event.at));
    }),
    completeCurrent: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      if (f?.kind === 'result') run(enqueue, completeCurrent(context, f.result));
    }),
    timeoutCurrent: enqueueActions(({ context, enqueue }) => run(enqueue, timeoutCurrent(context))),
    sendFailed: enqueueActions(({ context, event, enqueue }) => run(enqueue, sendFailed(context, (event as EventOf<'link.sendFailed'>).reason, (event as EventOf<'link.sendFailed'>).forGood === true))),
    startNext: enqueueActions(({ context, enqueue }) => run(enqueue, startNext(context))),
    refuseNext: enqueueActions(({ context, enqueue }) => run(enqueue, refuseNext(context))),
    linkConnected: enqueueActions(({ context, event, enqueue }) => run(enqueue, linkConnected(context, event as EventOf<'link.connected'>))),
    linkDisconnected: enqueueActions(({ context, event, enqueue }) =>
      run(enqueue, linkDisconnected(context, (event as EventOf<'link.disconnected'>).reason ?? 'link closed', (event as EventOf<'link.disconnected'>).at))),
    attachLink: enqueueActions(({ context, event, enqueue }) => {
      const { link, deps } = event as EventOf<'link.attach'>;
      if (context.linkUp) run(enqueue, linkDisconnected(context, 'link replaced'));
      if (deps && deps !== context.deps) enqueue.assign({ deps });
      enqueue.sendTo('link', { type: 'attach', link });
    }),
    acceptNow: enqueueActions(({ context, event, enqueue }) => run(enqueue, accept(context, subOf(event), 'now'))),
    acceptQueued: enqueueActions(({ context, event, enqueue }) => run(enqueue, accept(context, subOf(event), 'queued'))),
    rejectBusy: enqueueActions(({ context, event, enqueue }) =>
      run(enqueue, reject(context, subOf(event), 'DEVICE_BUSY', queueFull(context) ? 'the command queue is full' : 'a command is running or the device is restarting'))),
    rejectOffline: enqueueActions(({ context, event, enqueue }) => run(enqueue, reject(context, subOf(event), 'DEVICE_OFFLINE', 'the device is not connected'))),
    markDue: enqueueActions(({ context, event, enqueue }) => run(enqueue, markDue(context, (event as EventOf<'command.due'>).uuid))),
    expire: enqueueActions(({ context, event, enqueue }) => run(enqueue, expire(context, (event as EventOf<'command.expire'>).uuid))),
    abandonAll: enqueueActions(({ context, event, enqueue }) => {
      const e = event as EventOf<'device.shutdown'>;
      run(enqueue, abandonAll(context, e.reason, e.keepQueued === true));
    }),
    restoreCommand: enqueueActions(({ context, event, enqueue }) => run(enqueue, restore(context, (event as EventOf<'command.restore'>).submission))),
    maintenanceTimedOut: enqueueActions(({ context, enqueue }) => run(enqueue, endMaintenance(context, 'timedout'))),
    notRestarted: enqueueActions(({ context, event, enqueue }) => {
      const f = frameOf(event);
      const unit = f?.kind === 'notification' && isObject(f.params.state) && isObject(f.params.state.unit) ? f.params.state.unit : undefined;
      run(enqueue, endMaintenance(context, 'not-restarted', typeof unit?.uptime === 'number' ? unit.uptime : undefined));
    }),
  },
}).createMachine({
  id: 'device',
  context: ({ input }) => initialContext(
    input.serial, input.deps, { ...DEFAULT_TIMEOUTS, ...input.timeouts }, input.maxPending ?? DEFAULT_MAX_PENDING, input.link,
  ),
  // `device` and `fastPath` let the link actor take plain notifications on the machine's fast
  // path (notificationFastPath below, notification-lane.ts).
  invoke: { id: 'link', src: 'link', input: ({ context, self }) => ({ link: context.link, device: self as unknown as LaneDevice, fastPath: notificationFastPath }) },
  initial: 'offline',
  on: {
    'link.attach': { target: '.offline', actions: 'attachLink' },
    'link.connected': [
      { guard: 'blacklisted', target: '.offline', actions: ['linkConnected', 'dropBlacklisted'] },
      { target: '.connecting', actions: 'linkConnected' },
    ],
    'link.disconnected': { target: '.offline', actions: 'linkDisconnected' },
    // Order matters: the blacklist is checked on every frame first (docs/upstream.md#notifications), then params.serial
    // (not hex: drop; missing: ignored and counted, not a protocol error), then the error budget.
    'link.frame': [
      { guard: 'blacklisted', target: '.offline', actions: ['countFrame', 'dropBlacklisted'] },
      { guard: 'badSerial', target: '.offline', actions: ['countFrame', 'dropBadSerial'] },
      { guard: 'ignoredFrame', actions: 'noteIgnored' },
      { guard: 'lastProtocolError', target: '.offline', actions: ['countFrame', 'noteProtocolError', 'dropForErrors'] },
      { guard: 'protocolViolation', actions: ['countFrame', 'noteProtocolError'] },
      // The hot path (state, healthcheck, telemetry...): one action, one context update. Every
      // guard below needs a connect or a result, so it comes before them and skips their evaluation.
      { guard: 'plainNotification', actions: 'handleNotification' },
      { guard: 'connectOfProvisioned', target: '.online', actions: ['countFrame', 'openSessionFromFrame'] },
      { guard: 'isConnect', target: '.connecting.admitting', actions: ['countFrame', 'holdConnect'] },
      { guard: 'rebootAck', target: '.rebooting', actions: ['countFrame', 'completeCurrent'] },
      { guard: 'upgradeAck', target: '.upgrading', actions: ['countFrame', 'completeCurrent'] },
      { guard: 'factoryAck', target: '.factoryResetting', actions: ['countFrame', 'completeCurrent'] },
      { guard: 'currentResult', target: '.online.idle', actions: ['countFrame', 'completeCurrent'] },
      // A late reply to a timed-out or one-way command: counted as traffic, otherwise ignored.
      { guard: ({ event }) => frameOf(event)?.kind === 'result', actions: 'countFrame' },
    ],
    'link.sendFailed': { guard: 'currentRpc', target: '.online.idle', actions: 'sendFailed' },
    'command.submit': submitHandlers('rejectOffline'),
    'command.restore': { actions: 'restoreCommand' },
    'command.due': { actions: 'markDue' },
    'command.expire': { actions: 'expire' },
    'device.shutdown': { target: '.offline', actions: 'abandonAll' },
  },
  states: {
    offline: {
      // Frames after a drop, before the link's disconnect arrives, are not processed.
      on: { 'link.frame': { actions: 'countFrame' } },
    },
    connecting: {
      initial: 'awaitingConnect',
      states: {
        awaitingConnect: {
          after: { connectTimeout: { target: '#device.offline', actions: 'dropNoConnect' } },
        },
        admitting: {
          invoke: {
            src: 'admit',
            input: ({ context }) => ({ serial: context.serial, params: context.heldConnect?.params ?? {}, deps: context.deps }),
            onDone: [
              { guard: ({ event }) => event.output === 'accept', target: '#device.online', actions: 'openSessionFromHeld' },
              { target: '#device.offline', actions: 'refuseUnprovisioned' },
            ],
            onError: { target: '#device.offline', actions: 'admissionFailed' },
          },
          after: { admitTimeout: { target: '#device.offline', actions: 'admissionFailed' } },
          // The AP does not wait for the admission hook: keep what it says meanwhile (frames
          // without params.serial too: they are counted as ignored when handed on). A frame with a
          // bad serial, a connect included, drops the AP at once, as on an open session. The
          // link's disconnect and reconnect are kept too, in order, and so is everything after
          // them: a session that reaches serve at once (a stream backlog) is played in full.
          on: {
            'link.frame': [
              { guard: 'heldLinkChange', actions: 'holdLinkEvent' },
              { guard: 'blacklisted', target: '#device.offline', actions: ['countFrame', 'dropBlacklisted'] },
              { guard: 'badSerial', target: '#device.offline', actions: ['countFrame', 'dropBadSerial'] },
              { guard: 'isConnect', actions: ['countFrame', 'holdConnect'] },
              { actions: 'holdLinkEvent' },
            ],
            'link.disconnected': { actions: 'holdLinkEvent' },
            'link.connected': { actions: 'holdLinkEvent' },
          },
        },
      },
    },
    online: {
      initial: 'idle',
      states: {
        idle: {
          always: [
            { guard: 'nextIsRefused', actions: 'refuseNext' },
            { guard: 'nextIsOneWay', actions: 'startNext' },
            { guard: 'hasReady', target: 'busy', actions: 'startNext' },
          ],
          on: { 'command.submit': submitHandlers('acceptNow') },
        },
        busy: {
          after: { commandTimeout: { target: 'idle', actions: 'timeoutCurrent' } },
          on: { 'command.submit': submitHandlers('rejectBusy') },
        },
      },
    },
    rebooting: maintenanceState('rebootTimeout'),
    upgrading: maintenanceState('upgradeTimeout'),
    factoryResetting: maintenanceState('factoryTimeout'),
  },
});

/**
 * The machine's fast path for plain notifications, declared by its own transitions: in `online`
 * (whose states add no `link.frame` handler), the root's `link.frame` transitions are tried in
 * order; when the first whose guard holds is the one guarded by `plainNotification`, its action
 * (`handleNotification`) is all the machine would do, and when that step needs no follow-up the
 * link actor may apply it without a machine step (notification-lane.ts). The guards and their
 * order are read from the machine here, so they are written once, in the transitions above.
 */
type FrameGuard = (args: { context: DeviceContext; event: DeviceMachineEvent }) => boolean;
const FAST_GUARD = 'plainNotification';
const fastPathGuards: { before: FrameGuard[]; plain: FrameGuard } = (() => {
  const config = deviceMachine.config as { on?: Record<string, unknown>; states?: Record<string, { on?: Record<string, unknown>; states?: Record<string, { on?: Record<string, unknown> }> }> };
  const online = config.states?.online;
  const onlineHandlers = [online?.on, ...Object.values(online?.states ?? {}).map((s) => s.on)];
  if (onlineHandlers.some((on) => on?.['link.frame'] !== undefined)) throw new Error('device machine: online handles link.frame itself; the fast path must follow it');
  const transitions = config.on?.['link.frame'] as { guard?: unknown; actions?: unknown }[] | undefined;
  const at = transitions?.findIndex((t) => t.guard === FAST_GUARD) ?? -1;
  if (!transitions || at < 0 || transitions[at]!.actions !== 'handleNotification') throw new Error('device machine: no plain notification transition for the fast path');
  const guards = deviceMachine.implementations.guards as unknown as Record<string, FrameGuard>;
  const named = (g: unknown): FrameGuard => {
    if (typeof g !== 'string' || typeof guards[g] !== 'function') throw new Error('device machine: a link.frame guard before the fast path is not a named guard');
    return guards[g];
  };
  return { before: transitions.slice(0, at).map((t) => named(t.guard)), plain: named(FAST_GUARD) };
})();

/** What the machine would do with a frame in `context` (state `online` or not), when that is only its fast path's step. */
export function notificationFastPath(context: DeviceContext, online: boolean, event: EventOf<'link.frame'>): LaneStep | undefined {
  if (!online || event.frame.kind !== 'notification') return undefined;
  const args = { context, event };
  for (const guard of fastPathGuards.before) if (guard(args)) return undefined;
  if (!fastPathGuards.plain(args)) return undefined;
  return plainNotificationStep(context, event.bytes, event.frame, event.at);
}

/** Submission rules shared by every state; only the last resort differs (run, busy, offline). */
function submitHandlers(last: 'acceptNow' | 'rejectBusy' | 'rejectOffline') {
  return [
    { guard: 'queueFull' as const, actions: 'rejectBusy' as const },
    { guard: 'scheduledLater' as const, actions: 'acceptQueued' as const },
    ...(last === 'acceptNow' ? [] : [{ guard: 'queueable' as const, actions: 'acceptQueued' as const }]),
    { actions: last },
  ];
}

/** Rebooting / upgrading / factory-resetting: the AP acked and is expected to drop and come back. */
function maintenanceState(delay: 'rebootTimeout' | 'upgradeTimeout' | 'factoryTimeout') {
  return {
    on: {
      // A state on the session that acked, a while after: the AP did not restart (it may not).
      'link.frame': { guard: 'keptSession' as const, target: '#device.online', actions: ['handleNotification', 'notRestarted'] as const },
      'link.disconnected': { actions: 'linkDisconnected' as const },
      'command.submit': submitHandlers('rejectBusy'),
    },
    after: {
      [delay]: [
        { guard: 'sessionOpen' as const, target: '#device.online', actions: 'maintenanceTimedOut' as const },
        { target: '#device.offline', actions: 'maintenanceTimedOut' as const },
      ],
    },
  };
}
