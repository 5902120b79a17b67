import type { WebSocket } from 'ws';
import type { Clock } from '../protocol/clock.js';
import type { Authenticator, Principal } from '../server/auth.js';

/** RFC 6455 §7.4.1: policy violation (no, or a bad, token frame). */
const POLICY = 1008;

export interface TokenFrameOptions {
  authenticator: Authenticator;
  clock: Clock;
  /** How long the client has to send its token frame (default 30 s). */
  timeoutMs?: number;
  /** The token was good: the socket is the caller's; what it returns gets the frames that follow. */
  onAuthenticated(principal: Principal): (text: string) => void;
}

/**
 * A websocket whose client authenticates with its first text frame, `token:<t>`, as the
 * OpenWiFi UI does (a browser cannot set headers on a websocket). Nothing is sent to it before;
 * a bad token, another first frame, or none within the timeout gets an error frame (upstream's
 * wording) and the socket closes with 1008. Frames that arrive while the token is checked wait
 * for the handler, in order.
 */
export function awaitTokenFrame(socket: WebSocket, opts: TokenFrameOptions): void {
  let state: 'waiting' | 'checking' | 'open' | 'closed' = 'waiting';
  let handler: ((text: string) => void) | undefined;
  const early: string[] = [];
  const refuse = (reason: string) => {
    state = 'closed';
    opts.clock.clearTimeout(timer);
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify({ error: 'Invalid token. Closing connection.' }));
    socket.close(POLICY, reason);
  };
  const timer = opts.clock.setTimeout(() => {
    if (state === 'waiting') refuse('no token frame in time');
  }, opts.timeoutMs ?? 30_000);
  socket.on('close', () => {
    state = 'closed';
    opts.clock.clearTimeout(timer);
  });
  socket.on('message', (data, isBinary) => {
    const text = isBinary ? '' : data.toString();
    if (state === 'open') handler!(text);
    else if (state === 'checking') early.push(text);
    else if (state === 'waiting') check(text);
  });
  function check(text: string): void {
    const match = /^token:(\S+)$/.exec(text.trim());
    if (!match) {
      refuse('the first frame must be token:<token>');
      return;
    }
    state = 'checking';
    opts.authenticator.verify(`Bearer ${match[1]}`).then((principal) => {
      if (state !== 'checking') return;
      state = 'open';
      opts.clock.clearTimeout(timer);
      handler = opts.onAuthenticated(principal);
      for (const t of early.splice(0)) handler(t);
    }, () => refuse('invalid token'));
  }
}
