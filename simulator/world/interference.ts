/**
 * How much of a transmitter's energy lands in a receiver's channel, as a weight in [0, 1].
 *
 * 2.4 GHz: 20 MHz channels 5 MHz apart overlap. Weights +-1 channel 0.85 and +-2 channels 0.55
 * are hostapd's ACS_ADJ_WEIGHT / ACS_NEXT_ADJ_WEIGHT (src/ap/acs.c, docs/upstream.md#radio-physics);
 * +-3 channels (15 MHz apart) 0.25 is the spectral overlap of two 20 MHz masks (5/20); four or
 * more channels apart (1/6/11 plans) do not interfere.
 * 5 and 6 GHz: channels do not overlap; two radios share air when their bonded blocks share a
 * 20 MHz channel, weighted by the share of the receiver's block that the transmitter covers.
 */
import { blockOf, type Band, type ChannelWidth } from '../../src/protocol/wifi-channels.js';

export interface RadioChannel { band: Band; channel: number; width: ChannelWidth }

const ADJ_24: readonly number[] = [1, 0.85, 0.55, 0.25];

export function channelOverlap(tx: RadioChannel, rx: RadioChannel): number {
  if (tx.band !== rx.band) return 0;
  if (tx.band === '2G') {
    const d = Math.abs(tx.channel - rx.channel);
    return d < ADJ_24.length ? ADJ_24[d]! : 0;
  }
  const a = blockOf(tx.band, tx.channel, tx.width)?.channels ?? [tx.channel];
  const b = blockOf(rx.band, rx.channel, rx.width)?.channels ?? [rx.channel];
  let shared = 0;
  for (const c of b) if (a.includes(c)) shared++;
  return shared / b.length;
}
