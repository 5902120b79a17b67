/**
 * A wifi-scan result entry (docs/upstream.md#wifi-scan-results, fw `cmd_wifiscan.uc`) and the
 * command result around it (`result.status.scan[]`, where RRM reads it). `ht_oper` and
 * `vht_oper` are base64 element bodies (22 and 5 bytes) that RRM decodes for the width.
 */
import { Type, type Static } from 'typebox';
import { MAC_PATTERN, parserFor } from './schema-parse.js';

/** `ies[]` type of the Extension element (IE 255) and, first in its body, the id of HE Operation (IEEE 802.11ax 9.4.2.249). */
export const IE_EXTENSION = 255;
export const HE_OPERATION_EXT_ID = 36;

export const ScanIe = Type.Object({ type: Type.Integer({ minimum: 0, maximum: 255 }), data: Type.Optional(Type.String()) });

export const WifiScanEntry = Type.Object({
  bssid: Type.String({ pattern: MAC_PATTERN }),
  ssid: Type.Optional(Type.String()),
  frequency: Type.Integer({ minimum: 1 }),
  channel: Type.Integer({ minimum: 1, maximum: 233 }),
  /** dBm; RRM reads it as an int, so producers send integers. */
  signal: Type.Number({ maximum: 0 }),
  last_seen: Type.Optional(Type.Number({ minimum: 0 })),
  tsf: Type.Optional(Type.Number({ minimum: 0 })),
  capability: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  ht_oper: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{30}==$' })),
  vht_oper: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{7}=$' })),
  sta_count: Type.Optional(Type.Integer({ minimum: 0 })),
  ch_util: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  tip_serial: Type.Optional(Type.String()),
  ies: Type.Optional(Type.Array(ScanIe)),
});
export type WifiScanEntry = Static<typeof WifiScanEntry>;

/** `result.status` of a `wifiscan` command: `{error, text, resultCode, scan[]}`. */
export const WifiScanStatus = Type.Object({
  error: Type.Integer(),
  text: Type.Optional(Type.String()),
  resultCode: Type.Optional(Type.Integer()),
  scan: Type.Array(WifiScanEntry),
});
export type WifiScanStatus = Static<typeof WifiScanStatus>;

export const parseWifiScanEntry = parserFor(WifiScanEntry);
export const parseWifiScanStatus = parserFor(WifiScanStatus);
