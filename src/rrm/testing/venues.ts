/**
 * Seeded synthetic venues for RRM tests, the rrm benchmark and the optimizer testing kit: APs on a
 * square floor, unmanaged neighbours, clients, and the documents an AP would report (states, scans,
 * capabilities), turned into the RRM model with the real builder. Scan signals follow one path-loss
 * law and move dB for dB with the transmitter's tx power (docs/upstream.md#rrms-radio-constants),
 * so applying a plan and re-scanning shows its effect.
 */
import seedrandom from 'seedrandom';
import {
  blockOf, channelToFrequency, type Band, type ChannelWidth,
} from '../../protocol/wifi-channels.js';
import type { Capabilities } from '../../protocol/capabilities.js';
import { buildModel, type DeviceDocuments } from '../model/build.js';
import type { RrmModel } from '../model/types.js';
import type { EffectiveConfig } from '../schemas/device-config.js';
import { defaultEffectiveConfig } from '../config/layered.js';
import type { Plan } from '../algorithms/common.js';

export interface SynthRadio { band: Band; channel: number; width: ChannelWidth; tx: number; bssid: string }
export interface SynthAp {
  serial: string;
  x: number;
  y: number;
  radios: SynthRadio[];
  /** Capabilities the AP reports; null = none known (band comes from state / frequency). */
  capabilities: Capabilities | null;
  /** Client RSSIs per radio index. */
  clients: number[][];
}
export interface SynthTransmitter { bssid: string; x: number; y: number; band: Band; channel: number; width: ChannelWidth; tx: number }
export interface SynthVenue {
  aps: SynthAp[];
  unmanaged: SynthTransmitter[];
  hearingDbm: number;
  /** Regulatory country the APs' configurations name (radios[].country); none when absent. */
  country?: string;
}

export interface VenueOptions {
  aps: number;
  /** Floor side in metres (default: ~15 m per AP on a square). */
  side?: number;
  unmanaged?: number;
  bands?: Band[];
  /** Channels radios start on, per band (default: a mix including DFS 52/100 and 2.4 GHz 3). */
  startChannels?: Partial<Record<Band, number[]>>;
  /** Every managed radio of a band starts on this channel (closed-loop tests). */
  sameChannel?: Partial<Record<Band, number>>;
  /** Every managed radio starts at this power (symmetric hearing). */
  sameTx?: number;
  /** Weakest signal a scan reports (default −88 dBm; −200 = everyone hears everyone). */
  hearingDbm?: number;
  /** Share of APs without capabilities (default 0.2). */
  noCapsShare?: number;
  clientsPerRadio?: number;
  /** Country every AP's configuration names (its tx power limits); none by default. */
  country?: string;
}

const PHY_5G = 'platform/soc/c000000.wifi';
const PHY_2G = 'platform/soc/c000000.wifi+1';
const PHY_6G = 'platform/soc/c000000.wifi+2';

