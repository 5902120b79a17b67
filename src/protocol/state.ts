/**
 * The `state` document (docs/upstream.md#the-state-document, current firmware) and the `state`
 * notification params around it. Loose enough for the real captures (old-fw radios with
 * `active_ms`/`noise` and a string `channel_width` still parse; unknown keys pass), strict on
 * what the gateway and RRM read: radio phy/channel/width/tx power, SSID bssid and band,
 * association station/rssi/rates and the counters.
 */
import { Type, type Static } from 'typebox';
import { MAC_PATTERN, parserFor } from './schema-parse.js';

const Num = Type.Number();
const Count = Type.Number({ minimum: 0 });
const Mac = Type.String({ pattern: MAC_PATTERN });

export const Counters = Type.Object({
  rx_bytes: Count, rx_packets: Count, tx_bytes: Count, tx_packets: Count,
  rx_errors: Type.Optional(Count), rx_dropped: Type.Optional(Count),
  tx_errors: Type.Optional(Count), tx_dropped: Type.Optional(Count),
  multicast: Type.Optional(Count), collisions: Type.Optional(Count),
  tx_retries: Type.Optional(Count), tx_failed: Type.Optional(Count),
});
export type Counters = Static<typeof Counters>;

export const SurveyEntry = Type.Object({
  frequency: Type.Integer(), noise: Num, time: Count, busy: Count,
  time_rx: Type.Optional(Count), time_tx: Type.Optional(Count),
});
export type SurveyEntry = Static<typeof SurveyEntry>;

export const StateRadio = Type.Object({
  phy: Type.String({ minLength: 1 }),
  channel: Type.Integer({ minimum: 0, maximum: 233 }),
  /** Current fw: a number (20, 40, 80, 160, 320); old fw: "20", "80p80", ... */
  channel_width: Type.Union([Type.Number(), Type.String()]),
  tx_power: Num,
  band: Type.Optional(Type.Array(Type.String())),
  channels: Type.Optional(Type.Array(Type.Integer())),
  frequency: Type.Optional(Type.Array(Type.Integer())),
  temperature: Type.Optional(Num),
  chanUtil: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  survey: Type.Optional(Type.Array(SurveyEntry)),
  // old fw
  active_ms: Type.Optional(Count), busy_ms: Type.Optional(Count),
  receive_ms: Type.Optional(Count), transmit_ms: Type.Optional(Count), noise: Type.Optional(Num),
});
export type StateRadio = Static<typeof StateRadio>;

export const Rate = Type.Object({
  bitrate: Count,
  chwidth: Type.Optional(Type.Integer()),
  mcs: Type.Optional(Type.Integer({ minimum: 0 })),
  nss: Type.Optional(Type.Integer({ minimum: 1 })),
  sgi: Type.Optional(Type.Boolean()),
  ht: Type.Optional(Type.Boolean()),
  vht: Type.Optional(Type.Boolean()),
  he: Type.Optional(Type.Boolean()),
  he_gi: Type.Optional(Type.Integer()),
  he_dcm: Type.Optional(Type.Integer()),
});
export type Rate = Static<typeof Rate>;

export const Association = Type.Object({
  station: Mac,
  bssid: Type.Optional(Mac),
  rssi: Num,
  ack_signal: Type.Optional(Num),
  ack_signal_avg: Type.Optional(Num),
  connected: Type.Optional(Count),
  inactive: Type.Optional(Count),
  rx_bytes: Count, tx_bytes: Count, rx_packets: Count, tx_packets: Count,
  tx_retries: Type.Optional(Count), tx_failed: Type.Optional(Count),
  rx_duration: Type.Optional(Count), tx_duration: Type.Optional(Count),
  rx_rate: Type.Optional(Rate), tx_rate: Type.Optional(Rate),
  ipaddr_v4: Type.Optional(Type.String()),
  delta_counters: Type.Optional(Type.Record(Type.String(), Num)),
});
export type Association = Static<typeof Association>;

export const StateSsid = Type.Object({
  bssid: Mac,
  ssid: Type.Optional(Type.String()),
  mode: Type.Optional(Type.String()),
  iface: Type.Optional(Type.String()),
  phy: Type.Optional(Type.String()),
  band: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  radio: Type.Optional(Type.Object({ $ref: Type.String({ pattern: '^#/radios/[0-9]+$' }) })),
  frequency: Type.Optional(Type.Array(Type.Integer())),
  counters: Type.Optional(Counters),
  delta_counters: Type.Optional(Counters),
  associations: Type.Optional(Type.Array(Association)),
});
export type StateSsid = Static<typeof StateSsid>;

export const StateClient = Type.Object({
  mac: Mac,
  ipv4_addresses: Type.Optional(Type.Array(Type.String())),
  ipv6_addresses: Type.Optional(Type.Array(Type.String())),
  ports: Type.Optional(Type.Array(Type.String())),
  last_seen: Type.Optional(Count),
});

export const StateInterface = Type.Object({
  name: Type.String(),
  location: Type.Optional(Type.String()),
  uptime: Type.Optional(Count),
  counters: Type.Optional(Counters),
  delta_counters: Type.Optional(Counters),
  clients: Type.Optional(Type.Array(StateClient)),
  ssids: Type.Optional(Type.Array(StateSsid)),
});
export type StateInterface = Static<typeof StateInterface>;

export const StateUnit = Type.Object({
  localtime: Count,
  uptime: Count,
  load: Type.Optional(Type.Array(Num)),
  cpu_load: Type.Optional(Type.Array(Num)),
  memory: Type.Optional(Type.Object({ total: Count, free: Count, cached: Type.Optional(Count), buffered: Type.Optional(Count) })),
  temperature: Type.Optional(Type.Array(Num)),
});

export const StateDocument = Type.Object({
  version: Type.Optional(Type.Integer()),
  unit: StateUnit,
  radios: Type.Array(StateRadio),
  interfaces: Type.Array(StateInterface),
  'link-state': Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  'lldp-peers': Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** Where the AP is, from its GPS receiver (schema `state.gps`; protocol/geo.ts). */
  gps: Type.Optional(Type.Object({ latitude: Num, longitude: Num, elevation: Type.Optional(Num) })),
});
export type StateDocument = Static<typeof StateDocument>;

/** `state` notification params: `{serial, uuid, request_uuid?, state}`. */
export const StateParams = Type.Object({
  serial: Type.String({ pattern: '^[0-9a-fA-F]{12}$' }),
  uuid: Type.Integer({ minimum: 0 }),
  request_uuid: Type.Optional(Type.String()),
  state: StateDocument,
});
export type StateParams = Static<typeof StateParams>;

export const parseState = parserFor(StateDocument);
export const parseStateParams = parserFor(StateParams);
