/**
 * Station behaviour over time: sessions (arrive, stay, leave; exponential durations), walking
 * (random waypoint on the station's floor), association to the best BSS and roaming.
 *
 * Association: among the BSSs of the nearest APs, the station picks the highest score, where
 * score = downlink rssi + 10 dB for 5/6 GHz when that rssi >= -72 dBm (band preference, as
 * RRM's band steering moves 2G clients above -67 dBm to 5G, device-protocol-and-state.md §8.5),
 * and rssi must reach -82 dBm (MCS0 sensitivity at 20 MHz, field-anchors.md §4).
 * Roaming: a walking station re-evaluates every `roam` seconds and moves when its rssi is below
 * -70 dBm (the iOS roam threshold RRM's TPC assumes, §8.2) and another BSS scores 6 dB better.
 */
import { frequencyTermDb, geometricLossWithFields } from '../world/radio-world.js';
import { shadowField } from '../world/shadowing.js';
import { distanceM } from '../world/geometry.js';
import { radioFrequency, type Venue } from '../venue.js';
import type { SimAp, SimRadio } from '../ap/ap-state.js';
import { advanceTraffic, stationLink } from '../ap/airtime.js';
import { positionAt, legDone, type SimClient } from './station.js';

const ASSOC_MIN_DBM = -82;
const ROAM_BELOW_DBM = -70;
const ROAM_HYSTERESIS_DB = 6;
/** Below this the link drops (5 dB under the association floor, at the limit of decoding). */
const LINK_LOST_DBM = ASSOC_MIN_DBM - 5;
const CANDIDATE_APS = 6;
const RECENT_EVENTS = 200;

interface Candidate { ap: SimAp; radio: SimRadio; rssi: number; score: number }

function bestBss(v: Venue, c: SimClient, t: number): Candidate | undefined {
  const pos = positionAt(c, t);
  // The nearest few APs that are up, by one pass keeping a small sorted list (no full sort).
  const near: { a: SimAp; d: number }[] = [];
  for (const a of v.aps) {
    if (!a.up) continue;
    const d = distanceM(v.world.geometry, a.pos, pos);
    if (near.length === CANDIDATE_APS && d >= near[CANDIDATE_APS - 1]!.d) continue;
    let i = near.length;
    while (i > 0 && near[i - 1]!.d > d) i--;
    near.splice(i, 0, { a, d });
    if (near.length > CANDIDATE_APS) near.pop();
  }
  const field = shadowField(v.world.shadowing, pos);
  let best: Candidate | undefined;
  for (const { a } of near) {
    const geo = geometricLossWithFields(v.world, a.pos, v.apField[a.index]!, pos, field);
    for (const r of a.radios) {
      if (r.ssids.length === 0 || (r.band !== '2G' && !c.dualBand)) continue;
      const rssi = r.txPower - geo - frequencyTermDb(radioFrequency(r));
      if (rssi < ASSOC_MIN_DBM) continue;
      const score = rssi + (r.band !== '2G' && rssi >= -72 ? 10 : 0);
      if (!best || score > best.score) best = { ap: a, radio: r, rssi, score };
    }
  }
  return best;
}

function note(ap: SimAp, t: number, type: 'client.join' | 'client.leave', payload: Record<string, unknown>): void {
  ap.recentEvents.push({ at: t, type, payload });
  if (ap.recentEvents.length > RECENT_EVENTS) ap.recentEvents.shift();
  ap.onClientEvent?.(type, payload);
}

function attach(c: SimClient, cand: Candidate, t: number, announce: boolean): void {
  const r = cand.radio;
  r.stations.push(c);
  c.ap = cand.ap;
  c.radio = r;
  c.ssidIndex = c.id % r.ssids.length;
  c.assocAt = t;
  c.lastTrafficAt = t;
  c.c = { rxBytes: 0, txBytes: 0, rxPackets: 0, txPackets: 0, retries: 0, failed: 0, rxDurUs: 0, txDurUs: 0 };
  if (announce) {
    note(cand.ap, t, 'client.join', { client: c.mac, ssid: r.ssids[c.ssidIndex], bssid: r.bssids[c.ssidIndex], band: r.band, channel: r.channel, rssi: Math.round(cand.rssi) });
  }
}

