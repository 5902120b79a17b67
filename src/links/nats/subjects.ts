/**
 * The NATS contract between `airtwin edge` and `airtwin serve` (architecture.md, "NATS subjects").
 * Both sides import these names, so a subject or header cannot drift between them.
 *
 *   ucentral.<serial>.up        frames from the AP (JSON-RPC text, compress_64 already inflated)
 *   ucentral.<serial>.down      frames to the AP; a message with header Airtwin-Control: close drops it
 *   ucentral.<serial>.presence  {"event":"connect"|"disconnect","edge","at",ipAddress?,certificate?,reason?}
 *   airtwin.edge.resync         serve asks every edge to announce its sessions again (after a restart)
 */
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type JetStreamManager } from 'nats';
import type { LinkEvent } from '../../protocol/device-link.js';

export const upSubject = (serial: string): string => `ucentral.${serial}.up`;
export const downSubject = (serial: string): string => `ucentral.${serial}.down`;
export const presenceSubject = (serial: string): string => `ucentral.${serial}.presence`;
export const RESYNC_SUBJECT = 'airtwin.edge.resync';

/** Serial and kind of a `ucentral.<serial>.<kind>` subject, or undefined. */
export function parseSubject(subject: string): { serial: string; kind: 'up' | 'down' | 'presence' } | undefined {
  const parts = subject.split('.');
  if (parts.length !== 3 || parts[0] !== 'ucentral') return undefined;
  const kind = parts[2];
  if (kind !== 'up' && kind !== 'down' && kind !== 'presence') return undefined;
  return { serial: parts[1]!, kind };
}

/** Headers on `.up`: when the edge received the frame, and why it is malformed (then the body is the raw text). */
export const HDR_AT = 'Airtwin-At';
export const HDR_MALFORMED = 'Airtwin-Malformed';
/** On a `connect` the edge re-sends for a resync: a serve that already has the session ignores it. */
export const HDR_RESYNC = 'Airtwin-Resync';
/** Header on `.down`: a control message instead of a frame (`close`). */
export const HDR_CONTROL = 'Airtwin-Control';
export const HDR_REASON = 'Airtwin-Reason';

export type Certificate = NonNullable<Extract<LinkEvent, { type: 'connected' }>['certificate']>;

export interface Presence {
  event: 'connect' | 'disconnect';
  edge: string;
  at: number;
  /** Session id within the edge: a late disconnect of a replaced socket is recognised and ignored. */
  session?: number;
  ipAddress?: string;
  certificate?: Certificate;
  reason?: string;
}

export function isPresence(v: unknown): v is Presence {
  const p = v as Presence;
  return typeof p === 'object' && p !== null && (p.event === 'connect' || p.event === 'disconnect')
    && typeof p.edge === 'string' && typeof p.at === 'number';
}

/** Stream and durable consumer defaults; several serve workers may use distinct durables. */
export const STREAM = 'UCENTRAL_UP';
export const DEFAULT_DURABLE = 'airtwin-serve';

export interface StreamLimits {
  /** How long frames are kept for a worker that is down (default 24 h). */
  maxAgeMs?: number;
  /** Upper bound of the stream on disk (default 1 GiB; the oldest frames go first). */
  maxBytes?: number;
}

/**
 * Create (or widen) the stream that keeps `.up` frames and presence while no worker reads them.
 * Presence is in the same stream so a consumer sees "connect", the frames, "disconnect" in the
 * order the edge published them; two streams would need a merge with no ordering guarantee.
 * Idempotent, so every edge and every serve calls it at start.
 */
export async function ensureStream(jsm: JetStreamManager, limits: StreamLimits = {}): Promise<void> {
  const config = {
    name: STREAM,
    subjects: ['ucentral.*.up', 'ucentral.*.presence'],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: (limits.maxAgeMs ?? 86_400_000) * 1_000_000,
    max_bytes: limits.maxBytes ?? 1024 ** 3,
  };
  try {
    await jsm.streams.info(STREAM);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (e) {
      // Another edge or worker created it between our two calls: fine.
      if (!String((e as Error).message).includes('already in use')) throw e;
    }
  }
}

/** serve acknowledges every this many frames, or this long after the oldest unacknowledged one. */
export const ACK_EVERY = 5_000;
export const ACK_INTERVAL_MS = 1_000;

/** Most frames a worker holds unacknowledged (the ack cycle acks long before: NatsLinkManager). */
export const MAX_ACK_PENDING = 50_000;

/**
 * The durable pull consumer a serve worker reads from; survives the worker's restarts. Acks are
 * cumulative (AckPolicy.All): the worker acks the newest frame once everything before it is
 * stored, one ack per cycle instead of one per frame. One worker per durable, so a cumulative ack
 * never covers another worker's frames. The durable is made again from its ack floor, so nothing
 * unacknowledged is skipped, when an older airtwin made it with per-message acks ('migrated'), or
 * when it has frames delivered to a previous worker that died before acknowledging them ('reset':
 * they come again now instead of after ack_wait).
 */
export async function ensureConsumer(
  jsm: JetStreamManager, durable: string, filterSubjects?: string[], opts: { takeOver: boolean } = { takeOver: true },
): Promise<'created' | 'kept' | 'migrated' | 'reset'> {
  const found = await jsm.consumers.info(STREAM, durable).catch(() => undefined);
  // A worker that is consuming (takeOver false: it only makes sure the consumer still exists)
  // holds unacknowledged frames itself: those are not a dead worker's.
  if (found && found.config.ack_policy === AckPolicy.All && (found.num_ack_pending === 0 || !opts.takeOver)) return 'kept';
  const floor = found?.ack_floor.stream_seq ?? 0;
  if (found) await jsm.consumers.delete(STREAM, durable);
  await jsm.consumers.add(STREAM, {
    durable_name: durable,
    ack_policy: AckPolicy.All,
    // All: the first worker also ingests what edges captured before it ever ran (bounded by max_age).
    ...(floor > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1 } : { deliver_policy: DeliverPolicy.All }),
    ack_wait: 30_000_000_000,
    max_ack_pending: MAX_ACK_PENDING,
    ...(filterSubjects ? { filter_subjects: filterSubjects } : {}),
  });
  return !found ? 'created' : found.config.ack_policy === AckPolicy.All ? 'reset' : 'migrated';
}
