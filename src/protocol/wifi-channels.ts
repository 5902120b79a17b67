/**
 * Wi-Fi channel arithmetic for 2.4 / 5 / 6 GHz: pure functions and constant tables, no state.
 *
 * Sources (docs/upstream.md#channels-and-frequencies):
 * - channel <-> frequency: the firmware's own formulas:
 *   2.4 GHz ch = (f - 2407)/5 with 2484 -> 14; 5 GHz ch = (f - 5000)/5; 6 GHz ch = (f - 5950)/5,
 *   5935 -> ch 2.
 * - bonded blocks (hostapd, the firmware): 40 MHz primaries {36,44,...,157}, 80 MHz {36,52,100,116,
 *   132,149} -> centres 42,58,106,122,138,155; 160 MHz {36,100} -> centres 50,114; the fw also
 *   allows 165 at 40 MHz.
 * - 6 GHz PSC: channel = 5 (mod 16) (hostap is_6ghz_psc_frequency()).
 * - regulatory sets and limits: wireless-regdb (US DFS-FCC, CA, FR/ETSI).
 */

/** Band names exactly as the protocol spells them (capabilities `band[]`, state `band`). */
export type Band = '2G' | '5G' | '6G';
export const BANDS: readonly Band[] = ['2G', '5G', '6G'];
export type ChannelWidth = 20 | 40 | 80 | 160;
export const CHANNEL_WIDTHS: readonly ChannelWidth[] = [20, 40, 80, 160];

const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let c = from; c <= to; c += step) out.push(c);
  return out;
};

/** Every channel number this module knows per band (the union of all regulatory sets). */
export const ALL_CHANNELS: Readonly<Record<Band, readonly number[]>> = {
  '2G': range(1, 14, 1),
  '5G': [...range(36, 64, 4), ...range(100, 144, 4), ...range(149, 177, 4)],
  '6G': range(1, 233, 4),
};

// Set views of the channel lists: membership tests sit on the simulator's hot path.
const CHANNEL_SETS: Readonly<Record<Band, ReadonlySet<number>>> = {
  '2G': new Set(ALL_CHANNELS['2G']), '5G': new Set(ALL_CHANNELS['5G']), '6G': new Set(ALL_CHANNELS['6G']),
};

export function isBand(v: unknown): v is Band {
  return v === '2G' || v === '5G' || v === '6G';
}

/** Centre frequency (MHz) of a 20 MHz channel, or undefined when the channel does not exist. */
export function channelToFrequency(band: Band, channel: number): number | undefined {
  if (band === '6G' && channel === 2) return 5935; // the 6 GHz "channel 2" outlier
  if (!CHANNEL_SETS[band].has(channel)) return undefined;
  if (band === '2G') return channel === 14 ? 2484 : 2407 + 5 * channel;
  if (band === '5G') return 5000 + 5 * channel;
  return 5950 + 5 * channel;
}

/** Band and channel of a 20 MHz channel centre frequency (MHz); undefined if not a known channel. */
export function frequencyToChannel(mhz: number): { band: Band; channel: number } | undefined {
  let band: Band;
  let channel: number;
  if (mhz === 2484) return { band: '2G', channel: 14 };
  if (mhz === 5935) return { band: '6G', channel: 2 };
  if (mhz >= 2412 && mhz <= 2472) { band = '2G'; channel = (mhz - 2407) / 5; }
  else if (mhz >= 5160 && mhz <= 5885) { band = '5G'; channel = (mhz - 5000) / 5; }
  else if (mhz >= 5955 && mhz <= 7115) { band = '6G'; channel = (mhz - 5950) / 5; }
  else return undefined;
  return CHANNEL_SETS[band].has(channel) ? { band, channel } : undefined;
}

/** Band of any frequency inside a band's range (a centre frequency of a wide block counts too). */
export function bandOfFrequency(mhz: number): Band | undefined {
  if (mhz >= 2400 && mhz <= 2500) return '2G';
  if (mhz >= 5150 && mhz <= 5895) return '5G';
  if (mhz >= 5925 && mhz <= 7125) return '6G';
  return undefined;
}

