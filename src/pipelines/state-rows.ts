import { isObject, type JsonObject } from '../protocol/frame.js';
import type { Cell, Row } from './tables.js';

/**
 * Extracted columns of a `state` document (docs/upstream.md#the-state-document): one
 * `state_radios` row per radio and one `state_associations` row per station. Tolerant by
 * design: firmware differs (old fw has `active_ms`/`noise` and a string `channel_width`, some
 * report unsigned noise), so an odd part is skipped and named in `odd`, never thrown; the full
 * document is kept in `statistics.data` anyway.
 */

/** BIGINT-safe finite number, else null (a value DuckDB could not cast would fail the batch). */
export function fin(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 9e18 ? v : null;
}

/**
 * A finite number an INTEGER column can hold after DuckDB rounds it, else null: a channel of 5e9
 * from a broken AP would otherwise fail its whole batch (retried, then written row by row).
 */
export function int32(v: unknown): number | null {
  const n = fin(v);
  return n !== null && Math.abs(Math.round(n)) < 2 ** 31 ? n : null;
}

/** A string, else null (a column of text gets no numbers or objects). */
export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** `noise: 4294967193` is -103 read as unsigned (some firmware sends it so); fold it back. */
function dbm(v: unknown): number | null {
  const n = fin(v);
  return n !== null && n > 2 ** 31 ? n - 2 ** 32 : n;
}

/** Current fw sends 20/40/80/160/320; old fw "20", "80p80" (two 80 MHz segments, 160 MHz of spectrum). */
function width(v: unknown): number | null {
  if (typeof v === 'number') return int32(v);
  if (typeof v !== 'string') return null;
  if (v === '80p80') return 160;
  return int32(Number(v));
}

function bandOf(radio: JsonObject, primaryMhz: number | null): string | null {
  const b = Array.isArray(radio.band) ? radio.band[0] : radio.band;
  if (typeof b === 'string') return b.toUpperCase();
  if (primaryMhz !== null) return primaryMhz < 3000 ? '2G' : primaryMhz > 5925 ? '6G' : '5G';
  const ch = fin(radio.channel);
  // As the gateway counts associations (docs/upstream.md#what-each-notification-does): with no band, channel 1..16 is 2G and anything else 5G.
  return ch === null ? null : ch >= 1 && ch <= 16 ? '2G' : '5G';
}

class Odd {
  parts: string[] = [];
  add(what: string): void {
    if (this.parts.length < 5) this.parts.push(what);
  }
  get text(): string | undefined {
    return this.parts.length > 0 ? this.parts.join('; ') : undefined;
  }
}

function list(v: unknown, where: string, odd: Odd): unknown[] {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v;
  odd.add(`${where} is not an array`);
  return [];
}

function radioRow(serial: string, recorded: number, uuid: number, index: number, r: JsonObject): Cell[] {
  const freqs = Array.isArray(r.frequency) ? r.frequency : [];
  const primary = int32(freqs[0]);
  const survey = (Array.isArray(r.survey) ? r.survey : []).filter(isObject);
  // The survey entry of the primary frequency (cumulative nl80211 counters), else the first.
  const s = survey.find((e) => e.frequency === primary) ?? survey[0];
  return [
    serial, recorded, uuid, index, str(r.phy), bandOf(r, primary), int32(r.channel), width(r.channel_width), primary,
    fin(r.tx_power), dbm(s ? s.noise : r.noise), fin(r.chanUtil),
    fin(s ? s.time : r.active_ms), fin(s ? s.busy : r.busy_ms), fin(s ? s.time_rx : r.receive_ms), fin(s ? s.time_tx : r.transmit_ms),
    fin(r.temperature),
  ];
}

function radioIndexOf(ssid: JsonObject): number | null {
  const ref = isObject(ssid.radio) ? ssid.radio.$ref : undefined;
  const m = typeof ref === 'string' ? /\/(\d+)$/.exec(ref) : null;
  return m ? int32(Number(m[1])) : null;
}

const bitrate = (rate: unknown): number | null => (isObject(rate) ? fin(rate.bitrate) : null);

/** Radio and association rows of one state document; `odd` names what was skipped. */
export function stateRows(serial: string, recorded: number, uuid: number, state: JsonObject): { rows: Row[]; odd?: string } {
  const odd = new Odd();
  const rows: Row[] = [];
  const radios = list(state.radios, 'radios', odd);
  const radioBands: (string | null)[] = [];
  radios.forEach((r, i) => {
    if (!isObject(r)) {
      odd.add(`radios[${i}] is not an object`);
      radioBands.push(null);
      return;
    }
    const values = radioRow(serial, recorded, uuid, i, r);
    radioBands.push(values[5] as string | null);
    rows.push({ table: 'state_radios', values });
  });
  list(state.interfaces, 'interfaces', odd).forEach((itf, i) => {
    if (!isObject(itf)) return odd.add(`interfaces[${i}] is not an object`);
    list(itf.ssids, `interfaces[${i}].ssids`, odd).forEach((ssid, j) => {
      if (!isObject(ssid)) return odd.add(`interfaces[${i}].ssids[${j}] is not an object`);
      const radio = radioIndexOf(ssid);
      const band = str(ssid.band)?.toUpperCase() ?? (radio !== null ? radioBands[radio] ?? null : null);
      list(ssid.associations, `interfaces[${i}].ssids[${j}].associations`, odd).forEach((a, k) => {
        if (!isObject(a) || typeof a.station !== 'string') return odd.add(`interfaces[${i}].ssids[${j}].associations[${k}] has no station`);
        rows.push({
          table: 'state_associations',
          values: [
            serial, recorded, radio, band, str(a.bssid) ?? str(ssid.bssid), str(ssid.ssid), a.station, dbm(a.rssi), dbm(a.ack_signal),
            bitrate(a.rx_rate), bitrate(a.tx_rate), fin(a.rx_bytes), fin(a.tx_bytes), fin(a.rx_packets), fin(a.tx_packets),
            fin(a.tx_retries), fin(a.tx_failed), fin(a.connected), fin(a.inactive),
          ],
        });
      });
    });
  });
  return { rows, odd: odd.text };
}
