import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { multipartBody } from '../gateway/multipart.js';
import type { SimUpload } from '../../simulator/link.js';

/**
 * How simulated APs upload: a real multipart POST to the command's `uri`, as the fw's
 * `curl -F name=<uuid> -F data=@<file>`, naming the AP's serial (`?serialNumber=`) so the
 * uploader checks it. Rejects with the uploader's error description when it refuses.
 */
export function simUpload(logger: Logger): SimUpload {
  return ({ uri, serial, uuid, fileName, bytes }) => new Promise<void>((resolve, reject) => {
    const url = new URL(uri);
    url.searchParams.set('serialNumber', serial);
    const boundary = `------------------------${randomBytes(8).toString('hex')}`;
    const body = multipartBody(uuid, fileName, bytes, boundary);
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode === 200) return resolve();
        let why = `HTTP ${res.statusCode}`;
        try {
          why = String((JSON.parse(Buffer.concat(chunks).toString()) as { ErrorDescription?: string }).ErrorDescription ?? why);
        } catch {
          // not JSON: the status says enough
        }
        logger.warn({ uuid, serial, status: res.statusCode, why }, 'simulated AP upload refused');
        reject(new Error(why));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