/** A bonded block of 20 MHz channels. */
export interface ChannelBlock {
  band: Band;
  width: ChannelWidth;
  /** The 20 MHz channels of the block, ascending. */
  channels: readonly number[];
  /** Channel number of the block centre (state `channels[1]`, VHT CCFS). */
  centre: number;
  centreFrequency: number;
}

/** First channels of the 5 GHz blocks per width (hostapd / OpenWiFi fw `radio.uc` tables). */
const BLOCK_STARTS_5G: Readonly<Record<ChannelWidth, readonly number[]>> = {
  20: ALL_CHANNELS['5G'],
  40: [36, 44, 52, 60, 100, 108, 116, 124, 132, 140, 149, 157, 165, 173],
  80: [36, 52, 100, 116, 132, 149, 165],
  160: [36, 100, 149],
};

function blockStarts(band: Band, width: ChannelWidth): readonly number[] {
  if (band === '5G') return BLOCK_STARTS_5G[width];
  if (band === '6G') return range(1, 233, width / 5).filter((c) => c + width / 5 - 4 <= 233);
  return width === 20 ? ALL_CHANNELS['2G'] : [];
}

/**
 * The block of `width` MHz that contains the 20 MHz channel `primary`, or undefined when the
 * channel cannot carry that width. 2.4 GHz 40 MHz follows HT40+ for channels 1..7 and HT40-
 * above (the secondary 20 MHz sits 4 channels away, the centre 2 channels away).
 */
export function blockOf(band: Band, primary: number, width: ChannelWidth): ChannelBlock | undefined {
  return BLOCKS.get(blockKey(band, primary, width));
}

const blockKey = (band: Band, primary: number, width: number): number => (band === '2G' ? 0 : band === '5G' ? 1 : 2) * 100_000 + width * 1000 + primary;

function computeBlock(band: Band, primary: number, width: ChannelWidth): ChannelBlock | undefined {
  if (channelToFrequency(band, primary) === undefined) return undefined;
  if (band === '2G') {
    if (width === 20) return mk(band, width, [primary], primary);
    if (width !== 40 || primary === 14) return undefined;
    const lo = primary <= 7 ? primary : primary - 4;
    if (lo < 1 || lo + 4 > 13) return undefined;
    return mk(band, width, [lo, lo + 4], lo + 2);
  }
  const n = width / 20;
  for (const start of blockStarts(band, width)) {
    const chans = range(start, start + 4 * (n - 1), 4);
    if (!chans.includes(primary)) continue;
    if (!chans.every((c) => CHANNEL_SETS[band].has(c))) return undefined;
    return mk(band, width, chans, start + 2 * (n - 1));
  }
  return undefined;
}

function mk(band: Band, width: ChannelWidth, channels: number[], centre: number): ChannelBlock {
  const f = band === '2G' ? 2407 + 5 * centre : (band === '5G' ? 5000 : 5950) + 5 * centre;
  return Object.freeze({ band, width, channels: Object.freeze(channels), centre, centreFrequency: f });
}

/** Every (band, primary, width) block, computed once: a constant table, not mutable state. */
const BLOCKS: ReadonlyMap<number, ChannelBlock> = (() => {
  const m = new Map<number, ChannelBlock>();
  for (const band of BANDS) {
    for (const ch of ALL_CHANNELS[band]) {
      for (const w of CHANNEL_WIDTHS) {
        const b = computeBlock(band, ch, w);
        if (b) m.set(blockKey(band, ch, w), b);
      }
    }
  }
  return m;
})();

/** Centre channel of the block of `width` containing `primary` (undefined if impossible). */
export function centreChannel(band: Band, primary: number, width: ChannelWidth): number | undefined {
  return blockOf(band, primary, width)?.centre;
}

/** Centre frequency (MHz) of the block of `width` containing `primary`. */
export function centreFrequency(band: Band, primary: number, width: ChannelWidth): number | undefined {
  return blockOf(band, primary, width)?.centreFrequency;
}

