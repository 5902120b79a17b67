/**
 * The live state of one simulated AP and its radios: what its frames report. Mutable on purpose
 * (one object per AP, changed only inside clock callbacks, in clock order).
 */
import type { Capabilities } from '../../src/protocol/capabilities.js';
import type { GpsPosition } from '../../src/protocol/geo.js';
import type { Band, ChannelWidth } from '../../src/protocol/wifi-channels.js';
import type { Rng } from '../rng.js';
import type { Position } from '../world/geometry.js';
import type { SimClient } from '../clients/station.js';

/** Interface / SSID counters (state `counters`), cumulative since boot. */
export interface Counters {
  rx_bytes: number; rx_packets: number; tx_bytes: number; tx_packets: number;
  rx_errors: number; rx_dropped: number; tx_errors: number; tx_dropped: number;
  multicast: number; collisions: number;
}

export function zeroCounters(): Counters {
  return { rx_bytes: 0, rx_packets: 0, tx_bytes: 0, tx_packets: 0, rx_errors: 0, rx_dropped: 0, tx_errors: 0, tx_dropped: 0, multicast: 0, collisions: 0 };
}

/** Cumulative nl80211 survey counters of the radio's channel, ms (floats; reported floored). */
export interface Survey { activeMs: number; busyMs: number; rxMs: number; txMs: number }

export interface SimRadio {
  index: number;
  band: Band;
  phy: string;
  hwChannels: readonly number[];
  maxWidth: ChannelWidth;
  antennas: number;
  /**
   * The radio runs (beacons, serves stations, is heard and counted): the AP's configuration names
   * it. A radio a configuration leaves out is off, as on a real AP.
   */
  enabled: boolean;
  channel: number;
  width: ChannelWidth;
  txPower: number;
  /** One BSS per SSID carried on this band: bssids[i] serves ssids[i]. */
  ssids: string[];
  bssids: string[];
  counters: Counters[];
  survey: Survey;
  lastSurveyAt: number;
  /** Survey at the previous state, for chanUtil = 100 * dbusy / dactive. */
  prevSurvey: Survey;
  /** Share of airtime this radio's own BSSs keep busy (from its stations' traffic and rates). */
  airtime: number;
  stations: SimClient[];
  /**
   * Transmitters this radio hears above CCA on overlapping channels, valid for one radio epoch:
   * entry k is radio `radios[k]` of AP `aps[k]` (venue index) with channel overlap `w[k]`.
   */
  heard?: { epoch: number; aps: Int32Array; radios: Uint8Array; w: Float64Array; neighbourLoad: number };
}

/** Report intervals, ms (0 = none). */
export interface Intervals { state: number; healthcheck: number; log: number; wifiscan: number }

/** Periodic scans: HT/VHT operation, TSF, capability (`verbose`) and the `ies[]` list. */
export interface ScanReport { verbose: boolean; ies: boolean }

/** What a configuration sets on a radio (and `factory` restores). */
export interface RadioSettings { enabled: boolean; channel: number; width: ChannelWidth; txPower: number }

export interface SimAp {
  serial: string;
  index: number;
  model: string;
  country: string;
  capabilities: Capabilities;
  firmware: string;
  uuid: number;
  pos: Position;
  /** `pos` as the AP reports it in its state (`gps`: the venue's origin plus the floor plan). */
  gps: GpsPosition;
  radios: SimRadio[];
  rng: Rng;
  up: boolean;
  bootAt: number;
  intervals: Intervals;
  /** What unsolicited scans carry (`metrics.wifi-scan.verbose` / `information-elements`). */
  scanReport: ScanReport;
  counters: Counters;
  prevCounters: Counters;
  prevSsidCounters: Map<string, Counters>;
  memoryTotal: number;
  /** Events kept for the `event` (eventqueue) command, newest last, bounded. */
  recentEvents: { at: number; type: string; payload: Record<string, unknown> }[];
  /** Radio settings and intervals out of the box, restored by `factory`. */
  factory: { radios: RadioSettings[]; intervals: Intervals; scanReport: ScanReport; uuid: number };
  /** Set by the AP's link: how the venue tells it about a client event. */
  onClientEvent?: (type: 'client.join' | 'client.leave', payload: Record<string, unknown>) => void;
}

/**
 * BSSID of SSID `ssidIndex` on radio `radioIndex`: the serial (the AP's base MAC) with the first
 * octet replaced by a locally administered value that encodes (radio, ssid), as multi-BSS
 * drivers derive extra addresses. Stable across reboots and runs.
 */
export function bssidFor(serial: string, radioIndex: number, ssidIndex: number): string {
  const k = (radioIndex * 8 + ssidIndex) & 0x3f;
  const first = ((k << 2) | 0x02).toString(16).padStart(2, '0');
  return [first, ...serial.slice(2).match(/../g)!].join(':');
}

/** Copy a counter set (for delta computation). */
export function copyCounters(c: Counters): Counters {
  return { ...c };
}

function d(a: number, b: number): number {
  return a > b ? a - b : 0;
}

/** c - prev, clamped at 0 (the firmware clamps negative deltas, docs/upstream.md#the-state-document). Fields in zeroCounters' order. */
export function deltaCounters(c: Counters, prev: Counters): Counters {
  return {
    rx_bytes: d(c.rx_bytes, prev.rx_bytes), rx_packets: d(c.rx_packets, prev.rx_packets),
    tx_bytes: d(c.tx_bytes, prev.tx_bytes), tx_packets: d(c.tx_packets, prev.tx_packets),
    rx_errors: d(c.rx_errors, prev.rx_errors), rx_dropped: d(c.rx_dropped, prev.rx_dropped),
    tx_errors: d(c.tx_errors, prev.tx_errors), tx_dropped: d(c.tx_dropped, prev.tx_dropped),
    multicast: d(c.multicast, prev.multicast), collisions: d(c.collisions, prev.collisions),
  };
}

export function addToCounters(c: Counters, rxBytes: number, txBytes: number, rxPackets: number, txPackets: number): void {
  c.rx_bytes += rxBytes; c.tx_bytes += txBytes; c.rx_packets += rxPackets; c.tx_packets += txPackets;
}
