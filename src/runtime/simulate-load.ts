/**
 * `airtwin simulate --scenario X --edge ws://host:port | --nats URL [--speed N]`: a load
 * generator for the real path. Every AP of the venue runs on its SimLink (real time, or N times
 * faster) and talks like a real AP: a websocket client of an edge, or straight on the NATS
 * subjects as an edge would publish them (wall-time stamps, presence, heartbeat). Commands coming
 * back are answered by the simulated AP.
 */
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager } from '@nats-io/jetstream';
import { startClients } from '../../simulator/clients/dynamics.js';
import { ScaledClock } from '../../simulator/clock.js';
import { SimLink } from '../../simulator/link.js';
import { loadScenario } from '../../simulator/scenario.js';
import { buildVenue } from '../../simulator/venue.js';
import { wallClock } from '../protocol/clock.js';
import { isCommand } from '../protocol/frame.js';
import { connectNats, silentLogger, type LinkLogger } from '../links/nats/connect.js';
import { EDGE_HEARTBEAT_MS, HDR_AT, HDR_CONTROL, RESYNC_SUBJECT, downSubject, ensureStream, presenceSubject, upSubject, type Presence } from '../links/nats/subjects.js';
import { startHeartbeat, type Heartbeat } from '../links/nats/liveness.js';
import { WsApClient, type WsApTls } from '../links/sim-ws-client.js';

export interface SimulateLoadOptions {
  /** Scenario name (scenarios/) or file. */
  scenario: string;
  seed?: number;
  /** Real time times N (default 1). */
  speed?: number;
  /** Edge URL (ws:// or wss://); exactly one of `edge` and `nats`. */
  edge?: string;
  /** NATS URL: publish as an AP-side agent, no edge. */
  nats?: string;
  /** Client certificate for wss:// edges. */
  tls?: WsApTls;
  /** Only the first N APs of the venue. */
  limit?: number;
  /** `--nats`: how often it beats as an edge (default EDGE_HEARTBEAT_MS). */
  heartbeatMs?: number;
  logger?: LinkLogger;
}

export interface LoadRun {
  aps: number;
  stats(): { framesSent: number; commands: number; connected: number; reconnects: number };
  stop(): Promise<void>;
}

export async function startSimulateLoad(opts: SimulateLoadOptions, out?: NodeJS.WritableStream): Promise<LoadRun> {
  if (!opts.edge === !opts.nats) throw new RangeError('simulate: give exactly one of --edge URL and --nats URL');
  const logger = opts.logger ?? silentLogger;
  const { scenario, file } = loadScenario(opts.scenario);
  const seed = opts.seed ?? scenario.seed;
  const clock = new ScaledClock(wallClock, opts.speed ?? 1);
  const venue = buildVenue(scenario, clock, seed);
  const aps = venue.aps.slice(0, opts.limit ?? venue.aps.length);
  out?.write(`simulate: ${scenario.name} (${file}), seed ${seed}, ${aps.length} APs at speed ${opts.speed ?? 1} -> ${opts.edge ?? opts.nats}\n`);
  const stats = { framesSent: 0, commands: 0, connected: 0, reconnects: 0 };
  const stoppers: (() => Promise<void> | void)[] = [];
  let stopping = false;

  let nc: NatsConnection | undefined;
  let heartbeat: Heartbeat | undefined;
  const edgeId = `simulate-${process.pid}`;
  const beatMs = opts.heartbeatMs ?? EDGE_HEARTBEAT_MS;
  if (opts.nats) {
    nc = await connectNats({ url: opts.nats, name: edgeId, logger });
    await ensureStream(await jetstreamManager(nc));
    // Beats as an edge does: a killed `simulate --nats` has its APs taken offline by serve.
    heartbeat = startHeartbeat({ nc, edge: edgeId, intervalMs: beatMs, sessions: () => stats.connected, clock: wallClock });
  }

  for (const ap of aps) {
    const serial = ap.serial;
    let connectJson: string | undefined;
    let client: WsApClient | undefined;
    let presence: Presence | undefined;
    const link = new SimLink(venue, serial, { tap: (json) => send(json) });
    const answer = (frame: unknown): void => {
      if (!isCommand(frame)) return;
      stats.commands++;
      link.send(frame).catch(() => undefined);
    };
    const send = (json: string): void => {
      if (json.startsWith('{"jsonrpc":"2.0","method":"connect"')) connectJson = json;
      stats.framesSent++;
      if (client) client.send(json);
      else if (nc) {
        const h = headers();
        // Wall time, as an edge stamps what it receives: at --speed N the venue's clock runs ahead.
        h.set(HDR_AT, String(wallClock.now()));
        nc.publish(upSubject(serial), json, { headers: h });
      }
    };
    const openSocket = (): void => {
      const c = new WsApClient({
        url: `${opts.edge!.replace(/\/$/, '')}/${serial}`, tls: opts.tls, onCommand: answer,
        onClose: () => {
          if (client !== c || stopping) return;
          // The edge dropped us (restart, idle, errors): come back like an AP, with a new connect.
          stats.reconnects++;
          client = undefined;
          const t = setTimeout(() => {
            if (stopping) return;
            openSocket();
            if (connectJson) client!.send(connectJson);
          }, 1000 + (parseInt(serial.slice(-4), 16) % 2000)); // spread by serial, not all at once
          stoppers.push(() => clearTimeout(t));
        },
      });
      client = c;
    };
    if (nc) {
      const sub = nc.subscribe(downSubject(serial), { callback: (_e, m) => {
        if (m.headers?.get(HDR_CONTROL)) return;
        try { answer(JSON.parse(m.string())); } catch { /* not a frame: an AP ignores it */ }
      } });
      stoppers.push(() => sub.unsubscribe());
    }
    const announce = (event: 'connect' | 'disconnect'): void => {
      presence = { event, edge: edgeId, beatMs, at: wallClock.now(), certificate: 'NO_CERTIFICATE' };
      nc!.publish(presenceSubject(serial), JSON.stringify(presence));
    };
    link.subscribe((e) => {
      if (e.type === 'connected') {
        stats.connected++;
        if (nc) announce('connect');
        else openSocket();
      } else if (e.type === 'disconnected') {
        stats.connected--;
        if (nc) announce('disconnect');
        const c = client;
        client = undefined;
        void c?.close();
      }
    });
    if (nc) {
      const resync = nc.subscribe(RESYNC_SUBJECT, { callback: () => {
        if (presence?.event !== 'connect') return;
        announce('connect');
        if (connectJson) send(connectJson);
      } });
      stoppers.push(() => resync.unsubscribe());
    }
    stoppers.push(async () => {
      await link.close('simulate stopped');
      await client?.close();
    });
  }
  startClients(venue);

  return {
    aps: aps.length,
    stats: () => ({ ...stats }),
    stop: async () => {
      stopping = true;
      for (const s of stoppers.splice(0)) await s();
      heartbeat?.stop();
      if (nc && !nc.isClosed()) await nc.drain();
    },
  };
}