/**
 * The primary channels RRM and the fw use for a width: the first channel of each block whose
 * channels are all in `allowed` (default: every known channel). 2.4 GHz: every allowed channel
 * at 20 MHz, none wider (OpenWiFi runs 2.4 GHz at 20 MHz).
 */
export function blockPrimaries(band: Band, width: ChannelWidth, allowed?: readonly number[]): number[] {
  const ok = allowed ?? ALL_CHANNELS[band];
  if (band === '2G') return width === 20 ? ALL_CHANNELS['2G'].filter((c) => ok.includes(c)) : [];
  return blockStarts(band, width).filter((start) => {
    const b = blockOf(band, start, width);
    return b !== undefined && b.channels.every((c) => ok.includes(c));
  });
}

/** True when `primary` lies in a `width` block whose channels are all in `allowed`. */
export function isValidPrimary(band: Band, primary: number, width: ChannelWidth, allowed?: readonly number[]): boolean {
  const b = blockOf(band, primary, width);
  const ok = allowed ?? ALL_CHANNELS[band];
  return b !== undefined && b.channels.every((c) => ok.includes(c));
}

/** Where the secondary 20 MHz of the primary's 40 MHz pair lies (HT Operation offset field). */
export function secondaryOffset(band: Band, primary: number, width: ChannelWidth): 'above' | 'below' | 'none' {
  if (width === 20) return 'none';
  const b40 = blockOf(band, primary, 40);
  if (!b40) return 'none';
  return b40.channels[0] === primary ? 'above' : 'below';
}

/** 5 GHz U-NII-2A/2C channels need radar detection (DFS) everywhere in this model. */
export function isDfsChannel(band: Band, channel: number): boolean {
  return band === '5G' && channel >= 52 && channel <= 144;
}

/** 6 GHz preferred scanning channel: one per 80 MHz block, channel = 5 (mod 16). */
export function is6GhzPsc(channel: number): boolean {
  return channel >= 5 && channel <= 229 && channel % 16 === 5;
}

/** A power limit over a channel range (inclusive), in dBm. */
interface PowerRange { band: Band; from: number; to: number; maxDbm: number }

export interface RegulatoryDomain {
  /** The country asked for, upper case. */
  country: string;
  /** Which table answered: the country's own, or the conservative world set. */
  domain: 'US' | 'CA' | 'ETSI' | 'JP' | 'WORLD';
  channels: Readonly<Record<Band, readonly number[]>>;
  ranges: readonly PowerRange[];
}

const ETSI_COUNTRIES = new Set([
  'EU', 'DE', 'FR', 'GB', 'UK', 'IT', 'ES', 'NL', 'BE', 'AT', 'SE', 'DK', 'FI', 'IE', 'PT', 'PL',
  'CH', 'NO', 'LU', 'CZ', 'GR', 'HU', 'RO', 'SK', 'SI', 'BG', 'HR', 'EE', 'LV', 'LT', 'IS',
]);

