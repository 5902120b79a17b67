/**
 * The NATS contract between `airtwin edge` and `airtwin serve`
 * (docs/real-aps.md#subjects-the-contract). Both sides import these names, so a subject or header
 * cannot drift between them.
 *
 *   ucentral.<serial>.up        frames from the AP (JSON-RPC text, compress_64 already inflated)
 *   ucentral.<serial>.down      frames to the AP; a message with header Airtwin-Control: close drops it
 *   ucentral.<serial>.presence  {"event":"connect"|"disconnect","edge","at",session?,beatMs?,ipAddress?,certificate?,reason?}
 *   airtwin.edge.resync         serve asks every edge to announce its sessions again (after a restart)
 */
import { AckPolicy, DeliverPolicy, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
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
  /**
   * The publisher beats on EDGE_ALIVE_SUBJECT at this interval. serve then judges it from its
   * first connect on, even if it never hears it beat (an edge that died before serve started,
   * whose frames wait in the stream). Absent (or not a positive number): a publisher that does
   * not beat (an AP-side agent), never judged.
   */
  beatMs?: number;
  ipAddress?: string;
  certificate?: Certificate;
  reason?: string;
}

export function isPresence(v: unknown): v is Presence {
  const p = v as Presence;
  return typeof p === 'object' && p !== null && (p.event === 'connect' || p.event === 'disconnect')
    && typeof p.edge === 'string' && typeof p.at === 'number';
}

/**
 * An edge says it is alive every `intervalMs` on core NATS (not kept in the stream: a late beat
 * means nothing). serve takes an AP offline when the edge holding it has missed EDGE_MISSED_BEATS
 * beats: a killed edge sends no disconnect presence, so without beats its APs would look
 * connected until they came back through another edge. One subject for all edges: an edge id holds a hostname,
 * which may hold dots, so it cannot be a subject token.
 */
export const EDGE_ALIVE_SUBJECT = 'airtwin.edge.alive';
export const EDGE_HEARTBEAT_MS = 5_000;
export const EDGE_MISSED_BEATS = 3;

export interface EdgeAlive {
  edge: string;
  at: number;
  intervalMs: number;
  /** APs the edge holds now. */
  sessions: number;
  /** The edge's last beat as it closes cleanly (its APs' disconnects are on their way). */
  stopping?: boolean;
}

export function isEdgeAlive(v: unknown): v is EdgeAlive {
  const a = v as EdgeAlive;
  return typeof a === 'object' && a !== null && typeof a.edge === 'string' && a.edge !== '' && typeof a.at === 'number'
    && typeof a.intervalMs === 'number' && a.intervalMs > 0 && typeof a.sessions === 'number';
}

/** Stream and durable consumer defaults; several serve workers may use distinct durables. */
export const STREAM = 'UCENTRAL_UP';
export const STREAM_SUBJECTS = ['ucentral.*.up', 'ucentral.*.presence'];
export const DEFAULT_DURABLE = 'airtwin-serve';

// The subject-filter rules are pure and config checks them at start-up too, so they live in
// src/protocol (config may not import links); re-exported here for the links.
export { filterProblem, filtersOverlap, subjectMatches } from '../../protocol/nats-subjects.js';

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
    subjects: STREAM_SUBJECTS,
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
      // Another edge or worker created it between our two calls (10058, "stream name already in use"): fine.
      if (!(e instanceof JetStreamApiError && e.code === 10058)) throw e;
    }
  }
}

/** serve acknowledges every this many frames, or this long after the oldest unacknowledged one. */
export const ACK_EVERY = 5_000;
export const ACK_INTERVAL_MS = 1_000;

/** Most frames a worker holds unacknowledged (the ack cycle acks long before: NatsLinkManager). */
export const MAX_ACK_PENDING = 50_000;

/** Where a worker's filter is applied: nowhere (the whole stream), by nats-server, or by the worker itself. */
export type Filtering = 'none' | 'server' | 'client';

/** The consumer's description records the filter it was made for, whether or not the server applies it. */
const FILTER_NOTE = 'airtwin serve, filter: ';

type FilterConfig = { description?: string; filter_subject?: string; filter_subjects?: string[] };

