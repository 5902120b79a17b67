/**
 * Station behaviour over time: sessions (arrive, stay, leave; exponential durations), walking
 * (random waypoint on the station's floor), association to the best BSS, roaming and losing
 * the link.
 *
 * Association: among the BSSs of the nearest APs, the station picks the highest score, where
 * score = downlink rssi + 10 dB for 5/6 GHz when that rssi >= -72 dBm (band preference, as
 * RRM's band steering moves 2G clients above -67 dBm to 5G, docs/upstream.md#rrms-radio-constants).
 * The AP's beacons must reach -82 dBm (MCS0 sensitivity at 20 MHz, docs/upstream.md#radio-physics) and
 * the AP must hear the station (its own, weaker, transmitter) at -87 dBm or more.
 * The link: below -87 dBm in either direction (5 dB under the association floor, the limit
 * real receivers decode) frames are lost: the station misses the beacons, the AP stops hearing
 * it and ages it out. The station then looks for another BSS and stays off the air while it
 * finds none. An AP never reports a station it cannot hear: a state drops those first.
 * Roaming: a station below -70 dBm (the iOS roam threshold RRM's power control assumes) moves when
 * another BSS scores 6 dB better.
 * When a station checks: a walking one every `roam` seconds; one that stands still when its AP
 * changes a radio (channel, width, power, off) and, while it has no BSS or a weak one
 * (below -70 dBm), every `roam` seconds.
 */
import { frequencyTermDb, geometricLossWithFields } from '../world/radio-world.js';
import { shadowField } from '../world/shadowing.js';
import { radioFrequency, type Venue } from '../venue.js';
import type { SimAp, SimRadio } from '../ap/ap-state.js';
import { advanceTraffic, stationLink } from '../ap/airtime.js';
import { positionAt, legDone, type SimClient } from './station.js';

const ASSOC_MIN_DBM = -82;
const ROAM_BELOW_DBM = -70;
const ROAM_HYSTERESIS_DB = 6;
/** Below this, in either direction, the link drops (5 dB under the association floor, at the limit of decoding). */
export const LINK_LOST_DBM = ASSOC_MIN_DBM - 5;
const CANDIDATE_APS = 6;
const RECENT_EVENTS = 200;

interface Candidate { ap: SimAp; radio: SimRadio; rssi: number; score: number }

