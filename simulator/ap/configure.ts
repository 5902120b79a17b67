/**
 * `configure` (docs/upstream.md#the-configuration-document): the configuration replaces the AP's whole
 * configuration, as the firmware renders a new one from scratch:
 * - a radio `radios[]` does not name (or names with `enable: false`) is off: it stops
 *   beaconing, its stations are told to leave and look elsewhere, and it is neither in the
 *   state nor heard by anyone until a configuration names it again;
 * - what a named radio or `metrics` leaves out runs at the AP's defaults, which are the
 *   venue's own settings (`ap.factory`): the result never depends on earlier configurations;
 * - what cannot be applied is substituted and listed in `rejected[]` (error 1); a
 *   configuration that cannot be read is refused whole (error 2) and changes nothing.
 * SSIDs are the venue's (the configuration's `interfaces` are not read).
 */
import { inflateParams, isCompressed } from '../../src/protocol/compress.js';
import { isObject, type JsonObject, type UpFrame } from '../../src/protocol/frame.js';
import { blockPrimaries, isDfsChannel, maxTxPowerDbm, type Band, type ChannelWidth } from '../../src/protocol/wifi-channels.js';
import { radiosReconfigured } from '../clients/dynamics.js';
import { channelOverlap } from '../world/interference.js';
import { frequencyTermDb } from '../world/radio-world.js';
import { radioFrequency, radiosChanged, type Venue } from '../venue.js';
import type { Intervals, RadioSettings, ScanReport, SimAp, SimRadio } from './ap-state.js';
import { resultFrame } from './frames.js';

interface Rejected { parameter: string; reason: string; substitution: string }

const WIDTHS = [20, 40, 80, 160];
const BAND_OF: Record<string, Band> = { '2G': '2G', '5G': '5G', '5G-lower': '5G', '5G-upper': '5G', '6G': '6G' };

/** Least-used channel (hostapd-style ACS, simplified): lowest summed overlap-weighted power heard. */
export function acsChannel(v: Venue, ap: SimAp, r: SimRadio, width: ChannelWidth, allowDfs: boolean): number {
  const choices = blockPrimaries(r.band, width, r.hwChannels).filter((c) => allowDfs || !isDfsChannel(r.band, c));
  let best = r.channel;
  let bestScore = Infinity;
  for (const ch of choices) {
    const me = { band: r.band, channel: ch, width };
    let mw = 0;
    for (const o of v.aps) {
      if (o === ap || !o.up) continue;
      for (const orad of o.radios) {
        const w = orad.enabled ? channelOverlap(orad, me) : 0;
        if (w > 0) mw += w * 10 ** ((orad.txPower - v.losses.geometric(ap.index, o.index) - frequencyTermDb(radioFrequency(orad))) / 10);
      }
    }
    for (const n of v.neighbours) {
      const w = channelOverlap(n, me);
      if (w > 0) mw += w * 10 ** ((n.txPower - v.losses.geometric(ap.index, n.index) - frequencyTermDb(radioFrequency(n))) / 10);
    }
    if (mw < bestScore) { bestScore = mw; best = ch; }
  }
  return best;
}

/** The settings one `radios[k]` entry asks of radio `r`, with what had to be substituted. */
function radioSettings(v: Venue, ap: SimAp, r: SimRadio, rc: JsonObject, k: number, rejected: Rejected[]): RadioSettings {
  const factory = ap.factory.radios[r.index]!;
  const want = rc.channel;
  let width = (rc['channel-width'] ?? factory.width) as ChannelWidth;
  // `channel-width` is a hint (schema default 80 on every band): 2.4 GHz quietly runs at
  // 20 MHz, as RRM assumes (docs/upstream.md#wifi-scan-results); elsewhere an unsupported width is a substitution.
  if (r.band === '2G' && WIDTHS.includes(width)) width = 20;
  if (!WIDTHS.includes(width) || width > r.maxWidth) {
    const sub = Math.min(r.maxWidth, r.band === '2G' ? 20 : 80) as ChannelWidth;
    rejected.push({ parameter: `radios[${k}].channel-width`, reason: `width ${String(rc['channel-width'])} not supported`, substitution: String(sub) });
    width = sub;
  }
  const allowDfs = rc['allow-dfs'] !== false;
  const valid = blockPrimaries(r.band, width, r.hwChannels).filter((c) => allowDfs || !isDfsChannel(r.band, c));
  let channel: number;
  if (want === 'auto') channel = acsChannel(v, ap, r, width, allowDfs);
  // No channel given: the venue's own, if it fits the width, else ACS.
  else if (want === undefined) channel = valid.includes(factory.channel) ? factory.channel : acsChannel(v, ap, r, width, allowDfs);
  else if (typeof want === 'number' && valid.includes(want)) channel = want;
  else {
    // fw: a channel that is not a valid primary for the width falls back to ACS with a warning.
    channel = acsChannel(v, ap, r, width, allowDfs);
    rejected.push({ parameter: `radios[${k}].channel`, reason: `channel ${String(want)} is not usable at ${width} MHz here`, substitution: String(channel) });
  }
  const limit = maxTxPowerDbm(ap.country, r.band, channel) ?? 20;
  let txPower = Math.min(factory.txPower, limit);
  const tp = rc['tx-power'];
  if (tp !== undefined) {
    if (typeof tp !== 'number' || !Number.isInteger(tp) || tp < 0 || tp > 30) {
      rejected.push({ parameter: `radios[${k}].tx-power`, reason: 'tx-power must be an integer 0..30', substitution: String(txPower) });
    } else if (tp > limit) {
      rejected.push({ parameter: `radios[${k}].tx-power`, reason: `above the ${ap.country} limit on channel ${channel}`, substitution: String(limit) });
      txPower = limit;
    } else txPower = tp;
  }
  return { enabled: rc.enable !== false, channel, width, txPower };
}

