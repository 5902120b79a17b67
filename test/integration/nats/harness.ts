/**
 * The real-AP path in one process for integration tests: a private nats-server, an edge, the
 * NatsLinkManager feeding a real Fleet (wall clock), and a CommandService over an in-memory store.
 */
import { randomUUID } from 'node:crypto';
import { CommandService } from '../../../actors/command-service.js';
import { Fleet, type FleetEvent, type FleetOptions } from '../../../actors/fleet.js';
import { createEdge, type Edge, type EdgeTls } from '../../../src/links/edge/edge-server.js';
import type { EdgeLimits } from '../../../src/links/edge/edge-session.js';
import { connectNats, silentLogger } from '../../../src/links/nats/connect.js';
import { NatsLinkManager, type NatsLinkManagerOptions } from '../../../src/links/nats/nats-link-manager.js';
import { wallClock, type Clock } from '../../../src/protocol/clock.js';
import type { DeviceLink } from '../../../src/protocol/device-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';
import { startNats, type TestNats } from '../../helpers/nats.js';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import { HDR_AT, HDR_RESYNC, RESYNC_SUBJECT, presenceSubject, upSubject } from '../../../src/links/nats/subjects.js';
import { connectFrame } from './frames.js';

/** Poll `cond` every 20 ms, at most `timeoutMs`; returns whether it became true. */
export async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  for (let t = 0; t < timeoutMs; t += 20) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

export interface Serve {
  fleet: Fleet;
  events: FleetEvent[];
  manager: NatsLinkManager;
  svc: CommandService;
  store: MemoryCommandStore;
  stop(): Promise<void>;
}

/** What `serve --nats` wires: manager -> fleet.attach (through `wrapLink`: serve's recorder), a command service on the fleet. */
export async function startServeSide(
  url: string, durable?: string, fleetOpts: Partial<FleetOptions> = {}, wrapLink: (link: DeviceLink) => DeviceLink = (link) => link,
  managerOpts: Partial<NatsLinkManagerOptions> = {},
): Promise<Serve> {
  const fleet = new Fleet({ clock: wallClock, newId: randomUUID, ...fleetOpts });
  const events: FleetEvent[] = [];
  fleet.events$.subscribe((e) => events.push(e));
  const store = new MemoryCommandStore();
  const svc = new CommandService({ fleet, store, clock: wallClock, newId: randomUUID, maxWaitMs: 20_000 });
  const manager = await NatsLinkManager.start({ url, logger: silentLogger, onDevice: (link) => fleet.attach(wrapLink(link)), ...(durable ? { durable } : {}), ...managerOpts });
  return {
    fleet, events, manager, svc, store,
    stop: async () => {
      await manager.close();
      svc.close();
      fleet.stopAll();
    },
  };
}

export interface EdgeSide {
  edge: Edge;
  nc: NatsConnection;
  stop(): Promise<void>;
}

export async function startEdgeSide(url: string, opts: { tls?: EdgeTls; limits?: Partial<EdgeLimits>; allowMismatch?: boolean; heartbeatMs?: number; clock?: Clock } = {}): Promise<EdgeSide> {
  const nc = await connectNats({ url, name: 'test-edge', logger: silentLogger });
  const edge = await createEdge({
    port: 0, host: '127.0.0.1', nats: nc, logger: silentLogger, tls: opts.tls, limits: opts.limits, heartbeatMs: opts.heartbeatMs, clock: opts.clock,
    certificates: opts.allowMismatch === undefined ? {} : { allowMismatch: opts.allowMismatch },
  });
  // Stopping twice (a test, then its cleanup) stops once.
  let stopped: Promise<void> | undefined;
  return {
    edge, nc,
    stop: () => (stopped ??= (async () => {
      await edge.close();
      await nc.drain().catch(() => undefined);
    })()),
  };
}

/**
 * An AP-side agent on `nc` without an edge: publishes into JetStream with the edge's receive-time
 * header and, like an edge, answers a starting serve's resync with presence + connect of `serials`.
 */
export function apAgent(nc: NatsConnection, serials: readonly string[]) {
  const js = jetstream(nc);
  /** `at` is the edge time the message claims (`Airtwin-At`): now unless given. */
  const pub = (subject: string, body: object, at = String(Date.now())) => {
    const h = headers();
    h.set(HDR_AT, at);
    return js.publish(subject, JSON.stringify(body), { headers: h });
  };
  nc.subscribe(RESYNC_SUBJECT, { callback: () => {
    for (const s of serials) {
      const h = headers();
      h.set(HDR_RESYNC, '1');
      h.set(HDR_AT, String(Date.now()));
      nc.publish(presenceSubject(s), JSON.stringify({ event: 'connect', edge: 'agent', at: Date.now() }));
      nc.publish(upSubject(s), JSON.stringify(connectFrame(s)), { headers: h });
    }
  } });
  /** A session as an edge starts it: presence, then the AP's connect. */
  const session = async (serial: string) => {
    await pub(presenceSubject(serial), { event: 'connect', edge: 'agent', at: Date.now() });
    await pub(upSubject(serial), connectFrame(serial));
  };
  return { pub, session };
}

export { startNats, type TestNats };
