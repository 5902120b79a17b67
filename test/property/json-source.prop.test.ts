import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/frame.js';
import { stateSourceText } from '../../src/protocol/json-source.js';

/** Any JSON object (keys may be anything, strings may need escapes). */
const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) as fc.Arbitrary<JsonObject>;
const stateFrame = fc.record({
  serial: fc.string(),
  uuid: fc.integer(),
  state: jsonObject,
}).map((params) => ({ jsonrpc: '2.0', method: 'state', params }) as JsonObject);

const stateOf = (f: JsonObject) => (f.params as { state: JsonObject }).state;

describe('state text kept from the source (json-source)', () => {
  it('finds exactly JSON.stringify(state) in compactly written frames', () => {
    fc.assert(fc.property(stateFrame, fc.string(), fc.string(), (frame, before, after) => {
      const inner = JSON.stringify(frame);
      const text = before + inner + after;
      const parsed = JSON.parse(inner) as JsonObject;
      expect(stateSourceText(parsed, text, before.length, before.length + inner.length)).toBe(JSON.stringify(stateOf(parsed)));
      // The frame is left as it was parsed.
      expect(parsed).toEqual(JSON.parse(inner));
    }));
  });

  it('gives the bytes of the state, when given where the text sits in a buffer', () => {
    fc.assert(fc.property(stateFrame, fc.string(), fc.string(), fc.nat(8), (frame, before, after, pad) => {
      const inner = JSON.stringify(frame);
      const text = before + inner + after;
      // ASCII text, as the reader only passes bytes for lines whose characters are bytes.
      fc.pre(Buffer.byteLength(text) === text.length);
      const buf = Buffer.concat([Buffer.alloc(pad, 0x7a), Buffer.from(text)]);
      const parsed = JSON.parse(inner) as JsonObject;
      const kept = stateSourceText(parsed, text, before.length, before.length + inner.length, { buf, at: pad });
      expect(kept).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(kept as Uint8Array).toString('utf8')).toBe(JSON.stringify(stateOf(parsed)));
    }));
  });

  it('finds nothing when the text is not the compact form (spaces, another key order, state not last)', () => {
    fc.assert(fc.property(stateFrame, fc.constantFrom('spaces', 'order', 'notLast'), (frame, how) => {
      const params = frame.params as JsonObject;
      const variant: JsonObject = how === 'order' ? { params, jsonrpc: '2.0', method: 'state' }
        : how === 'notLast' ? { ...frame, params: { state: params.state, serial: params.serial, uuid: params.uuid } } : frame;
      const text = how === 'spaces' ? JSON.stringify(variant, null, 1) : JSON.stringify(variant);
      const parsed = JSON.parse(text) as JsonObject;
      // Whatever is found must be the state's text; for these shapes nothing is.
      expect(stateSourceText(parsed, text)).toBeUndefined();
    }));
  });
});
