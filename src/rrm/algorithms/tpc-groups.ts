/**
 * Radios grouped by (band, channel), the unit of TPC (docs/upstream.md#rrm-algorithms), built
 * from the zone view. A device appears once per group (upstream could list it twice, docs/rrm.md).
 */
import type { Band } from '../../protocol/wifi-channels.js';
import type { ApRadio, ApView } from '../model/view.js';

export interface TpcMember { ap: ApView; radios: ApRadio[] }
export interface TpcGroup { band: Band; channel: number; members: TpcMember[] }

const BAND_ORDER: Record<Band, number> = { '2G': 0, '5G': 1, '6G': 2 };

export function tpcGroups(aps: readonly ApView[]): TpcGroup[] {
  const groups = new Map<string, TpcGroup>();
  for (const ap of [...aps].sort((a, b) => (a.serial < b.serial ? -1 : 1))) {
    for (const r of ap.radios) {
      const key = `${r.band}:${r.channel}`;
      let g = groups.get(key);
      if (!g) { g = { band: r.band, channel: r.channel, members: [] }; groups.set(key, g); }
      let m = g.members.find((x) => x.ap === ap);
      if (!m) { m = { ap, radios: [] }; g.members.push(m); }
      m.radios.push(r);
    }
  }
  return [...groups.values()].sort((a, b) => BAND_ORDER[a.band] - BAND_ORDER[b.band] || a.channel - b.channel);
}