function bestBss(v: Venue, c: SimClient, t: number): Candidate | undefined {
  const pos = positionAt(c, t);
  // The nearest few APs that are up, by one pass keeping a small sorted list (no full sort).
  // Squared distances clamped at 1 m² order the APs as distanceM does, without a square root each.
  const near: { a: SimAp; d: number }[] = [];
  const storey = v.world.geometry.floorHeightM;
  for (const a of v.aps) {
    if (!a.up) continue;
    const dz = (a.pos.floor - pos.floor) * storey;
    const d = Math.max(1, (a.pos.x - pos.x) ** 2 + (a.pos.y - pos.y) ** 2 + dz * dz);
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
      if (!r.enabled || r.ssids.length === 0 || (r.band !== '2G' && !c.dualBand)) continue;
      const loss = geo + frequencyTermDb(radioFrequency(r));
      const rssi = r.txPower - loss;
      if (rssi < ASSOC_MIN_DBM || c.txPowerDbm - loss < LINK_LOST_DBM) continue;
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

/** True when the station's link is lost in either direction at t. */
function unheard(v: Venue, c: SimClient, t: number): boolean {
  const link = stationLink(v, c, t);
  return link.downDbm < LINK_LOST_DBM || link.upDbm < LINK_LOST_DBM;
}

function newLeg(v: Venue, c: SimClient, t: number): void {
  const here = positionAt(c, t);
  const f = v.world.geometry.floors[here.floor]!;
  c.from = here;
  c.to = { floor: here.floor, x: c.rng.uniform(0, f.width), y: c.rng.uniform(0, f.depth) };
  c.legStart = t + c.rng.exp(60_000); // pause at the waypoint, then walk
}

/** What a present station does when it looks at its link: find a BSS, leave a lost one, roam off a weak one. */
function linkCheck(v: Venue, c: SimClient, t: number): void {
  if (!c.ap) { tryAssociate(v, c, t, true); return; }
  if (unheard(v, c, t)) {
    detach(v, c, t, 'link-lost');
    tryAssociate(v, c, t, true);
    return;
  }
  const now = stationLink(v, c, t).downDbm;
  if (now >= ROAM_BELOW_DBM) return;
  const cand = bestBss(v, c, t);
  if (!cand || cand.radio === c.radio) return;
  const curScore = now + (c.radio!.band !== '2G' && now >= -72 ? 10 : 0);
  if (cand.score >= curScore + ROAM_HYSTERESIS_DB) {
    detach(v, c, t, 'roam');
    attach(c, cand, t, true);
  }
}

/**
 * A station that stands still looks again every roam interval while it has no BSS or a weak
 * one (a walking one always does). One pending look at a time.
 */
function watch(v: Venue, c: SimClient): void {
  if (c.mobile || c.watching || !c.present) return;
  if (c.ap && stationLink(v, c, v.clock.now()).downDbm >= ROAM_BELOW_DBM) return;
  c.watching = true;
  v.clock.setTimeout(() => {
    c.watching = false;
    if (!c.present) return;
    linkCheck(v, c, v.clock.now());
    watch(v, c);
  }, v.roamIntervalMs);
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
      watch(v, c);
    }
    const toggle = (): void => {
      const t = v.clock.now();
      if (c.present) {
        c.present = false;
        detach(v, c, t, 'inactive');
      } else {
        c.present = true;
        tryAssociate(v, c, t, true);
        watch(v, c);
      }
      v.clock.setTimeout(toggle, Math.max(1000, Math.round(c.rng.exp(c.present ? c.sessionMs : c.awayMs))));
    };
    v.clock.setTimeout(toggle, Math.max(1000, Math.round(c.rng.exp(c.present ? c.sessionMs : c.awayMs))));
    if (c.mobile) {
      const walk = (): void => {
        const t = v.clock.now();
        if (legDone(c, t)) newLeg(v, c, t);
        if (c.present) linkCheck(v, c, t);
        v.clock.setTimeout(walk, v.roamIntervalMs);
      };
      v.clock.setTimeout(walk, Math.round(c.rng.uniform(0, v.roamIntervalMs)));
    }
  }
}

/** Stations that lost their BSS look for another at once (and keep looking while they find none). */
function relocate(v: Venue, stations: SimClient[], t: number): void {
  for (const c of stations) {
    if (!c.present) continue;
    tryAssociate(v, c, t, true);
    watch(v, c);
  }
}

/** An AP went down (reboot, crash): its stations lose it silently and look elsewhere. */
export function apDown(v: Venue, ap: SimAp): void {
  const t = v.clock.now();
  ap.up = false;
  const lost: SimClient[] = [];
  for (const r of ap.radios) {
    for (const c of [...r.stations]) {
      detach(v, c, t, 'ap-down', false);
      lost.push(c);
    }
  }
  relocate(v, lost, t);
}

/**
 * Radios of an AP changed (a configuration): the stations of a radio now off are told to leave
 * and look elsewhere; those of a radio that changed channel, width or power check their link.
 */
export function radiosReconfigured(v: Venue, ap: SimAp, radios: readonly SimRadio[]): void {
  const t = v.clock.now();
  const lost: SimClient[] = [];
  for (const r of radios) {
    for (const c of [...r.stations]) {
      if (r.enabled) {
        linkCheck(v, c, t);
        watch(v, c);
      } else {
        detach(v, c, t, 'radio-off');
        lost.push(c);
      }
    }
  }
  relocate(v, lost, t);
}

/**
 * Before an AP reports its stations: any it can no longer hear (or that can no longer hear it)
 * has lost its link since its last check; it leaves, and looks for another BSS.
 */
export function dropUnheardStations(v: Venue, ap: SimAp, t: number): void {
  let lost: SimClient[] | undefined;
  for (const r of ap.radios) {
    for (const c of r.stations) if (unheard(v, c, t)) (lost ??= []).push(c);
  }
  if (!lost) return;
  for (const c of lost) detach(v, c, t, 'link-lost');
  relocate(v, lost, t);
}
