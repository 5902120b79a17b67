import type { Logger } from 'pino';
import type { Clock } from '../protocol/clock.js';
import { connectRttyClient, type RttyClient } from '../rtty/client.js';
import type { SimRtty } from '../../simulator/link.js';

/**
 * How simulated APs reach an rtty server: a real rtty client over TCP (TLS when serve has a
 * certificate, since the internal server then speaks TLS), its terminals running the AP's
 * simulated shell. The clients end with serve (`close`).
 */
export function simRtty(ctx: { clock: Clock; logger: Logger; tls: boolean }): { rtty: SimRtty; close(): void } {
  const clients = new Set<RttyClient>();
  const rtty: SimRtty = ({ serial, server, port, id, token, shell }) => {
    const client = connectRttyClient({
      host: server, port, tls: ctx.tls, devid: id, token, description: `simulated AP ${serial}`, clock: ctx.clock,
      openTerminal: (io) => {
        const sh = shell({ write: (text) => io.write(text), exit: () => io.exit() });
        return { input: (data) => sh.input(data.toString()), close: () => sh.close() };
      },
    });
    clients.add(client);
    client.registered.catch((e: Error) => ctx.logger.warn({ serial, server, port, why: e.message }, 'simulated AP could not register with the rtty server'));
    void client.ended.then(() => clients.delete(client));
  };
  return {
    rtty,
    close: () => {
      for (const c of clients) c.close();
      clients.clear();
    },
  };
}
