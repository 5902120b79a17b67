/**
 * Width of a scanned neighbour from its HT / VHT Operation elements (reference §4.2 H1,
 * device-protocol §3.4). Bodies are base64 without element id/length.
 */
import type { ChannelWidth } from '../../protocol/wifi-channels.js';

function bytes(b64: unknown): Uint8Array | undefined {
  if (typeof b64 !== 'string' || b64 === '') return undefined;
  const buf = Buffer.from(b64, 'base64');
  return buf.length > 0 ? new Uint8Array(buf) : undefined;
}

export function neighbourWidth(is2G: boolean, htOper: unknown, vhtOper: unknown): ChannelWidth {
  if (is2G) return 20;
  const ht = bytes(htOper);
  if (!ht || ht.length < 2) return 20;
  const htWide = ((ht[1] ?? 0) & 0x04) !== 0;
  const vht = bytes(vhtOper);
  if (!vht || vht.length < 3) return htWide ? 40 : 20;
  const width = vht[0] ?? 0;
  if (width === 0) return htWide ? 40 : 20;
  if (width === 1 && htWide) {
    const seg0 = vht[1] ?? 0;
    const seg1 = vht[2] ?? 0;
    if (seg1 === 0) return 80;
    return Math.abs(seg0 - seg1) === 8 ? 160 : 80;
  }
  return 20;
}
