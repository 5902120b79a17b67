/**
 * The file of an upload body. Real APs run `curl -F name=<uuid> -F data=@<file> <uri>`
 * (wlan-ucentral-client upload.c), so the body is multipart/form-data and the file is the part
 * with a filename (curl sends it as application/octet-stream, which is the part upstream's
 * uploader keeps); any other body is the file itself (raw). The body is whole in memory: the
 * uploader caps it first.
 */

export type ParsedUpload = { file: Buffer } | { error: string };

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a multipart/form-data content type, or undefined for any other type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : '';
}

interface Part {
  headers: Record<string, string>;
  body: Buffer;
}

/** The parts of a multipart body; an error when it is cut short (no closing boundary) or malformed. */
export function multipartParts(body: Buffer, boundary: string): Part[] | { error: string } {
  if (boundary === '') return { error: 'multipart/form-data without a boundary.' };
  const delim = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delim);
  if (at < 0) return { error: 'The multipart body has no part.' };
  const parts: Part[] = [];
  for (;;) {
    at += delim.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    if (!body.subarray(at, at + 2).equals(CRLF)) return { error: 'The multipart body is malformed or cut short.' };
    const headEnd = body.indexOf(HEADER_END, at + 2);
    if (headEnd < 0) return { error: 'The multipart body is cut short in the headers of a part.' };
    const headers: Record<string, string> = {};
    for (const line of body.subarray(at + 2, headEnd).toString('latin1').split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const next = body.indexOf(Buffer.concat([CRLF, delim]), headEnd + 4);
    if (next < 0) return { error: 'The multipart body is cut short: the file part has no closing boundary.' };
    parts.push({ headers, body: body.subarray(headEnd + 4, next) });
    at = next + 2;
  }
}

/** The uploaded file of a body with this content type. */
export function uploadedFile(body: Buffer, contentType: string | undefined): ParsedUpload {
  const boundary = multipartBoundary(contentType);
  if (boundary === undefined) return { file: body };
  const parts = multipartParts(body, boundary);
  if (!Array.isArray(parts)) return parts;
  const file = parts.find((p) => /;\s*filename=/i.test(p.headers['content-disposition'] ?? ''))
    ?? parts.find((p) => /^application\/octet-stream/i.test(p.headers['content-type'] ?? ''))
    ?? parts.find((p) => /;\s*name="?data"?/i.test(p.headers['content-disposition'] ?? ''));
  return file ? { file: file.body } : { error: 'The multipart body has no file part (a part with a filename, or named data).' };
}

/** A multipart/form-data body as curl -F sends it: `name=<uuid>` and the file as `data`. */
export function multipartBody(uuid: string, fileName: string, file: Buffer, boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${uuid}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}
