import { describe, expect, it } from 'vitest';
import { multipartBody, multipartBoundary, uploadedFile } from '../../../src/gateway/multipart.js';

const FILE = Buffer.from([0xd4, 0xc3, 0xb2, 0xa1, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);

describe('upload bodies', () => {
  it('takes the file part of a body as curl -F sends it, bytes intact (CR LF and dashes inside)', () => {
    const body = multipartBody('11111111-2222-4333-8444-555555555555', 'trace.pcap', FILE, 'XyZ');
    expect(uploadedFile(body, 'multipart/form-data; boundary=XyZ')).toEqual({ file: FILE });
  });

  it('reads a quoted boundary, and a file part found by its content type or its name when it has no filename', () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('application/json')).toBeUndefined();
    const byType = Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\nContent-Type: application/octet-stream\r\n\r\nDATA\r\n--b--\r\n');
    expect(uploadedFile(byType, 'multipart/form-data; boundary=b')).toEqual({ file: Buffer.from('DATA') });
    const byName = Buffer.from('--b\r\nContent-Disposition: form-data; name="data"\r\n\r\nDATA\r\n--b--\r\n');
    expect(uploadedFile(byName, 'multipart/form-data; boundary=b')).toEqual({ file: Buffer.from('DATA') });
  });

  it('takes any other body as the raw file', () => {
    expect(uploadedFile(FILE, 'application/octet-stream')).toEqual({ file: FILE });
    expect(uploadedFile(FILE, undefined)).toEqual({ file: FILE });
  });

  it.each([
    ['no boundary', 'multipart/form-data', '--b\r\n\r\nx\r\n--b--\r\n', /without a boundary/],
    ['no part at all', 'multipart/form-data; boundary=b', 'nothing here', /no part/],
    ['a cut in the headers', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="data"', /cut short in the headers/],
    ['a cut in the file', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="data"; filename="f"\r\n\r\nhalf', /no closing boundary/],
    ['no file part', 'multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nuuid\r\n--b--\r\n', /no file part/],
  ])('says why a multipart body with %s has no file', (_name, type, body, why) => {
    expect(uploadedFile(Buffer.from(body), type)).toEqual({ error: expect.stringMatching(why) });
  });
});
