/**
 * The notifications an AP sends (docs/upstream.md#what-each-notification-does, #the-state-document, #events-and-telemetry), shaped like the
 * real captures (fixtures/real-ap/states/state-2-9.json: current fw 2.9 on an EAP101).
 * Builders read the venue at the current clock time and settle traffic and airtime first,
 * so the counters in a frame are exactly those of that moment.
 */
import type { NotificationFrame, ResultFrame } from '../../src/protocol/frame.js';
import { stateChannelLists } from '../../src/protocol/wifi-channels.js';
import { rateObject } from '../clients/mcs.js';
import { radioFrequency, type Venue } from '../venue.js';
import { advanceSurvey, advanceTraffic, radioNoiseDbm, stationLink } from './airtime.js';
import { copyCounters, deltaCounters, zeroCounters, type Counters, type SimAp } from './ap-state.js';
import { scanEntries, type ScanSelector } from './scan.js';
import { dropUnheardStations } from '../clients/dynamics.js';

const note = (method: NotificationFrame['method'], params: Record<string, unknown>): NotificationFrame => ({ jsonrpc: '2.0', method, params });
const sec = (ms: number): number => Math.floor(ms / 1000);

export function connectFrame(ap: SimAp): NotificationFrame {
  const octets = ap.serial.match(/../g)!;
  return note('connect', {
    serial: ap.serial, uuid: ap.uuid, firmware: ap.firmware, capabilities: ap.capabilities,
    wanip: [`10.${parseInt(octets[3]!, 16)}.${parseInt(octets[4]!, 16)}.${parseInt(octets[5]!, 16) || 1}:${40000 + (ap.index % 20000)}`],
  });
}

