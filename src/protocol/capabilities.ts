/**
 * The `capabilities` object of a `connect` notification (docs/upstream.md#capabilities),
 * shaped on the ten real captures (GW `capabilities/*.json`). Loose where models differ
 * (switch, network, extra fw keys pass through), strict on what channel and tx-power
 * decisions read: each phy's `band[]` and `channels[]` (RRM maps a state radio to its band
 * through `wifi[<phy path>].band[0]`).
 */
import { Type, type Static } from 'typebox';
import { parserFor } from './schema-parse.js';

export const PhyBand = Type.Union([Type.Literal('2G'), Type.Literal('5G'), Type.Literal('6G'), Type.Literal('HaLow')]);

export const PhyCapabilities = Type.Object({
  band: Type.Array(PhyBand, { minItems: 1 }),
  channels: Type.Array(Type.Integer({ minimum: 1, maximum: 233 })),
  frequencies: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
  dfs_channels: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 233 }))),
  htmode: Type.Optional(Type.Array(Type.String())),
  ht_capa: Type.Optional(Type.Integer()),
  vht_capa: Type.Optional(Type.Integer()),
  he_phy_capa: Type.Optional(Type.Array(Type.Integer())),
  he_mac_capa: Type.Optional(Type.Array(Type.Integer())),
  tx_ant: Type.Optional(Type.Integer({ minimum: 0 })),
  rx_ant: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type PhyCapabilities = Static<typeof PhyCapabilities>;

export const Capabilities = Type.Object({
  compatible: Type.String({ minLength: 1 }),
  model: Type.String({ minLength: 1 }),
  platform: Type.String(),
  network: Type.Optional(Type.Object({
    lan: Type.Optional(Type.Array(Type.String())),
    wan: Type.Optional(Type.Array(Type.String())),
  })),
  country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
  country_codes: Type.Optional(Type.Array(Type.String())),
  compress_cmd: Type.Optional(Type.Boolean()),
  label_macaddr: Type.Optional(Type.String()),
  /** Keyed by phy path; the same key appears as `radios[].phy` in every state. */
  wifi: Type.Record(Type.String(), PhyCapabilities),
});
export type Capabilities = Static<typeof Capabilities>;

/** `connect` params: `serial, uuid, firmware, capabilities, wanip[]` (docs/upstream.md#what-each-notification-does). */
export const ConnectParams = Type.Object({
  serial: Type.String({ pattern: '^[0-9a-fA-F]{12}$' }),
  uuid: Type.Integer({ minimum: 0 }),
  firmware: Type.String(),
  capabilities: Capabilities,
  wanip: Type.Optional(Type.Array(Type.String())),
});
export type ConnectParams = Static<typeof ConnectParams>;

export const parseCapabilities = parserFor(Capabilities);
export const parseConnectParams = parserFor(ConnectParams);
