import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { randomBytes, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { multipartBody } from '../gateway/multipart.js';
import type { SimUpload } from '../../simulator/link.js';

/**
 * How simulated APs upload: a real multipart POST to the command's `uri`, as the fw's
 * `curl -F name=<uuid> -F data=@<file>`, naming the AP's serial (`?serialNumber=`) so the
 * uploader checks it. Rejects with the uploader's error description when it refuses.
 * `trust`: serve's own certificate. A self-signed one (a lab's) is trusted beside the system's
 * roots, so it does not stop the simulated APs; one a CA issued is checked as any node client
 * checks it (a private CA goes in NODE_EXTRA_CA_CERTS, which an explicit list would drop).
 */
export function simUpload(logger: Logger, trust?: Buffer): SimUpload {
  const ca = trust && selfSigned(trust) ? [...rootCertificates, trust.toString()] : undefined;
  return ({ uri, serial, uuid, fileName, bytes }) => new Promise<void>((resolve, reject) => {
    const url = new URL(uri);
    url.searchParams.set('serialNumber', serial);
    const boundary = `------------------------${randomBytes(8).toString('hex')}`;
    const body = multipartBody(uuid, fileName, bytes, boundary);
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
      ...(ca ? { ca } : {}),
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

function selfSigned(pem: Buffer): boolean {
  try {
    const x = new X509Certificate(pem);
    return x.issuer === x.subject && x.verify(x.publicKey);
  } catch {
    return false;
  }
}
