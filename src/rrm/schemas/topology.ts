/** DeviceTopology: `{"<zone>": ["<serial>", ...]}` (reference §3.1). */
import { Type, type Static } from 'typebox';

export const Topology = Type.Record(Type.String(), Type.Array(Type.String()), { $id: 'Topology', title: 'Topology' });
export type Topology = Static<typeof Topology>;