/** Settings per radio index: the radios the configuration names; every other one is off. */
function radioPlan(v: Venue, ap: SimAp, radios: JsonObject[], rejected: Rejected[]): RadioSettings[] {
  const plan: RadioSettings[] = ap.radios.map((r) => ({ enabled: false, channel: r.channel, width: r.width, txPower: r.txPower }));
  const named = new Set<SimRadio>();
  radios.forEach((rc, k) => {
    const band = BAND_OF[rc.band as string];
    const free = ap.radios.filter((r) => r.band === band && !named.has(r));
    if (!band || free.length === 0) {
      const why = band && ap.radios.some((r) => r.band === band) ? `every ${band} radio of this device is named before` : `no ${String(rc.band)} radio on this device`;
      rejected.push({ parameter: `radios[${k}].band`, reason: why, substitution: '' });
      return;
    }
    const want = rc.channel;
    const r = free.find((x) => typeof want === 'number' && x.hwChannels.includes(want)) ?? free[0]!;
    named.add(r);
    plan[r.index] = radioSettings(v, ap, r, rc, k, rejected);
  });
  return plan;
}

/** Report intervals and scan options from `metrics`; what it leaves out is the AP's default. */
function metricsPlan(ap: SimAp, config: JsonObject, rejected: Rejected[]): { intervals: Intervals; scanReport: ScanReport } {
  const metrics = isObject(config.metrics) ? config.metrics : {};
  const intervalOf = (section: string, min: number, fallbackMs: number): number => {
    const s = metrics[section];
    if (!isObject(s) || s.interval === undefined) return fallbackMs;
    const n = s.interval;
    if (typeof n !== 'number' || n < min) {
      rejected.push({ parameter: `metrics.${section}.interval`, reason: `must be a number >= ${min}`, substitution: String(min) });
      return min * 1000;
    }
    return n * 1000;
  };
  const f = ap.factory;
  const scan = isObject(metrics['wifi-scan']) ? metrics['wifi-scan'] : {};
  return {
    intervals: {
      state: intervalOf('statistics', 60, f.intervals.state),
      healthcheck: intervalOf('health', 60, f.intervals.healthcheck),
      log: f.intervals.log,
      wifiscan: intervalOf('wifi-scan', 0, f.intervals.wifiscan),
    },
    scanReport: {
      verbose: typeof scan.verbose === 'boolean' ? scan.verbose : f.scanReport.verbose,
      ies: typeof scan['information-elements'] === 'boolean' ? scan['information-elements'] : f.scanReport.ies,
    },
  };
}

/** The readable configuration and uuid of the params, or why they cannot be read. */
function readParams(params: JsonObject): { config: JsonObject; uuid: number; radios: JsonObject[] } | { refused: string } {
  let p = params;
  if (isCompressed(p)) {
    const inflated = inflateParams(p);
    if (!inflated.ok) return { refused: inflated.reason };
    p = inflated.params;
  }
  const config = p.config;
  if (!isObject(config)) return { refused: 'configuration missing or not an object' };
  const uuid = typeof p.uuid === 'number' ? p.uuid : config.uuid;
  if (typeof uuid !== 'number' || !Number.isInteger(uuid) || uuid < 0) return { refused: 'uuid missing or not an integer' };
  const radios = config.radios ?? [];
  if (!Array.isArray(radios) || !radios.every((r) => isObject(r) && typeof r.band === 'string')) {
    return { refused: 'radios must be an array of objects with a band' };
  }
  return { config, uuid, radios: radios as JsonObject[] };
}

const sameSettings = (r: SimRadio, s: RadioSettings): boolean =>
  r.enabled === s.enabled && r.channel === s.channel && r.width === s.width && r.txPower === s.txPower;

/**
 * Apply a configure's params to the AP and return its result frame. `intervalsChanged` restarts
 * the AP's periodic reports when their intervals change.
 */
export function configure(v: Venue, ap: SimAp, id: number, params: JsonObject, intervalsChanged: () => void): UpFrame {
  const read = readParams(params);
  if ('refused' in read) return resultFrame(ap, id, { error: 2, text: read.refused, when: 0 });
  const rejected: Rejected[] = [];
  const plan = radioPlan(v, ap, read.radios, rejected);
  const { intervals, scanReport } = metricsPlan(ap, read.config, rejected);
  const t = v.clock.now();
  const changed = ap.radios.filter((r) => !sameSettings(r, plan[r.index]!));
  for (const r of changed) {
    const s = plan[r.index]!;
    if (s.enabled && !r.enabled) r.lastSurveyAt = t; // an off radio's survey does not run
    if (!s.enabled) r.airtime = 0;
    Object.assign(r, s);
  }
  if (changed.length > 0) {
    radiosChanged(v);
    radiosReconfigured(v, ap, changed);
  }
  const i = ap.intervals;
  const intervalsMoved = i.state !== intervals.state || i.healthcheck !== intervals.healthcheck || i.log !== intervals.log || i.wifiscan !== intervals.wifiscan;
  ap.intervals = intervals;
  ap.scanReport = scanReport;
  ap.uuid = read.uuid;
  if (intervalsMoved) intervalsChanged();
  const status: Record<string, unknown> & { error: number } = { error: rejected.length > 0 ? 1 : 0, text: rejected.length > 0 ? 'Applied with substitutions' : 'Success', when: 0 };
  if (rejected.length > 0) status.rejected = rejected;
  return resultFrame(ap, id, status, { uuid: read.uuid });
}
