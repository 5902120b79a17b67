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

/** What every AP's wiring shares in one run. */
interface LoadRunContext {
  opts: SimulateLoadOptions;
  venue: ReturnType<typeof buildVenue>;
  /** With `--nats`: the connection the APs publish on as an edge would; absent with `--edge`. */
  nc: NatsConnection | undefined;
  edgeId: string;
  beatMs: number;
  stats: { framesSent: number; commands: number; connected: number; reconnects: number };
  /** Run in order by stop(). */
  stoppers: (() => Promise<void> | void)[];
  stopping(): boolean;
}

/** One AP's wire to the edge or NATS: the last connect frame and the socket or presence it holds. */
interface ApWire {
  serial: string;
  link: SimLink;
  connectJson?: string;
  client?: WsApClient;
  presence?: Presence;
}

/** A frame the AP sends: over its socket (`--edge`) or on its up subject, stamped as an edge would (`--nats`). */
function sendUp(cx: LoadRunContext, w: ApWire, json: string): void {
  if (json.startsWith('{"jsonrpc":"2.0","method":"connect"')) w.connectJson = json;
  cx.stats.framesSent++;
  if (w.client) w.client.send(json);
  else if (cx.nc) {
    const h = headers();
    // Wall time, as an edge stamps what it receives: at --speed N the venue's clock runs ahead.
    h.set(HDR_AT, String(wallClock.now()));
    cx.nc.publish(upSubject(w.serial), json, { headers: h });
  }
}

/** A command from the cloud goes to the simulated AP, which answers through its link. */
function answer(cx: LoadRunContext, w: ApWire, frame: unknown): void {
  if (!isCommand(frame)) return;
  cx.stats.commands++;
  w.link.send(frame).catch(() => undefined);
}

/** `--edge`: the AP's websocket; when the edge drops it, the AP comes back with a new connect. */
function openSocket(cx: LoadRunContext, w: ApWire): void {
  const c = new WsApClient({
    url: `${cx.opts.edge!.replace(/\/$/, '')}/${w.serial}`, tls: cx.opts.tls, onCommand: (f) => answer(cx, w, f),
    onClose: () => {
      if (w.client !== c || cx.stopping()) return;
      // The edge dropped us (restart, idle, errors): come back like an AP, with a new connect.
      cx.stats.reconnects++;
      w.client = undefined;
      const t = setTimeout(() => {
        if (cx.stopping()) return;
        openSocket(cx, w);
        if (w.connectJson) w.client!.send(w.connectJson);
      }, 1000 + (parseInt(w.serial.slice(-4), 16) % 2000)); // spread by serial, not all at once
      cx.stoppers.push(() => clearTimeout(t));
    },
  });
  w.client = c;
}

/** `--nats`: commands on the AP's down subject, presence as an edge announces it, resync answered. */
function wireNats(cx: LoadRunContext, nc: NatsConnection, w: ApWire): (event: 'connect' | 'disconnect') => void {
  const announce = (event: 'connect' | 'disconnect'): void => {
    w.presence = { event, edge: cx.edgeId, beatMs: cx.beatMs, at: wallClock.now(), certificate: 'NO_CERTIFICATE' };
    nc.publish(presenceSubject(w.serial), JSON.stringify(w.presence));
  };
  const sub = nc.subscribe(downSubject(w.serial), { callback: (_e, m) => {
    if (m.headers?.get(HDR_CONTROL)) return;
    try { answer(cx, w, JSON.parse(m.string())); } catch { /* not a frame: an AP ignores it */ }
  } });
  cx.stoppers.push(() => sub.unsubscribe());
  return announce;
}

function driveAp(cx: LoadRunContext, serial: string): void {
  // The tap first runs from the link's connect timer, after this function has set `w`.
  const link = new SimLink(cx.venue, serial, { tap: (json) => sendUp(cx, w, json) });
  const w: ApWire = { serial, link };
  const nc = cx.nc;
  const announce = nc ? wireNats(cx, nc, w) : undefined;
  w.link.subscribe((e) => {
    if (e.type === 'connected') {
      cx.stats.connected++;
      if (announce) announce('connect');
      else openSocket(cx, w);
    } else if (e.type === 'disconnected') {
      cx.stats.connected--;
      announce?.('disconnect');
      const c = w.client;
      w.client = undefined;
      void c?.close();
    }
  });
  if (nc && announce) {
    const resync = nc.subscribe(RESYNC_SUBJECT, { callback: () => {
      if (w.presence?.event !== 'connect') return;
      announce('connect');
      if (w.connectJson) sendUp(cx, w, w.connectJson);
    } });
    cx.stoppers.push(() => resync.unsubscribe());
  }
  cx.stoppers.push(async () => {
    await w.link.close('simulate stopped');
    await w.client?.close();
  });
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
  let stopping = false;
  const cx: LoadRunContext = {
    opts, venue, nc: undefined, edgeId: `simulate-${process.pid}`, beatMs: opts.heartbeatMs ?? EDGE_HEARTBEAT_MS,
    stats: { framesSent: 0, commands: 0, connected: 0, reconnects: 0 }, stoppers: [], stopping: () => stopping,
  };
  let heartbeat: Heartbeat | undefined;
  if (opts.nats) {
    const nc = cx.nc = await connectNats({ url: opts.nats, name: cx.edgeId, logger });
    await ensureStream(await jetstreamManager(nc));
    // Beats as an edge does: a killed `simulate --nats` has its APs taken offline by serve.
    heartbeat = startHeartbeat({ nc, edge: cx.edgeId, intervalMs: cx.beatMs, sessions: () => cx.stats.connected, clock: wallClock });
  }
  for (const ap of aps) driveAp(cx, ap.serial);
  startClients(venue);

  return {
    aps: aps.length,
    stats: () => ({ ...cx.stats }),
    stop: async () => {
      stopping = true;
      for (const s of cx.stoppers.splice(0)) await s();
      heartbeat?.stop();
      if (cx.nc && !cx.nc.isClosed()) await cx.nc.drain();
    },
  };
}
