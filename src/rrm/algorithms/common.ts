/**
 * Shared pieces of the optimizers: the input/plan types, seeded randomness, channel candidates of
 * an AP (docs/upstream.md#rrm-algorithms with docs/rrm.md) and tx power choices
 * (docs/upstream.md#rrm-algorithms, with docs/rrm.md). Pure: no clock, no I/O, no Math.random.
 */
import {
  ALL_CHANNELS, blockOf, isDfsChannel, type Band, type ChannelWidth,
} from '../../protocol/wifi-channels.js';
import type { EffectiveConfig } from '../schemas/device-config.js';
import type { RrmModel } from '../model/types.js';
import type { Site } from '../site.js';
import { MAX_TX_POWER_DBM, type ApView } from '../model/view.js';

/** A seeded source of uniform numbers in [0, 1) (a seedrandom prng). */
export type Rng = () => number;

/** serial -> band -> value (channel number or dBm). */
export type Plan = Record<string, Record<string, number>>;

export interface AlgorithmInput<A> {
  model: RrmModel;
  /** The zone: its name and member serials (only these get output). */
  zone: { name: string; serials: readonly string[] };
  /** Effective configuration of every zone member. */
  configs: ReadonlyMap<string, EffectiveConfig>;
  rng: Rng;
  args: A;
  /** The venue (floors, walls, origin) when RRM knows it: location-based power modes use it. */
  site?: Site;
}

/** Uniform pick; the one place optimizers draw from the rng. */
export function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[Math.min(list.length - 1, Math.floor(rng() * list.length))]!;
}

/**
 * Output in a stable order: serials ascending, bands ascending (docs/upstream.md#rrm-algorithms).
 */
export function sortedPlan(plan: Plan): Plan {
  const out: Plan = {};
  for (const s of Object.keys(plan).sort()) {
    const bands = plan[s]!;
    out[s] = Object.fromEntries(Object.keys(bands).sort().map((b) => [b, bands[b]!]));
  }
  return out;
}

export function setPlan(plan: Plan, serial: string, band: Band, value: number): void {
  (plan[serial] ??= {})[band] = value;
}

/**
 * Defaults without capabilities (docs/upstream.md#rrm-algorithms; 6 GHz: every channel, PSC
 * preferred later).
 */
const DEFAULT_CHANNELS: Readonly<Record<Band, readonly number[]>> = {
  '2G': ALL_CHANNELS['2G'].filter((c) => c <= 11),
  '5G': [36, 40, 44, 48, 149, 153, 157, 161, 165],
  '6G': ALL_CHANNELS['6G'],
};

/**
 * Channels an AP may use as primary in `band` at `width`:
 * 1. the channels of its capabilities phys for the band (default list without capabilities);
 * 2. DFS channels (the phy's `dfs_channels`, 5 GHz 52–144) and 2.4 GHz 12–14 only when the
 *    effective `allowedChannels[band]` lists one of them (an explicit opt-in);
 * 3. only the first channel of each bonded block whose channels are all usable (fw convention);
 * 4. intersected with `allowedChannels[band]` when set.
 * `userChannels` is handled by the caller (it always wins). Ascending; may be empty.
 */
export function channelCandidates(ap: ApView, band: Band, width: ChannelWidth, cfg: EffectiveConfig | undefined): number[] {
  const caps = new Set<number>();
  const capDfs = new Set<number>();
  for (const phy of Object.values(ap.phys)) {
    if (!Array.isArray(phy?.band) || !phy.band.includes(band)) continue;
    for (const c of Array.isArray(phy.channels) ? phy.channels : []) caps.add(c);
    for (const c of Array.isArray(phy.dfs_channels) ? phy.dfs_channels : []) capDfs.add(c);
  }
  const base = caps.size > 0 ? [...caps].filter((c) => ALL_CHANNELS[band].includes(c)) : [...DEFAULT_CHANNELS[band]];
  const allowed = cfg?.allowedChannels?.[band];
  const restricted = (c: number) => isDfsChannel(band, c) || capDfs.has(c) || (band === '2G' && c > 11);
  const optIn = allowed?.some(restricted) ?? false;
  const usable = new Set(base.filter((c) => optIn || !restricted(c)));
  const w: ChannelWidth = band === '2G' ? 20 : width;
  const out: number[] = [];
  for (const c of usable) {
    const block = blockOf(band, c, w);
    if (!block || block.channels[0] !== c || !block.channels.every((x) => usable.has(x))) continue;
    if (allowed && !allowed.includes(c)) continue;
    out.push(c);
  }
  return out.sort((a, b) => a - b);
}

/** The primary the fw actually uses for a channel at a width (first channel of its block). */
export function blockStart(band: Band, channel: number, width: ChannelWidth): number {
  return blockOf(band, channel, band === '2G' ? 20 : width)?.channels[0] ?? channel;
}

export const TX_POWER_RANGE: readonly number[] = Array.from({ length: MAX_TX_POWER_DBM + 1 }, (_, i) => i);

/**
 * The most an AP may transmit in a band (dBm): the lowest limit of its radios in that band
 * (a plan holds one power per AP and band), 30 when it has none (ApRadio.maxTxPower).
 */
export function powerLimit(ap: ApView, band: Band): number {
  let limit = MAX_TX_POWER_DBM;
  for (const r of ap.radios) if (r.band === band && r.maxTxPower < limit) limit = r.maxTxPower;
  return limit;
}

/**
 * Allowed tx powers of an AP in a band, ascending: [userTxPowers] when set, else 0..30 intersected
 * with allowedTxPowers; never above `limit` (the radio's regulatory and capability maximum,
 * powerLimit): a user power above it becomes the limit, as the AP would clip it. Empty means "no
 * valid power" and the AP is left alone (upstream silently reset to 0..30, docs/rrm.md).
 */
export function txChoices(cfg: EffectiveConfig | undefined, band: Band, limit = MAX_TX_POWER_DBM): number[] {
  const user = cfg?.userTxPowers?.[band];
  if (user !== undefined) return [Math.min(user, limit)];
  const allowed = cfg?.allowedTxPowers?.[band];
  return TX_POWER_RANGE.filter((p) => p <= limit && (!allowed || allowed.includes(p)));
}

/** txChoices for an AP of the zone view, capped at its limit in the band. */
export function apTxChoices(cfg: EffectiveConfig | undefined, ap: ApView, band: Band): number[] {
  return txChoices(cfg, band, powerLimit(ap, band));
}

/**
 * Nearest allowed power; ties go to the higher one (keeps coverage,
 * docs/upstream.md#rrm-algorithms).
 */
export function snapPower(value: number, choices: readonly number[]): number {
  let best = choices[0]!;
  for (const c of choices) {
    if (Math.abs(c - value) < Math.abs(best - value) || (Math.abs(c - value) === Math.abs(best - value) && c > best)) best = c;
  }
  return best;
}