/** The state document itself (what `state` and `telemetry` carry). Advances counters to now. */
export function stateDocument(v: Venue, ap: SimAp): Record<string, unknown> {
  const t = v.clock.now();
  const uptimeMs = t - ap.bootAt;
  const radios: Record<string, unknown>[] = [];
  const ssids: Record<string, unknown>[] = [];
  const clients: Record<string, unknown>[] = [];
  let stations = 0;
  dropUnheardStations(v, ap, t);
  // A radio the configuration leaves out is off: not in the state, as on a real AP.
  ap.radios.filter((r) => r.enabled).forEach((r, ri) => {
    const assocs: Record<string, unknown>[][] = r.ssids.map(() => []);
    for (const c of r.stations) {
      const rate = advanceTraffic(v, c, t)!;
      const link = stationLink(v, c, t);
      const rssi = Math.round(link.upDbm);
      const ack = rssi + (c.rng.next() < 0.5 ? 0 : -1);
      assocs[c.ssidIndex]!.push({
        ack_signal: ack, ack_signal_avg: ack, bssid: r.bssids[c.ssidIndex], connected: sec(t - c.assocAt), inactive: c.rng.int(0, 10),
        ipaddr_v4: c.ipv4, rssi, rx_bytes: c.c.rxBytes, rx_duration: c.c.rxDurUs, rx_packets: c.c.rxPackets,
        rx_rate: rateObject({ ...rate, nss: 1, bitrateKbps: Math.round(rate.bitrateKbps / rate.nss / 100) * 100 }),
        station: c.mac, tx_bytes: c.c.txBytes, tx_duration: c.c.txDurUs, tx_failed: c.c.failed, tx_packets: c.c.txPackets,
        tx_rate: rateObject(rate), tx_retries: c.c.retries,
      });
      clients.push({ ipv4_addresses: [c.ipv4], last_seen: 0, mac: c.mac, ports: [`wlan${ri}`] });
      stations++;
    }
    advanceSurvey(v, ap, r, t);
    const lists = stateChannelLists(r.band, r.channel, r.width)!;
    const dActive = r.survey.activeMs - r.prevSurvey.activeMs;
    const chanUtil = dActive > 0 ? Math.round((100 * (r.survey.busyMs - r.prevSurvey.busyMs)) / dActive) : 0;
    r.prevSurvey = { ...r.survey };
    radios.push({
      band: [r.band], chanUtil, channel: r.channel, channel_width: r.width, channels: lists.channels, frequency: lists.frequency,
      phy: r.phy,
      survey: [{
        busy: Math.floor(r.survey.busyMs), frequency: radioFrequency(r), noise: radioNoiseDbm(ap, r),
        time: Math.floor(r.survey.activeMs), time_rx: Math.floor(r.survey.rxMs), time_tx: Math.floor(r.survey.txMs),
      }],
      temperature: 50 + Math.round(8 * r.airtime) + (ap.index % 3), tx_power: r.txPower,
    });
    r.ssids.forEach((name, si) => {
      const key = r.bssids[si]!;
      const cur = r.counters[si]!;
      const prev = ap.prevSsidCounters.get(key) ?? cur;
      ssids.push({
        associations: assocs[si], band: r.band, bssid: key, counters: { ...cur }, delta_counters: deltaCounters(cur, prev),
        frequency: lists.frequency, iface: si === 0 ? `wlan${ri}` : `wlan${ri}-${si}`,
        location: `/interfaces/0/ssids/${ssids.length}`, mode: 'ap', phy: r.phy, radio: { $ref: `#/radios/${ri}` }, ssid: name,
      });
      ap.prevSsidCounters.set(key, copyCounters(cur));
    });
  });
  const counters = uplinkCounters(ap, t);
  const delta = deltaCounters(counters, ap.prevCounters);
  ap.prevCounters = counters;
  const load1 = 0.05 + 0.01 * stations;
  return {
    interfaces: [{ clients, counters, delta_counters: delta, location: '/interfaces/0', name: 'up0v0', ssids, uptime: sec(uptimeMs) - 60 }],
    'link-state': {
      downstream: Object.fromEntries((ap.capabilities.network?.lan ?? []).map((port) => [port, { carrier: 0, counters: zeroCounters() }])),
      upstream: { eth0: { carrier: 1, counters, duplex: 'full', speed: 1000 } },
    },
    // The access switch the AP is cabled to, as LLDP shows it (one per floor in this model).
    'lldp-peers': {
      downstream: {},
      upstream: { eth0: [{ capability: ['Bridge'], description: 'airtwin access switch', mac: `02:00:5e:00:00:${(10 + ap.pos.floor).toString(16).padStart(2, '0')}`, name: `sw-floor-${ap.pos.floor}`, port_descr: `Port ${ap.index + 1}`, port_id: `Port ${ap.index + 1}` }] },
    },
    radios,
    gps: ap.gps,
    unit: {
      load: [load1, load1 * 0.8, load1 * 0.6].map((x) => Math.round(x * 1e6) / 1e6),
      localtime: sec(t),
      memory: { buffered: 9498624, cached: 28708864, free: ap.memoryTotal - 180_000_000 - stations * 400_000, total: ap.memoryTotal },
      temperature: [55, 56],
      uptime: sec(uptimeMs),
    },
    version: 1,
  };
}

/**
 * The uplink interface counters: the stations' traffic plus background management traffic since
 * boot (~2 kB/s each way in 800-byte packets, a third of it multicast).
 */
export function uplinkCounters(ap: SimAp, t: number): Counters {
  const bg = Math.round((t - ap.bootAt) * 2);
  const c = ap.counters;
  return {
    ...c, rx_bytes: c.rx_bytes + bg, tx_bytes: c.tx_bytes + bg,
    rx_packets: c.rx_packets + Math.floor(bg / 800), tx_packets: c.tx_packets + Math.floor(bg / 800), multicast: Math.floor(bg / 2400),
  };
}

export function stateFrame(v: Venue, ap: SimAp, requestUuid?: string): NotificationFrame {
  const params: Record<string, unknown> = { serial: ap.serial, uuid: ap.uuid, state: stateDocument(v, ap) };
  if (requestUuid !== undefined) params.request_uuid = requestUuid;
  return note('state', params);
}