const CAPS_WIFI = {
  [PHY_5G]: {
    band: ['5G' as const], channels: [36, 40, 44, 48, 52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144, 149, 153, 157, 161, 165],
    dfs_channels: [52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144],
  },
  [PHY_2G]: { band: ['2G' as const], channels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
  [PHY_6G]: { band: ['6G' as const], channels: Array.from({ length: 59 }, (_, i) => 1 + 4 * i) },
};

const PHY_OF: Record<Band, string> = { '2G': PHY_2G, '5G': PHY_5G, '6G': PHY_6G };
const START: Record<Band, { channels: number[]; widths: ChannelWidth[] }> = {
  '2G': { channels: [1, 6, 11, 3], widths: [20] },
  '5G': { channels: [36, 44, 149, 157, 52, 100], widths: [20, 40, 80] },
  '6G': { channels: [5, 21, 37, 53], widths: [20, 80] },
};

const hex2 = (n: number) => (n & 0xff).toString(16).padStart(2, '0');
export const serialOf = (i: number) => `a0b1c2${hex2(i >> 16)}${hex2(i >> 8)}${hex2(i)}`;
const bssidOf = (prefix: number, i: number, r: number) => `${hex2(prefix)}:00:${hex2(i >> 16)}:${hex2(i >> 8)}:${hex2(i)}:${hex2(r)}`;

export function genVenue(seed: number | string, opts: VenueOptions): SynthVenue {
  const rng = seedrandom(String(seed));
  const int = (n: number) => Math.floor(rng() * n);
  const side = opts.side ?? Math.max(20, Math.round(Math.sqrt(opts.aps) * 15));
  const bands = opts.bands ?? ['2G', '5G'];
  const aps: SynthAp[] = [];
  for (let i = 0; i < opts.aps; i++) {
    const radios = bands.map((band, r): SynthRadio => {
      const start = START[band];
      const width = start.widths[int(start.widths.length)]!;
      const chans = opts.startChannels?.[band] ?? start.channels;
      let channel = opts.sameChannel?.[band] ?? chans[int(chans.length)]!;
      channel = blockOf(band, channel, width)?.channels[0] ?? channel;
      return { band, channel, width, tx: opts.sameTx ?? 10 + int(21), bssid: bssidOf(2, i, r) };
    });
    const caps = rng() < (opts.noCapsShare ?? 0.2) ? null : {
      compatible: 'synthetic', model: 'Synthetic AP', platform: 'ap',
      wifi: Object.fromEntries(bands.map((b) => [PHY_OF[b], CAPS_WIFI[PHY_OF[b] as keyof typeof CAPS_WIFI]])),
    } as Capabilities;
    const clients = radios.map(() => Array.from({ length: int((opts.clientsPerRadio ?? 3) + 1) }, () => -45 - int(40)));
    aps.push({ serial: serialOf(i), x: int(side), y: int(side), radios, capabilities: caps, clients });
  }
  const unmanaged: SynthTransmitter[] = [];
  for (let k = 0; k < (opts.unmanaged ?? Math.ceil(opts.aps / 3)); k++) {
    const band = bands[int(bands.length)]!;
    const start = START[band];
    const width = start.widths[int(start.widths.length)]!;
    const ch = start.channels[int(start.channels.length)]!;
    unmanaged.push({ bssid: bssidOf(6, k, 0), x: int(side), y: int(side), band, channel: blockOf(band, ch, width)?.channels[0] ?? ch, width, tx: 15 + int(10) });
  }
  return { aps, unmanaged, hearingDbm: opts.hearingDbm ?? -88, ...(opts.country ? { country: opts.country } : {}) };
}

/** Path loss (dB) used for every scan signal: 40 + 35·log10(d), d ≥ 1 m. */
export const pathLossDb = (d: number): number => 40 + 35 * Math.log10(Math.max(1, d));

/** Integer signal that moves 1:1 with tx power. */
export const signalDbm = (tx: number, d: number): number => tx - Math.round(pathLossDb(d));

function htVht(band: Band, channel: number, width: ChannelWidth): { ht_oper?: string; vht_oper?: string } {
  if (band !== '5G') return {};
  const ht = new Uint8Array(22);
  ht[0] = channel;
  if (width >= 40) ht[1] = 0x04 | (blockOf(band, channel, 40)?.channels[0] === channel ? 1 : 3);
  const vht = new Uint8Array(5);
  if (width >= 80) {
    vht[0] = 1;
    vht[1] = blockOf(band, channel, 80)?.centre ?? 0;
    vht[2] = width === 160 ? blockOf(band, channel, 160)?.centre ?? 0 : 0;
  } else {
    vht[1] = blockOf(band, channel, width)?.centre ?? channel;
  }
  return { ht_oper: Buffer.from(ht).toString('base64'), vht_oper: Buffer.from(vht).toString('base64') };
}

function transmitters(v: SynthVenue): (SynthTransmitter & { owner?: string })[] {
  const managed = v.aps.flatMap((ap) => ap.radios.map((r) => ({ ...r, x: ap.x, y: ap.y, owner: ap.serial })));
  return [...managed, ...v.unmanaged];
}

/** The documents each AP reports, at time `t` (ms). */
export function venueDocuments(v: SynthVenue, t = 1_700_000_000_000): DeviceDocuments[] {
  const all = transmitters(v);
  return v.aps.map((ap) => {
    const state = {
      unit: { localtime: Math.floor(t / 1000), uptime: 1000 },
      radios: ap.radios.map((r) => ({
        phy: PHY_OF[r.band], band: [r.band], channel: r.channel, channel_width: r.width, tx_power: r.tx,
        frequency: [channelToFrequency(r.band, r.channel)!],
      })),
      interfaces: [{
        name: 'up0v0',
        ssids: ap.radios.map((r, i) => ({
          bssid: r.bssid, ssid: 'venue', band: r.band, radio: { $ref: `#/radios/${i}` },
          associations: (ap.clients[i] ?? []).map((rssi, k) => ({
            station: `0e:00:00:00:${hex2(i)}:${hex2(k)}`, bssid: r.bssid, rssi, rx_bytes: 0, tx_bytes: 0, rx_packets: 0, tx_packets: 0,
          })),
        })),
      }],
    };
    const entries = all
      .filter((tx) => tx.owner !== ap.serial)
      .map((tx) => ({ tx, signal: signalDbm(tx.tx, Math.hypot(tx.x - ap.x, tx.y - ap.y)) }))
      .filter((e) => e.signal >= v.hearingDbm)
      .map(({ tx, signal }) => ({
        bssid: tx.bssid, ssid: tx.owner ? 'venue' : 'neighbour', frequency: channelToFrequency(tx.band, tx.channel)!,
        channel: tx.channel, signal, ...htVht(tx.band, tx.channel, tx.width),
      }));
    return {
      serial: ap.serial,
      states: [{ recorded: t, state }],
      scans: [{ recorded: t, entries }],
      capabilities: ap.capabilities,
      activeConfig: {
        radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.tx, ...(v.country ? { country: v.country } : {}) })),
      },
    };
  });
}

