/**
 * Width of a scanned neighbour from its HT / VHT Operation elements
 * (docs/upstream.md#rrm-algorithms, docs/upstream.md#wifi-scan-results) and, for a 6 GHz BSS, which
 * has neither, from its HE Operation element (IEEE 802.11ax 9.4.2.249). Bodies are base64 without
 * element id/length. Of HT and VHT only the first bytes matter (HT byte 1, VHT bytes 0–2), so only
 * the first four base64 characters are decoded: a 1,000-AP zone has ~10^5 entries per run
 * (bench/rrm.ts).
 */
import type { ChannelWidth } from '../../protocol/wifi-channels.js';
import { HE_OPERATION_EXT_ID, IE_EXTENSION } from '../../protocol/wifiscan.js';

const B64 = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => { B64[c.charCodeAt(0)] = i; });

/** The first three bytes of a base64 string (from its first four characters), or undefined. */
function head3(b64: unknown): [number, number, number] | undefined {
  if (typeof b64 !== 'string' || b64.length < 4) return undefined;
  const d = [0, 1, 2, 3].map((i) => { const c = b64.charCodeAt(i); return c < 128 ? B64[c]! : -1; });
  if (d[0]! < 0 || d[1]! < 0) return undefined;
  const c2 = Math.max(0, d[2]!);
  const c3 = Math.max(0, d[3]!);
  return [(d[0]! << 2) | (d[1]! >> 4), ((d[1]! & 15) << 4) | (c2 >> 2), ((c2 & 3) << 6) | c3];
}

/**
 * The HE Operation body (base64, extension id first) among a scan entry's `ies[]` (type 255),
 * or undefined. RRM keeps it as the model entry's `he_oper`, beside `ht_oper`/`vht_oper`.
 */
export function heOperationOf(ies: unknown): string | undefined {
  if (!Array.isArray(ies)) return undefined;
  for (const ie of ies as ({ type?: unknown; data?: unknown } | null)[]) {
    const data = ie?.data;
    if (ie?.type === IE_EXTENSION && typeof data === 'string' && head3(data)?.[0] === HE_OPERATION_EXT_ID) return data;
  }
  return undefined;
}

/**
 * Width from the 6 GHz Operation Information of an HE Operation body: after the extension id,
 * 3 bytes of parameters (bit 14: 3 bytes of VHT info follow, bit 15: 1 byte of co-hosted BSSID
 * indicator, bit 17: the 6 GHz information is present), the BSS colour and 2 bytes of basic
 * HE-MCS set; then primary channel, control (bits 0-1: 20/40/80/160), CCFS0, CCFS1. Code 3 is
 * 160 MHz when the segments are 8 channels apart, else 80+80, which counts as 80 as for VHT.
 */
export function heOperationWidth(heOper: unknown): ChannelWidth | undefined {
  if (typeof heOper !== 'string') return undefined;
  const b = Buffer.from(heOper, 'base64');
  if (b.length < 7 || b[0] !== HE_OPERATION_EXT_ID) return undefined;
  const params = b[1]! | (b[2]! << 8) | (b[3]! << 16);
  if ((params & (1 << 17)) === 0) return undefined;
  const at = 7 + ((params & (1 << 14)) !== 0 ? 3 : 0) + ((params & (1 << 15)) !== 0 ? 1 : 0);
  if (b.length < at + 4) return undefined;
  const code = b[at + 1]! & 3;
  if (code < 3) return ([20, 40, 80] as const)[code];
  return Math.abs(b[at + 2]! - b[at + 3]!) === 8 ? 160 : 80;
}

/** Width of a neighbour: 20 on 2.4 GHz; else from HE (6 GHz), VHT and HT operation, as RRM infers it. */
export function neighbourWidth(is2G: boolean, htOper: unknown, vhtOper: unknown, heOper?: unknown): ChannelWidth {
  if (is2G) return 20;
  const he = heOperationWidth(heOper);
  if (he !== undefined) return he;
  const ht = head3(htOper);
  if (!ht) return 20;
  const htWide = (ht[1] & 0x04) !== 0;
  const vht = head3(vhtOper);
  if (!vht) return htWide ? 40 : 20;
  const [width, seg0, seg1] = vht;
  if (width === 0) return htWide ? 40 : 20;
  if (width === 1 && htWide) {
    if (seg1 === 0) return 80;
    return Math.abs(seg0 - seg1) === 8 ? 160 : 80;
  }
  return 20;
}