/** Take a station off its BSS (traffic settled first). `announce` false when the AP itself went down. */
export function detach(v: Venue, c: SimClient, t: number, reason: string, announce = true): void {
  const ap = c.ap;
  const r = c.radio;
  if (!ap || !r) return;
  advanceTraffic(v, c, t);
  const rssi = Math.round(stationLink(v, c, t).upDbm);
  r.stations.splice(r.stations.indexOf(c), 1);
  c.ap = undefined;
  c.radio = undefined;
  if (announce) {
    note(ap, t, 'client.leave', { client: c.mac, ssid: r.ssids[c.ssidIndex], bssid: r.bssids[c.ssidIndex], band: r.band, reason, rssi, connected_time: Math.round((t - c.assocAt) / 1000), rx_bytes: c.c.rxBytes, tx_bytes: c.c.txBytes });
  }
}

function tryAssociate(v: Venue, c: SimClient, t: number, announce: boolean): void {
  const cand = bestBss(v, c, t);
  if (cand) attach(c, cand, t, announce);
}

function newLeg(v: Venue, c: SimClient, t: number): void {
  const here = positionAt(c, t);
  const f = v.world.geometry.floors[here.floor]!;
  c.from = here;
  c.to = { floor: here.floor, x: c.rng.uniform(0, f.width), y: c.rng.uniform(0, f.depth) };
  c.legStart = t + c.rng.exp(60_000); // pause at the waypoint, then walk
}

function roamCheck(v: Venue, c: SimClient, t: number): void {
  if (legDone(c, t)) newLeg(v, c, t);
  if (!c.present) return;
  if (!c.ap) { tryAssociate(v, c, t, true); return; }
  const now = stationLink(v, c, t).downDbm;
  if (now >= ROAM_BELOW_DBM) return;
  if (now < LINK_LOST_DBM) {
    // Walked out of range: the AP ages the station out, the station looks for another BSS.
    detach(v, c, t, 'link-lost');
    tryAssociate(v, c, t, true);
    return;
  }
  const cand = bestBss(v, c, t);
  if (!cand || cand.radio === c.radio) return;
  const curScore = now + (c.radio!.band !== '2G' && now >= -72 ? 10 : 0);
  if (cand.score >= curScore + ROAM_HYSTERESIS_DB) {
    detach(v, c, t, 'roam');
    attach(c, cand, t, true);
  }
}

/**
 * Put every station in its initial place (present ones already associated, without events:
 * they joined before the run began) and schedule sessions and walks on the venue clock.
 */
export function startClients(v: Venue): void {
  const t0 = v.clock.now();
  for (const c of v.clients) {
    c.present = c.rng.chance(c.sessionMs / (c.sessionMs + c.awayMs));
    if (c.present) {
      tryAssociate(v, c, t0, false);
      if (c.ap) {
        // Joined before the run began: its counters start from the association, as a real one's do.
        c.assocAt = Math.max(c.ap.bootAt, t0 - Math.round(c.rng.uniform(0, c.sessionMs)));
        c.lastTrafficAt = c.assocAt;
      }
    }
    const toggle = (): void => {
      const t = v.clock.now();
      if (c.present) {
        c.present = false;
        detach(v, c, t, 'inactive');
      } else {
        c.present = true;
        tryAssociate(v, c, t, true);
      }
      v.clock.setTimeout(toggle, Math.max(1000, Math.round(c.rng.exp(c.present ? c.sessionMs : c.awayMs))));
    };
    v.clock.setTimeout(toggle, Math.max(1000, Math.round(c.rng.exp(c.present ? c.sessionMs : c.awayMs))));
    if (c.mobile) {
      const walk = (): void => {
        roamCheck(v, c, v.clock.now());
        v.clock.setTimeout(walk, v.roamIntervalMs);
      };
      v.clock.setTimeout(walk, Math.round(c.rng.uniform(0, v.roamIntervalMs)));
    }
  }
}

/** An AP went down (reboot, crash): its stations lose it silently and look elsewhere. */
export function apDown(v: Venue, ap: SimAp): void {
  const t = v.clock.now();
  ap.up = false;
  for (const r of ap.radios) {
    for (const c of [...r.stations]) {
      detach(v, c, t, 'ap-down', false);
      if (c.present) tryAssociate(v, c, t, true);
    }
  }
}
