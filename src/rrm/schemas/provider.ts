/** ProviderInfo and SystemInfo (spec: rrm-service-api.md; docs/upstream.md#rrm-api). */
import { Type, type Static } from 'typebox';

export const ProviderInfo = Type.Object({
  vendor: Type.String(),
  vendorShortname: Type.String(),
  version: Type.String(),
  about: Type.String(),
}, { $id: 'ProviderInfo', title: 'ProviderInfo' });
export type ProviderInfo = Static<typeof ProviderInfo>;

export const SystemInfo = Type.Object({
  version: Type.String(),
  uptime: Type.Integer(),
  start: Type.Integer(),
  os: Type.String(),
  processors: Type.Integer(),
  hostname: Type.String(),
  certificates: Type.Optional(Type.Array(Type.Object({ filename: Type.String(), expires: Type.Integer() }))),
});
export type SystemInfo = Static<typeof SystemInfo>;
