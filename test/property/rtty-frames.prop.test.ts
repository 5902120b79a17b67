import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeDown, decodeUp, encodeDown, encodeUp, RttyFrameError, RttyFrameReader, type RttyDown, type RttyUp,
} from '../../src/rtty/frames.js';

/**
 * The rtty codec: every message survives encode -> bytes cut anywhere -> reader -> decode; and
 * any byte stream either decodes or throws RttyFrameError, never anything else.
 */
const SEED = 5912;
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const byte = fc.integer({ min: 0, max: 255 });
const u16 = fc.integer({ min: 0, max: 0xffff });
const data = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));

const up: fc.Arbitrary<RttyUp> = fc.oneof(
  fc.record({ type: fc.constant('register' as const), devid: printable, description: printable, token: printable }),
  fc.record({ type: fc.constant('login' as const), err: fc.constant(0), sid: byte }),
  fc.record({ type: fc.constant('login' as const), err: fc.integer({ min: 1, max: 255 }), sid: fc.constant(0) }),
  fc.record({ type: fc.constant('logout' as const), sid: byte }),
  fc.record({ type: fc.constant('termdata' as const), sid: byte, data }),
  fc.record({ type: fc.constant('heartbeat' as const), uptime: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
  fc.record({ type: fc.constant('other' as const), code: fc.constantFrom(5, 7, 8, 9), payload: data }),
);
const down: fc.Arbitrary<RttyDown> = fc.oneof(
  fc.record({ type: fc.constant('registered' as const), code: byte, message: printable }),
  fc.constant({ type: 'login' as const }),
  fc.record({ type: fc.constant('logout' as const), sid: byte }),
  fc.record({ type: fc.constant('termdata' as const), sid: byte, data }),
  fc.record({ type: fc.constant('winsize' as const), sid: byte, cols: u16, rows: u16 }),
  fc.constant({ type: 'heartbeat' as const }),
);

/** Feeds `bytes` to a reader in pieces cut at `cuts`. */
function readAll(bytes: Buffer, cuts: number[]) {
  const reader = new RttyFrameReader();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  const frames = [];
  for (const p of [...points, bytes.length]) {
    frames.push(...reader.push(bytes.subarray(at, p)));
    at = p;
  }
  return { frames, left: reader.buffered };
}

describe(`rtty frames (property, seed ${SEED})`, () => {
  it('device-to-server messages round-trip through bytes cut anywhere', () => {
    fc.assert(fc.property(fc.array(up, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (ms, cuts) => {
      const { frames, left } = readAll(Buffer.concat(ms.map(encodeUp)), cuts);
      expect(left).toBe(0);
      expect(frames.map(decodeUp)).toEqual(ms);
    }), { seed: SEED, numRuns: 300 });
  });

  it('server-to-device messages round-trip through bytes cut anywhere', () => {
    fc.assert(fc.property(fc.array(down, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (ms, cuts) => {
      const { frames, left } = readAll(Buffer.concat(ms.map(encodeDown)), cuts);
      expect(left).toBe(0);
      expect(frames.map(decodeDown)).toEqual(ms);
    }), { seed: SEED, numRuns: 300 });
  });

  it('any bytes either decode or throw RttyFrameError, and the reader never holds more than one frame', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 4 }), (raw, cuts) => {
      try {
        const { frames, left } = readAll(Buffer.from(raw), cuts);
        expect(left).toBeLessThanOrEqual(3 + 0xffff);
        for (const f of frames) {
          for (const decode of [decodeUp, decodeDown]) {
            try {
              decode(f);
            } catch (e) {
              expect(e).toBeInstanceOf(RttyFrameError);
            }
          }
        }
      } catch (e) {
        expect(e).toBeInstanceOf(RttyFrameError);
      }
    }), { seed: SEED, numRuns: 500 });
  });
});
