/**
 * Traffic and airtime bookkeeping, advanced lazily up to "now" whenever a frame needs it:
 * - a station's offered load becomes bytes/packets on its association, its SSID and the AP's
 *   uplink interface, and airtime at its PHY rate (rate from SNR, clients/mcs.ts);
 * - a radio's survey counters grow with its own airtime plus the airtime of every transmitter
 *   it hears above the CCA threshold on an overlapping channel (world/interference.ts).
 * Invariants (what RRM and a real radio need to agree): busy <= active, rx + tx <= busy, and every
 * counter only grows.
 */
import { noiseFloorDbm } from '../world/noise.js';
import { channelOverlap } from '../world/interference.js';
import { frequencyTermDb, geometricLossWithFields } from '../world/radio-world.js';
import { shadowField } from '../world/shadowing.js';
import { phyRate, type PhyRate } from '../clients/mcs.js';
import { positionAt, type SimClient } from '../clients/station.js';
import { radioFrequency, type Venue } from '../venue.js';
import { hash32 } from '../rng.js';
import { addToCounters, type SimAp, type SimRadio } from './ap-state.js';

/** Energy-detect / preamble CCA level: 802.11 OFDM receivers defer at -82 dBm per 20 MHz. */
export const CCA_DBM = -82;
/** MAC efficiency: share of the PHY rate left after preambles, ACKs, contention. */
const MAC_EFFICIENCY = 0.65;
const DOWN_SHARE = 0.75;

/** The radio's noise floor: thermal + NF for its width, plus a fixed per-AP calibration offset. */
export function radioNoiseDbm(ap: SimAp, r: SimRadio): number {
  // -2..+2 dB, fixed per radio by the AP's identity (not its place in the venue list).
  const offset = (hash32(parseInt(ap.serial.slice(4), 16), r.index, 77) % 5) - 2;
  return Math.round(noiseFloorDbm(r.width) + offset);
}

/** What a station and its AP hear of each other now: downlink rssi at the station, uplink at the AP. */
export function stationLink(v: Venue, c: SimClient, t: number): { downDbm: number; upDbm: number; rate: PhyRate } {
  const ap = c.ap!;
  const r = c.radio!;
  const cached = c.link;
  if (cached && cached.t === t && cached.radio === r && cached.epoch === v.radioEpoch) return { downDbm: cached.down, upDbm: cached.up, rate: cached.rate };
  const pos = positionAt(c, t);
  const f = radioFrequency(r);
  const loss = geometricLossWithFields(v.world, ap.pos, v.apField[ap.index]!, pos, shadowField(v.world.shadowing, pos)) + frequencyTermDb(f);
  const downDbm = r.txPower - loss;
  const upDbm = c.txPowerDbm - loss; // same path, the station's own tx power
  const snr = Math.min(downDbm, upDbm) - radioNoiseDbm(ap, r);
  const rate = phyRate(snr, r.width, Math.min(c.nss, r.antennas), r.band);
  c.link = { t, epoch: v.radioEpoch, radio: r, down: downDbm, up: upDbm, rate };
  return { downDbm, upDbm, rate };
}

/** Move a station's traffic forward to t, crediting its AP's counters. */
export function advanceTraffic(v: Venue, c: SimClient, t: number): PhyRate | undefined {
  const ap = c.ap;
  const r = c.radio;
  if (!ap || !r) return undefined;
  const dt = t - c.lastTrafficAt;
  const link = stationLink(v, c, t);
  const rate = link.rate;
  if (dt <= 0) return rate;
  c.lastTrafficAt = t;
  // Load varies interval to interval: a log-normal factor with mean 1.
  const factor = Math.exp(0.6 * c.rng.normal() - 0.18);
  const bits = c.trafficKbps * factor * dt; // kbit/s x ms = bit
  const down = Math.round((bits * DOWN_SHARE) / 8);
  const up = Math.round((bits * (1 - DOWN_SHARE)) / 8);
  const downPk = Math.ceil(down / 1200);
  const upPk = Math.ceil(up / 400);
  const margin = Math.max(0, 30 - (Math.min(link.downDbm, -30) - radioNoiseDbm(ap, r)));
  const retries = Math.round(downPk * Math.min(0.3, 0.01 + margin / 200));
  c.c.txBytes += down; c.c.rxBytes += up; c.c.txPackets += downPk; c.c.rxPackets += upPk;
  c.c.retries += retries; c.c.failed += Math.floor(retries / 20);
  c.c.txDurUs += Math.round((down * 8 * 1000) / rate.bitrateKbps);
  c.c.rxDurUs += Math.round((up * 8 * 1000) / rate.bitrateKbps);
  addToCounters(r.counters[c.ssidIndex]!, up, down, upPk, downPk);
  addToCounters(ap.counters, up, down, upPk, downPk);
  return rate;
}

