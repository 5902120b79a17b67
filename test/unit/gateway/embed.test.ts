import { describe, expect, it } from 'vitest';
import { embedJson } from '../../../src/gateway/wire/embed.js';

describe('embedJson', () => {
  it('embeds a stored JSON object or array as what it holds', () => {
    expect(embedJson('{"uuid":1,"radios":[]}')).toEqual({ uuid: 1, radios: [] });
    expect(embedJson(' [1,2]')).toEqual([1, 2]);
  });

  it('keeps text that is not a JSON object or array as the string it is', () => {
    for (const text of ['', 'not json', '{"cut":', '42', '"a string"', 'null', 'true']) expect(embedJson(text)).toBe(text);
  });

  it('parses a long document once and hands the same object to every answer', () => {
    const text = JSON.stringify({ radios: Array.from({ length: 20 }, (_, i) => ({ band: '5G', channel: 36 + 4 * i })) });
    const first = embedJson(text);
    expect(embedJson(`${text}`)).toBe(first);
    expect(first).toEqual(JSON.parse(text));
  });
});
