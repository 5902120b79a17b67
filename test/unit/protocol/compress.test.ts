import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateParams, inflateParams, isCompressed } from '../../../src/protocol/compress.js';

describe('compress_64 codec', () => {
  it('round-trips params and reports the uncompressed size', () => {
    const params = { serial: 'aabbccddeeff', state: { unit: { uptime: 5 } }, text: 'é' };
    const packed = deflateParams(params);
    expect(packed.compress_sz).toBe(Buffer.byteLength(JSON.stringify(params)));
    expect(isCompressed(packed)).toBe(true);
    expect(inflateParams(packed)).toEqual({ ok: true, params });
  });

  it('reads what an AP sends: base64 of zlib-format JSON', () => {
    const b64 = deflateSync(Buffer.from('{"uuid":3}')).toString('base64');
    expect(inflateParams({ compress_64: b64 })).toEqual({ ok: true, params: { uuid: 3 } });
  });

  it('says why it cannot inflate, without throwing', () => {
    expect(inflateParams({ compress_64: 42 })).toMatchObject({ ok: false, reason: 'compress_64 is not a base64 string' });
    expect(inflateParams({ compress_64: 'bm90IHpsaWI=' })).toMatchObject({ ok: false, reason: 'compress_64 could not be inflated (zlib)' });
    const notJson = deflateSync(Buffer.from('nope')).toString('base64');
    expect(inflateParams({ compress_64: notJson })).toMatchObject({ ok: false, reason: 'compress_64 does not hold JSON' });
    const array = deflateSync(Buffer.from('[1]')).toString('base64');
    expect(inflateParams({ compress_64: array })).toMatchObject({ ok: false, reason: 'compress_64 does not hold a JSON object' });
  });

  it('refuses a document that inflates past the limit it is given', () => {
    const packed = deflateParams({ blob: 'x'.repeat(100_000) });
    expect(inflateParams(packed, 10_000)).toEqual({ ok: false, reason: 'compress_64 inflates past 10000 bytes' });
    expect(inflateParams(packed, 200_000).ok).toBe(true);
  });
});