// regdb US DFS-FCC: 2.4 GHz 30 dBm; U-NII-1 23; U-NII-2A/2C 24 (DFS); U-NII-3 30; 6 GHz 12.
const US: Omit<RegulatoryDomain, 'country'> = {
  domain: 'US',
  channels: { '2G': range(1, 11, 1), '5G': [...range(36, 64, 4), ...range(100, 144, 4), ...range(149, 165, 4)], '6G': range(1, 233, 4) },
  ranges: [
    { band: '2G', from: 1, to: 11, maxDbm: 30 }, { band: '5G', from: 36, to: 48, maxDbm: 23 },
    { band: '5G', from: 52, to: 144, maxDbm: 24 }, { band: '5G', from: 149, to: 165, maxDbm: 30 },
    { band: '6G', from: 1, to: 233, maxDbm: 12 },
  ],
};
// regdb CA: as US but 5600-5650 MHz (ch 120-128, weather radar) excluded.
const CA: Omit<RegulatoryDomain, 'country'> = {
  ...US, domain: 'CA',
  channels: { ...US.channels, '5G': US.channels['5G'].filter((c) => c < 120 || c > 128) },
};
// regdb ETSI (FR/DE/GB): 2.4 GHz 100 mW (20 dBm) ch 1-13; 5150-5250 200 mW (23); 5250-5350
// 100 mW (20, DFS); 5470-5725 500 mW (27, DFS, ch 100-140); 5945-6425 23 dBm (ch 1-93).
const ETSI: Omit<RegulatoryDomain, 'country'> = {
  domain: 'ETSI',
  channels: { '2G': range(1, 13, 1), '5G': [...range(36, 64, 4), ...range(100, 140, 4)], '6G': range(1, 93, 4) },
  ranges: [
    { band: '2G', from: 1, to: 13, maxDbm: 20 }, { band: '5G', from: 36, to: 48, maxDbm: 23 },
    { band: '5G', from: 52, to: 64, maxDbm: 20 }, { band: '5G', from: 100, to: 140, maxDbm: 27 },
    { band: '6G', from: 1, to: 93, maxDbm: 23 },
  ],
};
// regdb JP: 2.4 GHz ch 1-14 (14 DSSS only) 20 dBm; W52/W53 20 dBm (W53 DFS); W56 23 dBm DFS.
const JP: Omit<RegulatoryDomain, 'country'> = {
  domain: 'JP',
  channels: { '2G': range(1, 14, 1), '5G': [...range(36, 64, 4), ...range(100, 144, 4)], '6G': range(1, 93, 4) },
  ranges: [
    { band: '2G', from: 1, to: 14, maxDbm: 20 }, { band: '5G', from: 36, to: 64, maxDbm: 20 },
    { band: '5G', from: 100, to: 144, maxDbm: 23 }, { band: '6G', from: 1, to: 93, maxDbm: 23 },
  ],
};
// regdb world "00": only what every country allows (2.4 GHz 1-11, U-NII-1, U-NII-3), no 6 GHz.
const WORLD: Omit<RegulatoryDomain, 'country'> = {
  domain: 'WORLD',
  channels: { '2G': range(1, 11, 1), '5G': [...range(36, 48, 4), ...range(149, 165, 4)], '6G': [] },
  ranges: [
    { band: '2G', from: 1, to: 11, maxDbm: 20 }, { band: '5G', from: 36, to: 48, maxDbm: 20 },
    { band: '5G', from: 149, to: 165, maxDbm: 20 },
  ],
};

/** The regulatory domain of a two-letter country code; unknown codes get the world set. */
export function regulatoryDomain(country: string): RegulatoryDomain {
  const c = country.toUpperCase();
  const base = c === 'US' ? US : c === 'CA' ? CA : c === 'JP' ? JP : ETSI_COUNTRIES.has(c) ? ETSI : WORLD;
  return { country: c, ...base };
}

/** Channels of `band` allowed in `country`. */
export function channelsFor(country: string, band: Band): readonly number[] {
  return regulatoryDomain(country).channels[band];
}

/** Maximum conducted tx power (dBm) on a channel in a country; undefined when not allowed. */
export function maxTxPowerDbm(country: string, band: Band, channel: number): number | undefined {
  const d = regulatoryDomain(country);
  if (!d.channels[band].includes(channel)) return undefined;
  return d.ranges.find((r) => r.band === band && channel >= r.from && channel <= r.to)?.maxDbm;
}

/**
 * State-document channel lists for a radio (docs/upstream.md#the-state-document): `channels` is
 * the unique [primary, centre] and `frequency` the matching MHz, e.g. 149@80 -> [149,155],
 * [5745,5775]; 11@20 -> [11], [2462].
 */
export function stateChannelLists(band: Band, primary: number, width: ChannelWidth): { channels: number[]; frequency: number[] } | undefined {
  const b = blockOf(band, primary, width);
  const f = channelToFrequency(band, primary);
  if (!b || f === undefined) return undefined;
  if (b.centre === primary) return { channels: [primary], frequency: [f] };
  return { channels: [primary, b.centre], frequency: [f, b.centreFrequency] };
}
