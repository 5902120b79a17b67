/**
 * The device side of rtty, as an AP's rtty 7.x client does it: connect to the server (TLS or
 * plain), register with the session id and token, answer each `login` with a terminal (up to
 * five at once), carry its bytes as `termdata`, and send a heartbeat every few seconds on the
 * injected clock. Simulated APs use it (src/runtime/sim-rtty.ts), and so do tests as the device.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Clock } from '../protocol/clock.js';
import { decodeDown, encodeUp, RttyFrameError, RttyFrameReader, RTTY_MAX_PAYLOAD, type RttyDown, type RttyUp } from './frames.js';

/** One terminal the client opened for a login. */
export interface RttyTerminal {
  input(data: Buffer): void;
  close(): void;
}

export interface RttyClientOptions {
  host: string;
  port: number;
  /** Speak TLS. The server's certificate is not checked: the session token is what the server proves by knowing. */
  tls: boolean;
  devid: string;
  token: string;
  description: string;
  clock: Clock;
  /** Opens the terminal of a login; `write` sends its output, `exit` logs it out. */
  openTerminal(io: { write(data: string | Buffer): void; exit(): void }): RttyTerminal;
  heartbeatS?: number;
  /** Seconds to wait for the server's answer to `register` (default 10). */
  registerTimeoutS?: number;
}

export interface RttyClient {
  /** Resolves once the server accepted the registration; rejects with why it did not. */
  registered: Promise<void>;
  /** Resolves with why the connection ended. */
  ended: Promise<string>;
  close(): void;
}

const MAX_TERMINALS = 5;

/** The connection to the server; a name (not an address) is also the TLS server name. */
function openSocket(opts: RttyClientOptions): Socket {
  return opts.tls
    ? tlsConnect({ host: opts.host, port: opts.port, rejectUnauthorized: false, ...(/^[\d.:]+$/.test(opts.host) ? {} : { servername: opts.host }) })
    : netConnect({ host: opts.host, port: opts.port });
}

/** Terminal output as termdata frames, each within the protocol's payload limit (one byte is the sid). */
function sendTermdata(send: (m: RttyUp) => void, sid: number, data: string | Buffer): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; at += RTTY_MAX_PAYLOAD - 1) send({ type: 'termdata', sid, data: bytes.subarray(at, at + RTTY_MAX_PAYLOAD - 1) });
}

export function connectRttyClient(opts: RttyClientOptions): RttyClient {
  const socket = openSocket(opts);
  const terminals = new Map<number, RttyTerminal>();
  const reader = new RttyFrameReader();
  let timer: unknown;
  let done = false;
  let accepted = false;
  let endWith: (why: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => { endWith = resolve; });
  let settle: { ok(): void; fail(e: Error): void } = { ok: () => undefined, fail: () => undefined };
  const registered = new Promise<void>((ok, fail) => { settle = { ok, fail }; });
  registered.catch(() => undefined);

  const send = (m: RttyUp) => { if (!done && !socket.destroyed) socket.write(encodeUp(m)); };
  const arm = (fn: () => void, s: number) => {
    if (timer !== undefined) opts.clock.clearTimeout(timer);
    timer = opts.clock.setTimeout(fn, s * 1000);
  };
  const finish = (why: string) => {
    if (done) return;
    done = true;
    if (timer !== undefined) opts.clock.clearTimeout(timer);
    for (const t of terminals.values()) t.close();
    terminals.clear();
    socket.destroy();
    if (!accepted) settle.fail(new Error(why));
    endWith(why);
  };
  const heartbeat = () => {
    send({ type: 'heartbeat', uptime: Math.floor(opts.clock.now() / 1000) >>> 0 });
    arm(heartbeat, opts.heartbeatS ?? 5);
  };
  const login = () => {
    let sid = 0;
    while (terminals.has(sid)) sid++;
    if (sid >= MAX_TERMINALS) return send({ type: 'login', err: 1, sid: 0 });
    send({ type: 'login', err: 0, sid });
    const terminal = opts.openTerminal({
      write: (data) => sendTermdata(send, sid, data),
      exit: () => {
        if (terminals.delete(sid)) send({ type: 'logout', sid });
      },
    });
    terminals.set(sid, terminal);
  };
  const onMessage = (m: RttyDown) => {
    switch (m.type) {
      case 'registered':
        if (m.code !== 0) return finish(`registration refused: ${m.message}`);
        accepted = true;
        settle.ok();
        return heartbeat();
      case 'login': return login();
      case 'termdata': return terminals.get(m.sid)?.input(m.data);
      case 'logout': {
        const t = terminals.get(m.sid);
        terminals.delete(m.sid);
        return t?.close();
      }
      default: return undefined;
    }
  };

  socket.once(opts.tls ? 'secureConnect' : 'connect', () => {
    send({ type: 'register', devid: opts.devid, description: opts.description, token: opts.token });
    arm(() => finish('no answer to register'), opts.registerTimeoutS ?? 10);
  });
  socket.on('data', (chunk: Buffer) => {
    try {
      for (const frame of reader.push(chunk)) {
        if (done) return;
        onMessage(decodeDown(frame));
      }
    } catch (e) {
      if (!(e instanceof RttyFrameError)) throw e;
      finish(`bad frame from the server: ${e.message}`);
    }
  });
  socket.on('error', (e) => finish(e.message));
  socket.on('close', () => finish('connection closed'));
  return { registered, ended, close: () => finish('closed') };
}
