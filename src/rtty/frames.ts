/**
 * The rtty wire protocol between an AP's rtty client and an rtty server, in the form OpenWiFi
 * APs speak it (rtty 7.x, the one the gateway's internal server reads; docs/upstream.md#remote-sessions):
 * every message is `type (1 byte) | length (2 bytes, big endian) | payload`. A session is one
 * byte (`sid`) that the device picks when the server asks it to log in.
 *
 * Payloads differ by direction, so a message is decoded as `up` (device to server) or `down`
 * (server to device). Anything that does not parse throws `RttyFrameError`: a caller counts it
 * and closes that one connection.
 */

export const RTTY_TYPE = {
  register: 0, login: 1, logout: 2, termdata: 3, winsize: 4, cmd: 5, heartbeat: 6, file: 7, http: 8, ack: 9,
} as const;
export type RttyTypeName = keyof typeof RTTY_TYPE;
const TYPE_NAMES = Object.keys(RTTY_TYPE) as RttyTypeName[];

export const RTTY_HEADER_BYTES = 3;
export const RTTY_MAX_PAYLOAD = 0xffff;

export class RttyFrameError extends Error {
  override name = 'RttyFrameError';
}

export interface RttyFrame { type: number; payload: Buffer }

/** Device to server. `other`: a type the gateway's server drains unread (cmd, file, http, ack). */
export type RttyUp =
  | { type: 'register'; devid: string; description: string; token: string }
  | { type: 'login'; err: number; sid: number }
  | { type: 'logout'; sid: number }
  | { type: 'termdata'; sid: number; data: Buffer }
  | { type: 'heartbeat'; uptime: number }
  | { type: 'other'; code: number; payload: Buffer };

/** Server to device. `registered` answers `register` (code 0 = accepted). */
export type RttyDown =
  | { type: 'registered'; code: number; message: string }
  | { type: 'login' }
  | { type: 'logout'; sid: number }
  | { type: 'termdata'; sid: number; data: Buffer }
  | { type: 'winsize'; sid: number; cols: number; rows: number }
  | { type: 'heartbeat' };

export function encodeFrame(type: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  if (payload.length > RTTY_MAX_PAYLOAD) throw new RttyFrameError(`payload of ${payload.length} bytes is over ${RTTY_MAX_PAYLOAD}`);
  const head = Buffer.alloc(RTTY_HEADER_BYTES);
  head.writeUInt8(type, 0);
  head.writeUInt16BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/**
 * Splits a byte stream into frames. Holds at most one partial frame (under 64 KiB + 3), so a
 * peer cannot make it buffer more; a type byte past `ack` is refused before its payload arrives.
 */
export class RttyFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): RttyFrame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: RttyFrame[] = [];
    for (;;) {
      if (this.pending.length >= 1 && this.pending[0]! > RTTY_TYPE.ack) throw new RttyFrameError(`unknown message type ${this.pending[0]!}`);
      if (this.pending.length < RTTY_HEADER_BYTES) break;
      const length = this.pending.readUInt16BE(1);
      if (this.pending.length < RTTY_HEADER_BYTES + length) break;
      frames.push({ type: this.pending[0]!, payload: Buffer.from(this.pending.subarray(RTTY_HEADER_BYTES, RTTY_HEADER_BYTES + length)) });
      this.pending = this.pending.subarray(RTTY_HEADER_BYTES + length);
    }
    return frames;
  }

  /** Bytes of a frame not yet complete. */
  get buffered(): number {
    return this.pending.length;
  }
}

export function typeName(type: number): RttyTypeName | undefined {
  return TYPE_NAMES[type];
}

function expectLength(what: string, payload: Buffer, length: number): void {
  if (payload.length !== length) throw new RttyFrameError(`${what} carries ${payload.length} bytes, not ${length}`);
}

/** NUL-terminated strings, each printable ASCII (ids, tokens and descriptions are). */
function cStrings(payload: Buffer, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = payload.indexOf(0, at);
    if (end < 0) throw new RttyFrameError(`register: string ${i + 1} of ${count} is not NUL-terminated`);
    const s = payload.subarray(at, end).toString('latin1');
    if (!/^[\x20-\x7e]*$/.test(s)) throw new RttyFrameError(`register: string ${i + 1} is not printable ASCII`);
    out.push(s);
    at = end + 1;
  }
  if (at !== payload.length) throw new RttyFrameError('register: bytes after the token');
  return out;
}

