/**
 * The device machine's command steps: accept, queue, send, complete, time out, expire and restore
 * commands (docs/actors.md, docs/upstream.md#command-lifecycle). Pure like every step: each takes
 * the context and returns effects (device-context.ts).
 */
import type { JsonObject } from '../../src/protocol/frame.js';
import {
  commandFrame, executedRecord, expiredRecord, failedRecord, refusedRecord, resultRecord, scanEntries, sentRecord, survivesRestart,
  timedOutRecord, type Pending,
} from './command-lifecycle.js';
import { restrictionRefusal, restrictionsOf } from './restrictions.js';
import type { Command, CommandSubmission, RestartKind } from './device.types.js';
import type { DecodedFrame } from './frame-decoder.js';
import {
  chain, closeIds, deviceEvent, dueId, expireId, MAX_REPORT_WAITERS, updated, type DeviceContext, type Effects,
} from './device-context.js';

/** A running command ends without a reply (disconnect, reconnect, shutdown). */
export function abortCurrent(ctx: DeviceContext, reason: string): Effects {
  if (!ctx.current) return {};
  const cmd = failedRecord(ctx.current.sub.command, ctx.deps.now(), reason);
  return { ctx: { current: undefined, closedRpcIds: closeIds(ctx, ctx.current.rpcId) }, emit: [updated(ctx, cmd)] };
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
