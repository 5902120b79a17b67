import { describe, expect, it } from 'vitest';
import { checkFrame } from '../../../../src/links/edge/frame-check.js';
import { certificateVerdict } from '../../../../src/links/edge/tls-admission.js';
import { deflateParams } from '../../../../src/protocol/compress.js';

describe('edge checkFrame', () => {
  it('accepts a device event and reports its serial and whether it is connect', () => {
    const r = checkFrame(JSON.stringify({ jsonrpc: '2.0', method: 'connect', params: { serial: 'A0B1C2000001', uuid: 1 } }));
    expect(r).toMatchObject({ ok: true, serial: 'A0B1C2000001', isConnect: true });
  });

  it('accepts a command result', () => {
    expect(checkFrame('{"jsonrpc":"2.0","id":7,"result":{"serial":"a","status":{"error":0}}}')).toMatchObject({ ok: true, isConnect: false });
  });

  it('inflates compress_64 so the forwarded text carries the plain params', () => {
    const params = { serial: 'a0b1c2000001', uuid: 3, state: { unit: { load: [1, 2, 3] } } };
    const r = checkFrame(JSON.stringify({ jsonrpc: '2.0', method: 'state', params: deflateParams(params) }));
    expect(r.ok).toBe(true);
    if (r.ok) expect(JSON.parse(r.text)).toEqual({ jsonrpc: '2.0', method: 'state', params });
  });

  it.each([
    ['not json', 'not JSON'],
    ['[1,2]', 'not a JSON object'],
    ['{"jsonrpc":"1.0","method":"state","params":{}}', 'jsonrpc is not "2.0"'],
    ['{"jsonrpc":"2.0","method":"reboot","params":{}}', 'unknown method "reboot"'],
    ['{"jsonrpc":"2.0","method":"state","params":[]}', 'params of state is not an object'],
    ['{"jsonrpc":"2.0","method":"state","params":{"compress_64":"AAAA"}}', 'state: compress_64 could not be inflated (zlib)'],
    ['{"jsonrpc":"2.0","id":"x","result":{}}', 'result id is not an integer'],
    ['{"jsonrpc":"2.0"}', 'neither a device event nor a command result'],
  ])('rejects %s as a protocol error', (text, reason) => {
    // A JSON object says so: the recorder may write it (other text it must not paste into a line).
    const object = !['not JSON', 'not a JSON object'].includes(reason);
    expect(checkFrame(text)).toEqual(object ? { ok: false, reason, object } : { ok: false, reason });
  });

  it('ignores RADIUS payloads without counting them', () => {
    expect(checkFrame('{"radius":"auth","data":"AAAA"}')).toMatchObject({ ok: false, ignored: true });
  });
});

describe('certificateVerdict', () => {
  const policy = { allowMismatch: true, mismatchDepth: 2 };
  it('is VERIFIED when CN and serial agree above the mismatch depth', () => {
    expect(certificateVerdict('a0b1c2000020', 'a0b1c2000020', policy)).toBe('VERIFIED');
    expect(certificateVerdict('a0b1c2000020', 'a0b1c2000023', policy)).toBe('VERIFIED');
  });
  it('is MISMATCH_SERIAL otherwise', () => {
    expect(certificateVerdict('a0b1c2000020', 'a0b1c2000024', policy)).toBe('MISMATCH_SERIAL');
  });
  it('is VERIFIED for the configured simulator id', () => {
    expect(certificateVerdict('53494d000001', 'a0b1c2000024', { ...policy, simulatorId: '53494D000001' })).toBe('VERIFIED');
  });
});