export function decodeUp(frame: RttyFrame): RttyUp {
  const p = frame.payload;
  switch (typeName(frame.type)) {
    case 'register': {
      const [devid, description, token] = cStrings(p, 3) as [string, string, string];
      return { type: 'register', devid, description, token };
    }
    case 'login':
      // A refusal (err != 0, device busy) carries the code alone.
      if (p.length === 1 && p[0] !== 0) return { type: 'login', err: p[0]!, sid: 0 };
      expectLength('login', p, 2);
      return { type: 'login', err: p[0]!, sid: p[1]! };
    case 'logout':
      expectLength('logout', p, 1);
      return { type: 'logout', sid: p[0]! };
    case 'termdata':
      if (p.length < 1) throw new RttyFrameError('termdata carries no session byte');
      return { type: 'termdata', sid: p[0]!, data: Buffer.from(p.subarray(1)) };
    case 'heartbeat':
      if (p.length < 4) throw new RttyFrameError(`heartbeat carries ${p.length} bytes, under 4`);
      return { type: 'heartbeat', uptime: p.readUInt32BE(0) };
    case undefined:
      throw new RttyFrameError(`unknown message type ${frame.type}`);
    default:
      return { type: 'other', code: frame.type, payload: p };
  }
}

/** Terminal bytes of one session, either way: the session byte, then the bytes. */
function termdataFrame(sid: number, data: Buffer): Buffer {
  return encodeFrame(RTTY_TYPE.termdata, Buffer.concat([Buffer.from([sid]), data]));
}

export function encodeUp(m: RttyUp): Buffer {
  switch (m.type) {
    case 'register':
      for (const s of [m.devid, m.description, m.token]) {
        if (!/^[\x20-\x7e]*$/.test(s)) throw new RttyFrameError('register strings must be printable ASCII');
      }
      return encodeFrame(RTTY_TYPE.register, Buffer.from(`${m.devid}\0${m.description}\0${m.token}\0`, 'latin1'));
    case 'login':
      return encodeFrame(RTTY_TYPE.login, m.err !== 0 ? Buffer.from([m.err]) : Buffer.from([0, m.sid]));
    case 'logout':
      return encodeFrame(RTTY_TYPE.logout, Buffer.from([m.sid]));
    case 'termdata':
      return termdataFrame(m.sid, m.data);
    case 'heartbeat': {
      // rtty 7.x: uptime then 12 bytes of padding.
      const p = Buffer.alloc(16);
      p.writeUInt32BE(m.uptime, 0);
      return encodeFrame(RTTY_TYPE.heartbeat, p);
    }
    case 'other':
      return encodeFrame(m.code, m.payload);
  }
}

export function decodeDown(frame: RttyFrame): RttyDown {
  const p = frame.payload;
  switch (typeName(frame.type)) {
    case 'register': {
      if (p.length < 1) throw new RttyFrameError('register answer carries no code');
      const end = p.indexOf(0, 1);
      return { type: 'registered', code: p[0]!, message: p.subarray(1, end < 0 ? p.length : end).toString('latin1') };
    }
    case 'login':
      expectLength('login', p, 0);
      return { type: 'login' };
    case 'logout':
      expectLength('logout', p, 1);
      return { type: 'logout', sid: p[0]! };
    case 'termdata':
      if (p.length < 1) throw new RttyFrameError('termdata carries no session byte');
      return { type: 'termdata', sid: p[0]!, data: Buffer.from(p.subarray(1)) };
    case 'winsize':
      expectLength('winsize', p, 5);
      return { type: 'winsize', sid: p[0]!, cols: p.readUInt16BE(1), rows: p.readUInt16BE(3) };
    case 'heartbeat':
      return { type: 'heartbeat' };
    default:
      throw new RttyFrameError(`message type ${frame.type} is not one a server sends`);
  }
}

export function encodeDown(m: RttyDown): Buffer {
  switch (m.type) {
    case 'registered':
      return encodeFrame(RTTY_TYPE.register, Buffer.concat([Buffer.from([m.code]), Buffer.from(`${m.message.replace(/\0/g, '')}\0`, 'latin1')]));
    case 'login':
      return encodeFrame(RTTY_TYPE.login);
    case 'logout':
      return encodeFrame(RTTY_TYPE.logout, Buffer.from([m.sid]));
    case 'termdata':
      return termdataFrame(m.sid, m.data);
    case 'winsize': {
      const p = Buffer.alloc(5);
      p.writeUInt8(m.sid, 0);
      p.writeUInt16BE(m.cols, 1);
      p.writeUInt16BE(m.rows, 3);
      return encodeFrame(RTTY_TYPE.winsize, p);
    }
    case 'heartbeat':
      return encodeFrame(RTTY_TYPE.heartbeat);
  }
}
