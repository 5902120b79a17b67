import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../src/links/replay/read-recording.js';

const UUID = '85eb5fe9-cf88-43aa-9d75-61bbda77f92f';

describe('recording lines: upload', () => {
  it('reads an upload line into its command uuid, type and bytes', () => {
    const r = parseLine(JSON.stringify({ t: 5, serial: 'A0B1C2000001', upload: { uuid: UUID.toUpperCase(), type: 'pcap', data_64: Buffer.from('abc').toString('base64') } }), 0);
    expect(r).toEqual({ rec: { kind: 'upload', t: 5, serial: 'a0b1c2000001', uuid: UUID, type: 'pcap', data: Buffer.from('abc') } });
  });

  it.each([
    ['no uuid', { type: 'pcap', data_64: '' }],
    ['a uuid that is not one', { uuid: 'x', type: 'pcap', data_64: '' }],
    ['no data', { uuid: UUID, type: 'pcap' }],
    ['not an object', 'abc'],
  ])('rejects an upload with %s, saying what it must be', (_name, upload) => {
    expect(parseLine(JSON.stringify({ t: 5, serial: 'a0b1c2000001', upload }), 0)).toEqual({ reason: expect.stringMatching(/^upload must be an object with uuid/) });
  });
});