/** Recompute the share of airtime a radio's own stations use (at their current rates). */
export function ownAirtime(v: Venue, r: SimRadio, t: number): number {
  let a = 0;
  for (const c of r.stations) a += c.trafficKbps / (stationLink(v, c, t).rate.bitrateKbps * MAC_EFFICIENCY);
  return Math.min(0.9, a);
}

const strongest = new WeakMap<Venue, { epoch: number; dbm: number }>();
/** The highest tx power of any AP radio of the venue (dBm), per radio epoch. */
function strongestTx(v: Venue): number {
  const known = strongest.get(v);
  if (known && known.epoch === v.radioEpoch) return known.dbm;
  let dbm = -Infinity;
  for (const a of v.aps) for (const r of a.radios) if (r.txPower > dbm) dbm = r.txPower;
  strongest.set(v, { epoch: v.radioEpoch, dbm });
  return dbm;
}

/** Who this radio hears above CCA with which overlap; recomputed only when radios change. */
function heardBy(v: Venue, ap: SimAp, r: SimRadio): NonNullable<SimRadio['heard']> {
  if (r.heard && r.heard.epoch === v.radioEpoch) return r.heard;
  const fTerm = frequencyTermDb(radioFrequency(r));
  const aps: number[] = [];
  const radios: number[] = [];
  const weights: number[] = [];
  // Only APs whose loss can be small enough for the strongest transmitter to reach CCA, in venue
  // order (the spatial grid keeps a 50,000-AP venue from being a 50,000 x 50,000 walk).
  // One budget for all of the AP's radios (the lowest frequency term), so they share one walk.
  let minTerm = fTerm;
  for (const o of ap.radios) minTerm = Math.min(minTerm, frequencyTermDb(radioFrequency(o)));
  for (const j of v.losses.within(ap.index, strongestTx(v) - minTerm - CCA_DBM)) {
    if (j >= v.aps.length) break; // neighbours follow the APs
    const other = v.aps[j]!;
    for (const o of other.radios) {
      if (o.band !== r.band || !o.enabled) continue;
      const w = channelOverlap(o, r);
      if (w > 0 && o.txPower - v.losses.geometric(ap.index, other.index) - fTerm >= CCA_DBM) {
        aps.push(j);
        radios.push(o.index);
        weights.push(w);
      }
    }
  }
  let neighbourLoad = 0;
  for (const n of v.neighbours) {
    if (n.band !== r.band) continue;
    const w = channelOverlap(n, r);
    if (w > 0 && n.txPower - v.losses.geometric(ap.index, n.index) - fTerm >= CCA_DBM) neighbourLoad += w * n.load;
  }
  // Typed arrays: a 50,000-AP venue keeps ~100 entries per radio, 13 bytes each instead of ~70 as objects.
  r.heard = { epoch: v.radioEpoch, aps: Int32Array.from(aps), radios: Uint8Array.from(radios), w: Float64Array.from(weights), neighbourLoad };
  return r.heard;
}

/** Airtime of other transmitters this radio hears above CCA, weighted by channel overlap. */
export function foreignAirtime(v: Venue, ap: SimAp, r: SimRadio): number {
  const h = heardBy(v, ap, r);
  let a = h.neighbourLoad;
  for (let k = 0; k < h.aps.length; k++) {
    const other = v.aps[h.aps[k]!]!;
    if (other.up) a += h.w[k]! * other.radios[h.radios[k]!]!.airtime;
  }
  return a;
}

/** Move a radio's survey counters forward to t. Beacons alone keep ~1.5 % of the air busy. */
export function advanceSurvey(v: Venue, ap: SimAp, r: SimRadio, t: number): void {
  const dt = t - r.lastSurveyAt;
  if (dt <= 0) return;
  r.lastSurveyAt = t;
  r.airtime = ownAirtime(v, r, t);
  const foreign = foreignAirtime(v, ap, r);
  let tx = 0.01 + r.airtime * DOWN_SHARE;
  let rx = r.airtime * (1 - DOWN_SHARE) + foreign * 0.8;
  let busy = tx + rx + foreign * 0.2 + 0.005;
  if (busy > 0.95) {
    const k = 0.95 / busy;
    tx *= k; rx *= k; busy = 0.95;
  }
  r.survey.activeMs += dt;
  r.survey.busyMs += busy * dt;
  r.survey.rxMs += rx * dt;
  r.survey.txMs += tx * dt;
}
