import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSerial, normalizeSerial, parseSerial, serialKey, serialToMac } from '../../../src/protocol/serial.js';

describe('serials', () => {
  it('files a serial under one key whatever its case, separators and spaces', () => {
    expect(serialKey(' AA:BB:CC:DD:EE:FF ')).toBe('aabbccddeeff');
    expect(serialKey('aa-bb-cc-dd-ee-ff')).toBe('aabbccddeeff');
  });

  it('validates: 12 hex digits, separators accepted, anything else a coded 400', () => {
    expect(normalizeSerial('AA:BB:CC:DD:EE:FF')).toBe('aabbccddeeff');
    expect(() => normalizeSerial('xyz')).toThrow(expect.objectContaining({ code: 'INVALID_SERIAL', status: 400 }));
    expect(() => normalizeSerial(12)).toThrow(expect.objectContaining({ code: 'INVALID_SERIAL' }));
    expect(serialToMac('aabbccddeeff')).toBe('aa:bb:cc:dd:ee:ff');
  });

  it('parseSerial agrees with normalizeSerial on any input, without throwing', () => {
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
    const serialish = fc.oneof(
      fc.array(hex, { minLength: 12, maxLength: 12 }).map((c) => c.join('')),
      fc.tuple(fc.array(fc.array(hex, { minLength: 2, maxLength: 2 }).map((c) => c.join('')), { minLength: 6, maxLength: 6 }), fc.constantFrom(':', '-'))
        .map(([pairs, sep]) => pairs.join(sep)),
      fc.string(),
      fc.anything(),
    ).map((v) => (typeof v === 'string' && v.length % 3 === 0 ? ` ${v} ` : v));
    fc.assert(fc.property(serialish, (v) => {
      let expected: string | undefined;
      try {
        expected = normalizeSerial(v);
      } catch {
        expected = undefined;
      }
      expect(parseSerial(v)).toBe(expected);
      expect(isSerial(v)).toBe(expected !== undefined);
    }), { numRuns: 2000 });
    expect(parseSerial('AA-BB-CC-DD-EE-FF')).toBe('aabbccddeeff');
    expect(parseSerial('aabbccddeef')).toBeUndefined();
  });
});
