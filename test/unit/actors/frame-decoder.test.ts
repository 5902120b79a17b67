import { describe, expect, it } from 'vitest';
import { decodeFrame, needsSession } from '../../../actors/device/frame-decoder.js';
import { deflateParams } from '../../../src/protocol/compress.js';

const S = 'aabbccddeeff';

describe('decodeFrame', () => {
  it('decodes a notification and a result', () => {
    expect(decodeFrame({ jsonrpc: '2.0', method: 'log', params: { serial: S, log: 'x', severity: 6 } }))
      .toEqual({ kind: 'notification', method: 'log', params: { serial: S, log: 'x', severity: 6 } });
    expect(decodeFrame({ jsonrpc: '2.0', id: 9, result: { serial: 's', status: { error: 0 } } }))
      .toEqual({ kind: 'result', id: 9, result: { serial: 's', status: { error: 0 } } });
  });

  it('inflates compress_64 params before checking required fields', () => {
    const params = deflateParams({ serial: 'aabbccddeeff', uuid: 4, state: {} });
    expect(decodeFrame({ jsonrpc: '2.0', method: 'state', params })).toEqual({
      kind: 'notification', method: 'state', params: { serial: 'aabbccddeeff', uuid: 4, state: {} },
    });
  });

  it("keeps the state's source text the link found, but not for params it inflated (the text is not theirs)", () => {
    const params = { serial: S, uuid: 4, state: {} };
    expect(decodeFrame({ jsonrpc: '2.0', method: 'state', params }, '{}')).toMatchObject({ kind: 'notification', stateText: '{}' });
    expect(decodeFrame({ jsonrpc: '2.0', method: 'state', params: deflateParams(params) }, '{}')).toMatchObject({ kind: 'notification', stateText: undefined });
  });

  it.each([
    ['a string', 'hello', 'frame is not a JSON object'],
    ['jsonrpc 1.0', { jsonrpc: '1.0', method: 'log', params: {} }, 'jsonrpc is not "2.0"'],
    ['an unknown method', { jsonrpc: '2.0', method: 'State', params: {} }, 'unknown method "State"'],
    ['a notification with an id', { jsonrpc: '2.0', method: 'ping', id: 3, params: { uuid: 1 } }, 'notification ping carries an id'],
    ['params as an array', { jsonrpc: '2.0', method: 'log', params: [] }, 'params of log is not an object'],
    ['missing connect params', { jsonrpc: '2.0', method: 'connect', params: { serial: S } }, 'connect: missing uuid, firmware, capabilities'],
    ['missing recovery params', { jsonrpc: '2.0', method: 'recovery', params: { serial: S, uuid: 1 } }, 'recovery: missing firmware, reboot, loglines'],
    ['a result id that is not an integer', { jsonrpc: '2.0', id: '7', result: {} }, 'result id is not an integer'],
    ['a result that is not an object', { jsonrpc: '2.0', id: 7, result: 'ok' }, 'result of id 7 is not an object'],
    ['neither method nor result', { jsonrpc: '2.0' }, 'frame has neither method nor result'],
  ])('rejects %s', (_name, frame, reason) => {
    expect(decodeFrame(frame)).toEqual({ kind: 'invalid', reason });
  });

  describe('params.serial', () => {
    const note = (method: string, params: Record<string, unknown>) => decodeFrame({ jsonrpc: '2.0', method, params } as never);

    it('accepts 1-29 hex digits, any case, with surrounding white space, and keeps the params as sent', () => {
      for (const serial of [S, 'AABBCCDDEEFF', ' aabbccddeeff\n', 'a', 'f'.repeat(29), '123456789012']) {
        expect(note('state', { serial, uuid: 1, state: {} })).toEqual({ kind: 'notification', method: 'state', params: { serial, uuid: 1, state: {} } });
      }
      // Another AP's (valid) serial is accepted: the actor files the frame under its own serial.
      expect(note('healthcheck', { serial: '0123456789ab', uuid: 1, sanity: 100, data: {} }).kind).toBe('notification');
    });

    it.each(['state', 'healthcheck', 'log', 'ping', 'connect', 'recovery', 'venue_broadcast'])('ignores a %s without params.serial', (method) => {
      expect(note(method, { uuid: 1 })).toEqual({ kind: 'ignored', method, reason: `${method}: params.serial is missing` });
    });

    it.each([
      ['not hex', 'zz!', '"zz!"'],
      ['30 characters', 'a'.repeat(30), `"${'a'.repeat(30)}"`],
      ['empty', '', '""'],
      ['blank', '   ', '"   "'],
      ['a MAC with colons', 'aa:bb:cc:dd:ee:ff', '"aa:bb:cc:dd:ee:ff"'],
      ['inner white space', 'aabb ccdd', '"aabb ccdd"'],
      ['a number', 123456, 'of type number'],
      ['null', null, 'null'],
      ['an object', { id: S }, 'of type object'],
      ['a long string (cut in the reason)', 'x'.repeat(500), `"${'x'.repeat(40)}..."`],
    ])('drops on a serial that is %s', (_name, serial, shown) => {
      expect(note('state', { serial, uuid: 1, state: {} })).toEqual({ kind: 'bad-serial', method: 'state', reason: `state: params.serial ${shown} is not 1-29 hex digits` });
    });

    it('checks the serial before required params, and on connect too', () => {
      expect(note('connect', { serial: 'nope' }).kind).toBe('bad-serial');
      expect(note('connect', {}).kind).toBe('ignored');
      expect(note('state', { serial: S }).kind).toBe('invalid');
    });

    it('checks the inflated params of compress_64, not the wrapper', () => {
      expect(note('state', { serial: S, ...deflateParams({ uuid: 1, state: {} }) }).kind).toBe('ignored');
      expect(note('state', deflateParams({ serial: 'zz!', uuid: 1, state: {} })).kind).toBe('bad-serial');
      expect(note('state', { serial: 'zz!', ...deflateParams({ serial: S, uuid: 1, state: {} }) }).kind).toBe('notification');
    });

    it('refuses a stored integer param past the 64-bit range (it would fail the store\'s whole batch)', () => {
      expect(note('connect', { serial: S, uuid: 1e30, firmware: 'f', capabilities: {} })).toEqual({ kind: 'invalid', reason: 'connect: params.uuid 1e+30 is out of the range of a 64-bit integer' });
      expect(note('healthcheck', { serial: S, uuid: 1, sanity: 1e300, data: {} })).toEqual({ kind: 'invalid', reason: 'healthcheck: params.sanity 1e+300 is out of the range of a 64-bit integer' });
      expect(note('rebootLog', { serial: S, uuid: 1, info: [], type: 'x', date: -(2 ** 63) }).kind).toBe('invalid');
      // JSON's 1e999 parses to Infinity.
      expect(note('state', { serial: S, uuid: JSON.parse('1e999') as number, state: {} }).kind).toBe('invalid');
      // The largest config uuids an AP sends, and what is not a number (read as 0 later), pass.
      expect(note('state', { serial: S, uuid: 2 ** 62, state: {} }).kind).toBe('notification');
      expect(note('state', { serial: S, uuid: 'abc', state: {} }).kind).toBe('notification');
      expect(note('log', { serial: S, log: 'x', severity: 6 }).kind).toBe('notification');
    });

    it('leaves the earlier checks first: unknown method, id, params shape, inflation', () => {
      expect(note('State', {}).kind).toBe('invalid');
      expect(decodeFrame({ jsonrpc: '2.0', method: 'ping', id: 3, params: { uuid: 1 } }).kind).toBe('invalid');
      expect(note('state', { compress_64: 'bm90IHpsaWI=' }).kind).toBe('invalid');
    });
  });

  it('knows which events need a session', () => {
    expect(['state', 'healthcheck', 'log', 'telemetry', 'wifiscan'].every((m) => needsSession(m as never))).toBe(true);
    expect(['connect', 'crashlog', 'rebootLog', 'ping', 'recovery', 'venue_broadcast'].some((m) => needsSession(m as never))).toBe(false);
  });
});