/**
 * Healthcheck, as the firmware builds it: sanity = 100 - failed checks x 100 / checks; data lists failures only.
 * Checks: memory, DHCP, DNS, radios. A DNS or DHCP hiccup happens on 1 % of checks.
 */
export function healthcheckFrame(ap: SimAp, requestUuid?: string): NotificationFrame {
  const data: Record<string, unknown> = {};
  let failed = 0;
  if (ap.rng.chance(0.01)) {
    failed++;
    data.interfaces = { up0v0: { dns: false, location: '/interfaces/0', warning: ['DNS lookup of the gateway failed'] } };
  }
  const busy = ap.radios.filter((r) => r.airtime > 0.85);
  if (busy.length > 0) {
    failed++;
    data.rrm_chanutil = Object.fromEntries(busy.map((r) => [r.phy, Math.round(r.airtime * 100)]));
  }
  const params: Record<string, unknown> = { serial: ap.serial, uuid: ap.uuid, sanity: Math.round(100 - (failed * 100) / 4), data };
  if (requestUuid !== undefined) params.request_uuid = requestUuid;
  return note('healthcheck', params);
}

export function logFrame(ap: SimAp, log: string, severity: number, data?: Record<string, unknown>): NotificationFrame {
  return note('log', data ? { serial: ap.serial, log, severity, data } : { serial: ap.serial, log, severity });
}

export function crashlogFrame(ap: SimAp, t: number): NotificationFrame {
  const s = (t - ap.bootAt) / 1000;
  return note('crashlog', {
    serial: ap.serial, uuid: ap.uuid,
    loglines: [
      `[${s.toFixed(6)}] Unable to handle kernel paging request at virtual address 0000000000000010`,
      `[${s.toFixed(6)}] pc : ath11k_dp_rx_process_mon_status+0x5c/0x1a8 [ath11k]`,
      `[${s.toFixed(6)}] Kernel panic - not syncing: Fatal exception in interrupt`,
    ],
  });
}

export function eventFrame(ap: SimAp, t: number, type: string, payload: Record<string, unknown>): NotificationFrame {
  return note('event', { serial: ap.serial, data: { event: [sec(t), { type, payload }] } });
}

/** Telemetry sample (docs/upstream.md#events-and-telemetry): the `state` flavour, delivered as {event:'state', payload}. */
export function telemetryFrame(v: Venue, ap: SimAp): NotificationFrame {
  return note('telemetry', { serial: ap.serial, data: { event: 'state', payload: { serial: ap.serial, uuid: ap.uuid, state: stateDocument(v, ap) } } });
}

/**
 * Unsolicited periodic scan (`metrics.wifi-scan`): entries under `data`, not `status.scan`,
 * verbose or not and with or without `ies[]` as the configuration says (docs/upstream.md#wifi-scan-results).
 */
export function periodicScanFrame(v: Venue, ap: SimAp): NotificationFrame {
  return note('wifiscan', { serial: ap.serial, data: scanEntries(v, ap, {}, ap.scanReport.verbose, ap.scanReport.ies) });
}

/** A command's result as the AP's firmware sends it: `serial`, `uuid` (the configuration it runs) and `status`. */
export function resultFrame(ap: SimAp, id: number, status: Record<string, unknown> & { error: number }, extra: Record<string, unknown> = {}): ResultFrame {
  return { jsonrpc: '2.0', id, result: { serial: ap.serial, uuid: ap.uuid, status: { text: status.error === 0 ? 'Success' : 'Failed', ...status }, ...extra } };
}

export function wifiscanResult(v: Venue, ap: SimAp, id: number, sel: ScanSelector, verbose: boolean): ResultFrame {
  return resultFrame(ap, id, { error: 0, text: 'Success', resultCode: 1, scan: scanEntries(v, ap, sel, verbose) });
}
