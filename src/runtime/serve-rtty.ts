/**
 * Where `serve` sends APs for remote sessions: with `--rtty-server` an external rtty server
 * (rttys), else airtwin's own (src/rtty/server.ts), started here before any AP connects so
 * sessions carry the ports it bound. `--no-rtty`: neither.
 */
import type { Clock } from '../protocol/clock.js';
import type { ServeConfig } from '../config/schema.js';
import { ConfigError } from '../config/flags.js';
import type { Logging } from '../server/logging.js';
import { RTTY_DEFAULTS } from '../gateway/remote-session.js';
import { InternalRttyServer } from '../rtty/server.js';
import type { RttyServer } from '../../actors/command-params.js';
import type { Closers } from './serve-services.js';

export interface ServeRtty {
  /** What GET rtty tells APs and callers; absent with --no-rtty. */
  settings?: RttyServer;
  internal?: InternalRttyServer;
  /** The banner's line. */
  banner: string[];
}

/** Binds `port`, else (it is busy, or the gateway took a free port) a free one; `configured` ports are taken as given. */
async function bindInternal(server: InternalRttyServer, config: Readonly<ServeConfig>, logging: Logging): Promise<{ port: number; viewport: number }> {
  const configured = config.rttyPort !== undefined || config.rttyViewport !== undefined;
  const free = config.gatewayPort === 0 && !configured;
  const port = config.rttyPort ?? (free ? 0 : RTTY_DEFAULTS.port);
  const viewport = config.rttyViewport ?? (free ? 0 : RTTY_DEFAULTS.viewport);
  try {
    return await server.listen(port, viewport, config.host);
  } catch (e) {
    if (configured || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    logging.for('gateway').warn({ port, viewport }, 'rtty ports busy; the internal rtty server takes free ones (GET rtty names them)');
    return server.listen(0, 0, config.host);
  }
}

export async function startServeRtty(
  config: Readonly<ServeConfig>,
  ctx: { clock: Clock; logging: Logging; https?: { cert: Buffer; key: Buffer }; closers: Closers },
): Promise<ServeRtty> {
  if (!config.rtty) return { banner: ['  rtty     off (--no-rtty)'] };
  const timeout = config.rttyTimeout ?? RTTY_DEFAULTS.timeout;
  const token = config.rttyToken ? { token: config.rttyToken } : {};
  if (config.rttyServer !== undefined) {
    const port = config.rttyPort ?? RTTY_DEFAULTS.port;
    const viewport = config.rttyViewport ?? RTTY_DEFAULTS.viewport;
    if (port === 0 || viewport === 0) throw new ConfigError('--rtty-port and --rtty-viewport name the external rtty server\'s ports: 0 is not one');
    return {
      settings: { server: config.rttyServer, port, viewport, timeout, ...token },
      banner: [`  rtty     external ${config.rttyServer}:${port}, view port ${viewport}`],
    };
  }
  const internal = new InternalRttyServer({
    clock: ctx.clock, timeoutS: timeout, maxSessions: config.rttyMaxSessions ?? 0, logger: ctx.logging.for('gateway'),
    ...(ctx.https ? { https: ctx.https } : {}),
  });
  ctx.closers.push(() => internal.close());
  const bound = await bindInternal(internal, config, ctx.logging);
  const server = config.rttyHost ?? RTTY_DEFAULTS.server;
  const scheme = ctx.https ? 'https' : 'http';
  return {
    internal,
    settings: {
      server, port: bound.port, viewport: bound.viewport, timeout, ...token,
      sessions: { open: (s) => internal.open(s), end: (id) => internal.end(id) },
    },
    banner: [`  rtty     internal: devices ${server}:${bound.port}${ctx.https ? ' (TLS)' : ''}, sessions ${scheme}://${server}:${bound.viewport}/connect/<id>`],
  };
}
