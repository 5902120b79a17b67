/**
 * Width of a scanned neighbour from its HT / VHT Operation elements (reference §4.2 H1,
 * device-protocol §3.4). Bodies are base64 without element id/length. Only the first bytes
 * matter (HT byte 1, VHT bytes 0–2), so only the first four base64 characters are decoded: a
 * 1,000-AP zone has ~10^5 entries per run (bench/rrm.ts).
 */
import type { ChannelWidth } from '../../protocol/wifi-channels.js';

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

export function neighbourWidth(is2G: boolean, htOper: unknown, vhtOper: unknown): ChannelWidth {
  if (is2G) return 20;
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
