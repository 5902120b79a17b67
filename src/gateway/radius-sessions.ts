import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { isObject, type JsonObject } from '../protocol/frame.js';

/** One accounting session of a station on an AP (upstream's RADIUSSession). */
export const RadiusSession = Type.Object({
  started: Type.Integer({ description: 'Epoch seconds the station associated.' }),
  lastTransaction: Type.Integer({ description: 'Epoch seconds of its last traffic.' }),
  destination: Type.String(),
  serialNumber: Type.String(),
  userName: Type.String(),
  accountingSessionId: Type.String(),
  accountingMultiSessionId: Type.String(),
  inputPackets: Type.Integer(),
  outputPackets: Type.Integer(),
  inputOctets: Type.Integer(),
  outputOctets: Type.Integer(),
  inputGigaWords: Type.Integer(),
  outputGigaWords: Type.Integer(),
  sessionTime: Type.Integer({ description: 'Seconds since the station associated.' }),
  callingStationId: Type.String({ description: 'Station MAC, AA-BB-CC-DD-EE-FF.' }),
  chargeableUserIdentity: Type.String(),
  interface: Type.String(),
  secret: Type.String(),
  nasId: Type.String(),
  calledStationId: Type.String({ description: 'BSSID:SSID the station is on.' }),
}, { title: 'RADIUSSession' });
export type RadiusSession = Static<typeof RadiusSession>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.floor(v)) : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const GIGA = 2 ** 32;

/** `aa:bb:cc:dd:ee:ff` -> `AA-BB-CC-DD-EE-FF`, as RADIUS Calling-Station-Id carries it. */
export function stationId(mac: string): string {
  return mac.toUpperCase().replace(/[:.]/g, '-');
}

/**
 * The accounting sessions an AP has open, read from the associations of its last state: each
 * associated station is one session, as an AP doing RADIUS accounting for it reports (octets and
 * packets from the AP's side: input is what the station sent). Ids are stable for a station's
 * association (derived from serial, station and association time).
 */
export function sessionsOf(serial: string, state: JsonObject | undefined, nowS: number): RadiusSession[] {
  const sessions: RadiusSession[] = [];
  const interfaces = Array.isArray(state?.interfaces) ? state.interfaces : [];
  for (const itf of interfaces) {
    if (!isObject(itf) || !Array.isArray(itf.ssids)) continue;
    for (const ssid of itf.ssids) {
      if (!isObject(ssid) || !Array.isArray(ssid.associations)) continue;
      for (const a of ssid.associations) {
        if (!isObject(a) || typeof a.station !== 'string') continue;
        const connected = num(a.connected);
        const started = nowS - connected;
        const id = createHash('sha256').update(`${serial}/${a.station}/${started}`).digest('hex').slice(0, 16).toUpperCase();
        const input = num(a.rx_bytes);
        const output = num(a.tx_bytes);
        sessions.push({
          started, lastTransaction: nowS - num(a.inactive), destination: '', serialNumber: serial, userName: stationId(a.station),
          accountingSessionId: id, accountingMultiSessionId: id, inputPackets: num(a.rx_packets), outputPackets: num(a.tx_packets),
          inputOctets: input % GIGA, outputOctets: output % GIGA, inputGigaWords: Math.floor(input / GIGA), outputGigaWords: Math.floor(output / GIGA),
          sessionTime: connected, callingStationId: stationId(a.station), chargeableUserIdentity: '', interface: str(itf.name), secret: '',
          nasId: serial, calledStationId: `${stationId(str(a.bssid) || str(ssid.bssid))}:${str(ssid.ssid)}`,
        });
      }
    }
  }
  return sessions;
}

/** Whether `sessionsOf` would find a session (without building them). */
export function hasSessions(state: JsonObject | undefined): boolean {
  const interfaces = Array.isArray(state?.interfaces) ? state.interfaces : [];
  return interfaces.some((itf) => isObject(itf) && Array.isArray(itf.ssids)
    && itf.ssids.some((s) => isObject(s) && Array.isArray(s.associations) && s.associations.some((a) => isObject(a) && typeof a.station === 'string')));
}
