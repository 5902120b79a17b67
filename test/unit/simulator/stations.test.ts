import { describe, expect, it } from 'vitest';
import { configure } from '../../../simulator/ap/configure.js';
import { stateDocument } from '../../../simulator/ap/frames.js';
import { stationLink } from '../../../simulator/ap/airtime.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { LINK_LOST_DBM, startClients } from '../../../simulator/clients/dynamics.js';
import { runVenue } from '../../../simulator/run.js';
import { loadScenario, scenarioStart } from '../../../simulator/scenario.js';
import { buildVenue, type Venue } from '../../../simulator/venue.js';
import { openPlan, type SimAp } from '../../helpers/sim-venue.js';

const A = '0000aa000001';
const B = '0000aa000002';

/** An open floor (no shadowing, no walls), one station standing at `at` all day. */
function standing(aps: SimAp[], at: [number, number]) {
  const scenario = openPlan(aps, { clients: 1, clientGroup: { mobile: 0, dualBand: 1, sessionMinutes: 100_000, awayMinutes: 1 } });
  const clock = new VirtualClock(scenarioStart(scenario));
  const venue = buildVenue(scenario, clock);
  const c = venue.clients[0]!;
  c.from = c.to = { floor: 0, x: at[0], y: at[1] };
  const events: { serial: string; type: string; payload: Record<string, unknown> }[] = [];
  for (const ap of venue.aps) ap.onClientEvent = (type, payload) => events.push({ serial: ap.serial, type, payload });
  startClients(venue);
  return { venue, clock, c, events };
}

/** Sets every radio of an AP to `txPower` through its configure. */
function power(v: Venue, serial: string, txPower: number): void {
  const ap = v.apBySerial.get(serial)!;
  configure(v, ap, 1, { uuid: 2, config: { radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': txPower })) } }, () => undefined);
}

describe('simulated stations: links follow the physics', () => {
  it('a station whose AP turns its power down to a weak link roams to a BSS 6 dB better', () => {
    const { venue, clock, c, events } = standing([{ serial: A, x: 10, y: 50 }, { serial: B, x: 60, y: 50 }], [25, 50]);
    expect(c.ap?.serial).toBe(A);
    power(venue, A, 0);
    clock.increment(1000);
    expect(c.ap?.serial).toBe(B);
    expect(events.map((e) => [e.serial, e.type, e.payload.reason])).toEqual([[A, 'client.leave', 'roam'], [B, 'client.join', undefined]]);
  });

  it('a station far below sensitivity loses its AP and finds it again when the AP comes back', () => {
    const { venue, clock, c, events } = standing([{ serial: A, x: 10, y: 50 }], [60, 50]);
    expect(c.ap?.serial).toBe(A);
    power(venue, A, 2);
    expect(c.ap).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'client.leave', payload: { reason: 'link-lost' } });
    clock.increment(venue.roamIntervalMs * 3);
    expect(c.ap).toBeUndefined(); // nothing to join: it stays off the air
    power(venue, A, 20);
    clock.increment(venue.roamIntervalMs + 1);
    expect(c.ap?.serial).toBe(A);
    expect(events.at(-1)).toMatchObject({ type: 'client.join', serial: A });
  });

  it('an AP never reports a station it cannot hear: the state drops it first', () => {
    const { venue, c } = standing([{ serial: A, x: 10, y: 50 }], [60, 50]);
    const ap = venue.aps[0]!;
    // Behind the station's back (no configure, no check): the AP's radios go quiet.
    for (const r of ap.radios) r.txPower = 0;
    venue.radioEpoch++;
    expect(stationLink(venue, c, venue.clock.now()).downDbm).toBeLessThan(LINK_LOST_DBM);
    const st = stateDocument(venue, ap) as { interfaces: { ssids: { associations: unknown[] }[] }[] };
    expect(st.interfaces[0]!.ssids.flatMap((s) => s.associations)).toEqual([]);
    expect(c.ap).toBeUndefined();
  });

  it('in two hours of the default office no state shows a station below -87 dBm', () => {
    let min = 0;
    let states = 0;
    runVenue({
      scenario: loadScenario('default').scenario, durationMs: 2 * 3_600_000,
      onLine: (l) => {
        if (!l.includes('"method":"state"')) return;
        states++;
        const st = (JSON.parse(l) as { frame: { params: { state: { interfaces: { ssids: { associations: { rssi: number }[] }[] }[] } } } }).frame.params.state;
        for (const s of st.interfaces[0]!.ssids) for (const a of s.associations) min = Math.min(min, a.rssi);
      },
    });
    expect(states).toBeGreaterThan(1000);
    expect(min).toBeLessThan(-70); // walking stations do get weak...
    expect(min).toBeGreaterThanOrEqual(LINK_LOST_DBM); // ...but never past what the AP hears
  });
});
