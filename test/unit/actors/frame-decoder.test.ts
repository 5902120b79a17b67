import { describe, expect, it } from 'vitest';
import { decodeFrame, needsSession } from '../../../actors/device/frame-decoder.js';
import { deflateParams } from '../../../src/protocol/compress.js';

describe('decodeFrame', () => {
  it('decodes a notification and a result', () => {
    expect(decodeFrame({ jsonrpc: '2.0', method: 'log', params: { log: 'x', severity: 6 } }))
      .toEqual({ kind: 'notification', method: 'log', params: { log: 'x', severity: 6 } });
    expect(decodeFrame({ jsonrpc: '2.0', id: 9, result: { serial: 's', status: { error: 0 } } }))
      .toEqual({ kind: 'result', id: 9, result: { serial: 's', status: { error: 0 } } });
  });

  it('inflates compress_64 params before checking required fields', () => {
    const params = deflateParams({ serial: 'aabbccddeeff', uuid: 4, state: {} });
    expect(decodeFrame({ jsonrpc: '2.0', method: 'state', params })).toEqual({
      kind: 'notification', method: 'state', params: { serial: 'aabbccddeeff', uuid: 4, state: {} },
    });
  });

  it.each([
    ['a string', 'hello', 'frame is not a JSON object'],
    ['jsonrpc 1.0', { jsonrpc: '1.0', method: 'log', params: {} }, 'jsonrpc is not "2.0"'],
    ['an unknown method', { jsonrpc: '2.0', method: 'State', params: {} }, 'unknown method "State"'],
    ['a notification with an id', { jsonrpc: '2.0', method: 'ping', id: 3, params: { uuid: 1 } }, 'notification ping carries an id'],
    ['params as an array', { jsonrpc: '2.0', method: 'log', params: [] }, 'params of log is not an object'],
    ['missing connect params', { jsonrpc: '2.0', method: 'connect', params: { serial: 'x' } }, 'connect: missing uuid, firmware, capabilities'],
    ['a result id that is not an integer', { jsonrpc: '2.0', id: '7', result: {} }, 'result id is not an integer'],
    ['a result that is not an object', { jsonrpc: '2.0', id: 7, result: 'ok' }, 'result of id 7 is not an object'],
    ['neither method nor result', { jsonrpc: '2.0' }, 'frame has neither method nor result'],
  ])('rejects %s', (_name, frame, reason) => {
    expect(decodeFrame(frame)).toEqual({ kind: 'invalid', reason });
  });

  it('knows which events need a session (§1.2)', () => {
    expect(['state', 'healthcheck', 'log', 'telemetry', 'wifiscan'].every((m) => needsSession(m as never))).toBe(true);
    expect(['connect', 'crashlog', 'rebootLog', 'ping', 'recovery', 'venue_broadcast'].some((m) => needsSession(m as never))).toBe(false);
  });
});
