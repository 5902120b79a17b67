/**
 * Certificate rules of the device port (docs/upstream.md#device-sessions):
 * the client certificate's CN, trimmed and lowercased, must be a hex serial shorter than 30
 * characters; a CN starting with 53494d ("SIM") is a simulator, refused unless a simulator id is
 * configured; the verdict compares CN and connect serial after dropping `mismatchDepth` low bits.
 */
import type { TLSSocket } from 'node:tls';
import type { Certificate } from '../nats/subjects.js';

export interface CertificatePolicy {
  /** Keep a device whose connect serial differs from its CN (gateway default true: record MISMATCH_SERIAL). */
  allowMismatch: boolean;
  /** Low-order bits ignored when comparing CN and serial (gateway default 2). */
  mismatchDepth: number;
  /** Accept simulator certificates (CN 53494d...) and verify them against this id. */
  simulatorId?: string;
}

export const DEFAULT_CERTIFICATE_POLICY: CertificatePolicy = { allowMismatch: true, mismatchDepth: 2 };

/** The CN of a verified client certificate, or why the socket must be closed. */
export function admitCertificate(socket: TLSSocket, policy: CertificatePolicy): { ok: true; cn: string } | { ok: false; reason: string } {
  if (!socket.authorized) return { ok: false, reason: `client certificate refused: ${String(socket.authorizationError ?? 'none')}` };
  const cert = socket.getPeerCertificate();
  const raw = cert?.subject?.CN;
  const cn = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  if (!cn || !/^[0-9a-f]{1,29}$/.test(cn)) return { ok: false, reason: `certificate CN ${JSON.stringify(cn ?? '')} is not a serial` };
  if (cn.startsWith('53494d') && !policy.simulatorId) return { ok: false, reason: 'simulator certificate and no simulator id configured' };
  return { ok: true, cn };
}

/** VERIFIED when CN and serial agree above `mismatchDepth` bits (or CN is the simulator id), else MISMATCH_SERIAL. */
export function certificateVerdict(cn: string, serial: string, policy: CertificatePolicy): Certificate {
  if (policy.simulatorId && cn === policy.simulatorId.toLowerCase()) return 'VERIFIED';
  try {
    const shift = BigInt(policy.mismatchDepth);
    return BigInt(`0x${cn}`) >> shift === BigInt(`0x${serial}`) >> shift ? 'VERIFIED' : 'MISMATCH_SERIAL';
  } catch {
    return 'MISMATCH_SERIAL';
  }
}