export const venueModel = (v: SynthVenue): RrmModel => buildModel(venueDocuments(v));

/** The venue after the APs applied a plan (channels or powers). */
export function applyToVenue(v: SynthVenue, kind: 'channel' | 'txPower', plan: Plan): SynthVenue {
  return {
    ...v,
    aps: v.aps.map((ap) => ({
      ...ap,
      radios: ap.radios.map((r) => {
        const value = plan[ap.serial]?.[r.band];
        if (value === undefined) return r;
        return kind === 'channel' ? { ...r, channel: value } : { ...r, tx: value };
      }),
    })),
  };
}

export function defaultConfigs(v: SynthVenue, patch: (serial: string, i: number) => Partial<EffectiveConfig> = () => ({})): Map<string, EffectiveConfig> {
  return new Map(v.aps.map((ap, i) => [ap.serial, { ...defaultEffectiveConfig(), ...patch(ap.serial, i) }]));
}

/**
 * Total co-channel interference: over pairs of managed radios whose 20 MHz
 * channels overlap, the received power above −82 dBm, in mW (both directions).
 */
export function coChannelInterferenceMw(v: SynthVenue): number {
  let total = 0;
  const radios = v.aps.flatMap((ap) => ap.radios.map((r) => ({ ...r, x: ap.x, y: ap.y, serial: ap.serial })));
  for (const a of radios) {
    const ca = blockOf(a.band, a.channel, a.width)?.channels ?? [a.channel];
    for (const b of radios) {
      if (a.serial === b.serial || a.band !== b.band) continue;
      const cb = blockOf(b.band, b.channel, b.width)?.channels ?? [b.channel];
      if (!ca.some((c) => cb.includes(c))) continue;
      const rx = signalDbm(b.tx, Math.hypot(a.x - b.x, a.y - b.y));
      if (rx > -82) total += 10 ** (rx / 10);
    }
  }
  return total;
}

/**
 * Random per-AP constraints for property tests: user and allowed channels (DFS included
 * sometimes), user and allowed powers, locations. Seeded, so a failing case comes back with its seed.
 */
export function randomConstraints(v: SynthVenue, seed: number | string, side = 100): Map<string, EffectiveConfig> {
  const rng = seedrandom(`constraints:${seed}`);
  const chance = (p: number) => rng() < p;
  const int = (n: number) => Math.floor(rng() * n);
  const subset = (list: readonly number[]) => {
    const s = list.filter(() => chance(0.4));
    return s.length > 0 ? s : [list[int(list.length)]!];
  };
  const ALL: Record<Band, number[]> = {
    '2G': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    '5G': CAPS_WIFI[PHY_5G].channels,
    '6G': CAPS_WIFI[PHY_6G].channels,
  };
  return defaultConfigs(v, (_, i) => {
    const ap = v.aps[i]!;
    const band = ap.radios[int(ap.radios.length)]!.band;
    const patch: Partial<EffectiveConfig> = {};
    if (chance(0.15)) patch.userChannels = { [band]: ALL[band][int(ALL[band].length)]! };
    if (chance(0.3)) patch.allowedChannels = { [band]: subset(ALL[band]) };
    if (chance(0.15)) patch.userTxPowers = { [band]: int(31) };
    if (chance(0.3)) patch.allowedTxPowers = { [band]: subset(Array.from({ length: 31 }, (_, k) => k)) };
    if (chance(0.8)) patch.location = [int(side), int(side)];
    return patch;
  });
}
