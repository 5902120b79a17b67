import { describe, expect, it } from 'vitest';
import {
  decodeDown, decodeUp, encodeDown, encodeFrame, encodeUp, RttyFrameError, RttyFrameReader, RTTY_TYPE,
} from '../../../src/rtty/frames.js';

/** The rtty 7.x wire as OpenWiFi APs and the gateway's internal server write it, byte for byte. */
describe('rtty frames', () => {
  it('register carries devid, description and token, each NUL-terminated', () => {
    const bytes = encodeUp({ type: 'register', devid: 'abc', description: 'ap', token: 't' });
    expect([...bytes]).toEqual([0, 0, 9, ...Buffer.from('abc\0ap\0t\0')]);
    const [frame] = new RttyFrameReader().push(bytes);
    expect(decodeUp(frame!)).toEqual({ type: 'register', devid: 'abc', description: 'ap', token: 't' });
  });

  it("the server's register answer is code then message, as the gateway sends it", () => {
    expect([...encodeDown({ type: 'registered', code: 0, message: 'OK' })]).toEqual([0, 0, 4, 0, 0x4f, 0x4b, 0]);
  });

  it('login asks with an empty payload; the device answers error code and session byte', () => {
    expect([...encodeDown({ type: 'login' })]).toEqual([1, 0, 0]);
    expect([...encodeUp({ type: 'login', err: 0, sid: 3 })]).toEqual([1, 0, 2, 0, 3]);
    expect(decodeUp({ type: 1, payload: Buffer.from([1]) })).toEqual({ type: 'login', err: 1, sid: 0 });
  });

  it('termdata, winsize, logout and heartbeat carry the session byte and their fields', () => {
    expect([...encodeUp({ type: 'termdata', sid: 2, data: Buffer.from('ls') })]).toEqual([3, 0, 3, 2, 0x6c, 0x73]);
    expect([...encodeDown({ type: 'winsize', sid: 1, cols: 120, rows: 40 })]).toEqual([4, 0, 5, 1, 0, 120, 0, 40]);
    expect([...encodeDown({ type: 'logout', sid: 4 })]).toEqual([2, 0, 1, 4]);
    const hb = encodeUp({ type: 'heartbeat', uptime: 260 });
    expect(hb.length).toBe(3 + 16);
    expect(decodeUp({ type: RTTY_TYPE.heartbeat, payload: hb.subarray(3) })).toEqual({ type: 'heartbeat', uptime: 260 });
  });

  it('the reader joins frames split anywhere and splits frames sent together', () => {
    const a = encodeUp({ type: 'termdata', sid: 0, data: Buffer.from('hello') });
    const b = encodeUp({ type: 'logout', sid: 0 });
    const all = Buffer.concat([a, b]);
    const reader = new RttyFrameReader();
    const frames = [...all].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(frames.map((f) => decodeUp(f))).toEqual([
      { type: 'termdata', sid: 0, data: Buffer.from('hello') }, { type: 'logout', sid: 0 },
    ]);
    expect(reader.buffered).toBe(0);
  });

  it('refuses an unknown type at its first byte, before any length arrives', () => {
    expect(() => new RttyFrameReader().push(Buffer.from([0x47]))).toThrow(RttyFrameError);
  });

  it('refuses payloads of the wrong shape', () => {
    expect(() => decodeUp({ type: 0, payload: Buffer.from('abc\0def') })).toThrow(/NUL-terminated/);
    expect(() => decodeUp({ type: 0, payload: Buffer.from('a\0b\0c\0extra') })).toThrow(/after the token/);
    expect(() => decodeUp({ type: 0, payload: Buffer.from('a\x01\0b\0c\0') })).toThrow(/printable/);
    expect(() => decodeUp({ type: 2, payload: Buffer.alloc(0) })).toThrow(RttyFrameError);
    expect(() => decodeUp({ type: 3, payload: Buffer.alloc(0) })).toThrow(/session byte/);
    expect(() => decodeUp({ type: 6, payload: Buffer.alloc(2) })).toThrow(/heartbeat/);
    expect(() => decodeDown({ type: 4, payload: Buffer.alloc(3) })).toThrow(/winsize/);
    expect(() => decodeDown({ type: 8, payload: Buffer.alloc(0) })).toThrow(RttyFrameError);
    expect(() => encodeFrame(3, Buffer.alloc(0x10000))).toThrow(RttyFrameError);
  });

  it('passes the types the gateway drains unread as `other`', () => {
    expect(decodeUp({ type: RTTY_TYPE.ack, payload: Buffer.from([0, 1]) })).toEqual({ type: 'other', code: 9, payload: Buffer.from([0, 1]) });
  });
});