/** The subjects nats-server filters this consumer on. */
function serverFilter(config: FilterConfig): string[] {
  return config.filter_subjects?.length ? config.filter_subjects : config.filter_subject ? [config.filter_subject] : [];
}

function madeFor(config: FilterConfig): string[] {
  if (config.description?.startsWith(FILTER_NOTE)) return config.description.slice(FILTER_NOTE.length).split(',').filter(Boolean);
  // Made by an airtwin that did not record it: what the server filters is what it was made for.
  return serverFilter(config);
}

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/**
 * nats-server refuses this filter, though the worker can apply it itself: several subjects
 * before 2.10 (nats.js checks), or before 2.10 one that neither lies within nor covers a stream
 * subject (`ucentral.<serial>.*`: 10093, "not a valid subset of the interest subjects").
 */
function refusedFilter(e: unknown): boolean {
  if (e instanceof JetStreamApiError) return e.code === 10093;
  return /'filter_subjects' requires server/.test(String((e as Error).message));
}

export interface ConsumerMade {
  made: 'created' | 'kept' | 'migrated' | 'reset' | 'refiltered';
  filtering: Filtering;
  /** Why nats-server does not apply the filter (filtering 'client'). */
  refused?: string;
}

/**
 * The durable pull consumer a serve worker reads from; survives the worker's restarts. Acks are
 * cumulative (AckPolicy.All): the worker acks the newest frame once everything before it is
 * stored, one ack per cycle instead of one per frame. One worker per durable, so a cumulative ack
 * never covers another worker's frames. The durable is made again from its ack floor, so nothing
 * unacknowledged is skipped, when an older airtwin made it with per-message acks ('migrated'),
 * when it has frames delivered to a previous worker that died before acknowledging them ('reset':
 * they come again now instead of after ack_wait), or when it was made for another filter
 * ('refiltered': frames of the new filter from the floor on; earlier ones stay skipped).
 *
 * `filter` narrows the consumer to a worker's part of the fleet: one subject goes as
 * `filter_subject` (any nats-server), several as `filter_subjects` (nats-server >= 2.10). Where
 * the server refuses the filter (see refusedFilter) the consumer covers the whole stream and the
 * worker skips what does not match ('client'): it still gets only its own APs, at the price of
 * receiving every frame.
 */
export async function ensureConsumer(
  jsm: JetStreamManager, durable: string, filter: string[] = [], opts: { takeOver: boolean } = { takeOver: true },
): Promise<ConsumerMade> {
  const found = await jsm.consumers.info(STREAM, durable).catch(() => undefined);
  const sameFilter = found !== undefined && sameSet(madeFor(found.config), filter);
  // A worker that is consuming (takeOver false: it only makes sure the consumer still exists)
  // holds unacknowledged frames itself: those are not a dead worker's.
  if (found && sameFilter && found.config.ack_policy === AckPolicy.All && (found.num_ack_pending === 0 || !opts.takeOver)) {
    return { made: 'kept', filtering: filter.length === 0 ? 'none' : sameSet(serverFilter(found.config), filter) ? 'server' : 'client' };
  }
  const floor = found?.ack_floor.stream_seq ?? 0;
  if (found) await jsm.consumers.delete(STREAM, durable);
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.All,
    // All: the first worker also ingests what edges captured before it ever ran (bounded by max_age).
    ...(floor > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1 } : { deliver_policy: DeliverPolicy.All }),
    ack_wait: 30_000_000_000,
    max_ack_pending: MAX_ACK_PENDING,
    ...(filter.length > 0 ? { description: `${FILTER_NOTE}${filter.join(',')}` } : {}),
  };
  const made = !found ? 'created' : !sameFilter ? 'refiltered' : found.config.ack_policy === AckPolicy.All ? 'reset' : 'migrated';
  if (filter.length === 0) {
    await jsm.consumers.add(STREAM, config);
    return { made, filtering: 'none' };
  }
  try {
    await jsm.consumers.add(STREAM, { ...config, ...(filter.length === 1 ? { filter_subject: filter[0] } : { filter_subjects: filter }) });
    return { made, filtering: 'server' };
  } catch (e) {
    if (!refusedFilter(e)) throw e;
    await jsm.consumers.add(STREAM, config);
    return { made, filtering: 'client', refused: (e as Error).message };
  }
}
