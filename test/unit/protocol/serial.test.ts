import { describe, expect, it } from 'vitest';
import { normalizeSerial, serialKey, serialToMac } from '../../../src/protocol/serial.js';

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
});
