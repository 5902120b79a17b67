/** DeviceTopology: `{"<zone>": ["<serial>", ...]}` (docs/upstream.md#rrm-behaviour). */
import { Type, type Static } from 'typebox';

export const Topology = Type.Record(Type.String(), Type.Array(Type.String()), { $id: 'Topology', title: 'Topology' });
export type Topology = Static<typeof Topology>;
