/** Test PKI made with the openssl CLI: a CA, a server certificate for 127.0.0.1, device certificates. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pki {
  ca: Buffer;
  server: { cert: Buffer; key: Buffer };
  /** A certificate with this CN signed by the CA (or by a stranger CA when `foreign`). */
  device(cn: string, opts?: { foreign?: boolean }): { cert: Buffer; key: Buffer };
  cleanup(): void;
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'airtwin-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const makeCa = (name: string) => ssl('req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
  makeCa('ca');
  makeCa('stranger');
  let n = 0;
  const issue = (cn: string, ca: string, ext?: string) => {
    const base = `c${++n}`;
    ssl('req', ...ec, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}`);
    const extArgs: string[] = [];
    if (ext) {
      writeFileSync(join(dir, `${base}.ext`), ext);
      extArgs.push('-extfile', `${base}.ext`);
    }
    ssl('x509', '-req', '-in', `${base}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${base}.crt`, '-days', '2', ...extArgs);
    return { cert: readFileSync(join(dir, `${base}.crt`)), key: readFileSync(join(dir, `${base}.key`)) };
  };
  const server = issue('localhost', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  return {
    ca: readFileSync(join(dir, 'ca.crt')),
    server,
    device: (cn, opts = {}) => issue(cn, opts.foreign ? 'stranger' : 'ca'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
