import { describe, expect, it } from 'vitest';
import { runVenue } from '../../../simulator/run.js';
import { parseScenario } from '../../../simulator/scenario.js';
import { scanEntries } from '../../../simulator/ap/scan.js';
import { parseStateParams } from '../../../src/protocol/state.js';
import { is6GhzPsc } from '../../../src/protocol/wifi-channels.js';
import { heOperationOf, heOperationWidth } from '../../../src/rrm/model/ie.js';

const venue = parseScenario(`
name: six
seed: 3
intervals: { state: 30, healthcheck: 60 }
building: { floors: [ { width: 40, depth: 20 } ] }
ssids: [ { name: six, bands: [2G, 5G, 6G] } ]
aps:
  - serial: "a0b1c2600001"
    model: airtwin_tri6e
    floor: 0
    at: [5, 10]
    radios:
      - { band: 5G, channel: 149, width: 80 }
      - { band: 2G, channel: 6 }
      - { band: 6G, channel: 37, width: 160, txPower: 30 }
  - serial: "a0b1c2600002"
    model: airtwin_tri6e
    floor: 0
    at: [30, 10]
    radios:
      - { band: 5G, channel: 36, width: 80 }
      - { band: 2G, channel: 1 }
      - { band: 6G, channel: 5, width: 80 }
clients: [ { count: 8, dualBand: 1 } ]
`, 'six.yaml');

describe('6 GHz radios (synthetic tri-band model)', () => {
  it('report 6G radios in state with PSC channels, centre lists and the US 6 GHz power limit', () => {
    const states: any[] = [];
    const r = runVenue({ scenario: venue, durationMs: 5 * 60_000, onLine: (l) => { if (l.includes('"method":"state"')) states.push(JSON.parse(l).frame.params); } });
    expect(states.length).toBeGreaterThan(0);
    for (const s of states) expect(parseStateParams(s).ok).toBe(true);
    const six = states[0].state.radios.find((x: any) => x.band[0] === '6G');
    expect(is6GhzPsc(six.channel)).toBe(true);
    expect(six.tx_power).toBe(12); // 30 asked, regdb US 6 GHz limit 12 dBm
    const a = r.run.venue.aps[0]!;
    expect(six.channels).toEqual(a.serial === states[0].serial ? [37, 47] : [5, 7]);
    const entries = scanEntries(r.run.venue, a);
    const sixSeen = entries.filter((e) => e.frequency > 5925);
    expect(sixSeen.length).toBeGreaterThan(0);
    // No HT/VHT operation on 6 GHz: the width is in the HE Operation element of ies[].
    const widthOf = new Map(r.run.venue.aps.flatMap((ap) => ap.radios.flatMap((x) => x.bssids.map((b) => [b, x.width] as const))));
    for (const e of sixSeen) {
      expect(e.ht_oper).toBeUndefined();
      expect(heOperationWidth(heOperationOf(e.ies))).toBe(widthOf.get(e.bssid));
    }
    expect(new Set(sixSeen.map((e) => widthOf.get(e.bssid))).size).toBeGreaterThan(0);
  });
});
