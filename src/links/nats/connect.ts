/**
 * One way to open a NATS connection for the edge and for serve: reconnect forever with jittered
 * backoff (nats.js does the waiting) and report status changes so they are logged and shown on a
 * health endpoint. nats.js drops what was published while disconnected at each reconnect
 * attempt: the edge holds its frames itself meanwhile (links/edge/outage-buffer.ts).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** The pino-shaped logger the links use; `pino()` satisfies it. */
export interface LinkLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

export const silentLogger: LinkLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export type NatsStatus = 'connected' | 'reconnecting' | 'closed';

export interface NatsConnectOptions {
  url: string;
  name: string;
  logger: LinkLogger;
  /** First wait between reconnect attempts, ms (default 250); nats.js adds jitter. */
  reconnectTimeWaitMs?: number;
  onStatus?: (status: NatsStatus) => void;
}

export async function connectNats(opts: NatsConnectOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url.split(','),
    name: opts.name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? 250,
    reconnectJitter: 250,
    pingInterval: 10_000,
    maxPingOut: 3,
  });
  opts.logger.info({ nats: nc.getServer(), name: opts.name }, 'nats connected');
  opts.onStatus?.('connected');
  void watchStatus(nc, opts);
  return nc;
}

async function watchStatus(nc: NatsConnection, opts: NatsConnectOptions): Promise<void> {
  let last: NatsStatus = 'connected';
  const set = (s: NatsStatus, data: unknown): void => {
    if (s === last) return;
    last = s;
    const log = s === 'connected' ? opts.logger.info : opts.logger.warn;
    log.call(opts.logger, { nats: String(data ?? ''), status: s }, `nats link ${s}`);
    opts.onStatus?.(s);
  };
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') set('reconnecting', s.server);
    else if (s.type === 'reconnecting') set('reconnecting', '');
    else if (s.type === 'reconnect') set('connected', s.server);
  }
  await nc.closed();
  set('closed', '');
}
