import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import { VirtualClock } from '../../../simulator/clock.js';
import type { FleetEvent } from '../../../actors/fleet.js';
import { LiveFeed } from '../../../src/venue-view/live-feed.js';
import type { ApView } from '../../../src/venue-view/ap-views.js';

const state = (serial: string, at: number): FleetEvent => ({ type: 'state', serial, at, payload: { uuid: 1, state: {} } });

function feed() {
  const wall = new VirtualClock(1_000_000);
  const events = new Subject<FleetEvent>();
  let channel = 36;
  const summary = (serial: string): ApView => ({
    serial, model: 'm', connected: true, state: 'online.idle', lastContact: 0, lastStateAt: 0, bssids: [],
    radios: [{ band: '5G', channel, width: 80, txPower: 20, chanUtil: null, clients: 0 }],
  });
  const live = new LiveFeed({ events$: events, summary, serials: () => ['a', 'b'], clock: wall, wall, tickMs: 500 });
  return { wall, events, live, setChannel: (c: number) => { channel = c; } };
}

describe('venue view live feed', () => {
  it('sends every AP first, then each changed AP once per tick with its latest values', () => {
    const { wall, events, live, setChannel } = feed();
    const got: any[] = [];
    live.subscribe({ send: (t) => got.push(JSON.parse(t)), bufferedAmount: 0 });
    wall.increment(500);
    expect(got.map((m) => m.aps.map((a: ApView) => a.serial))).toEqual([['a', 'b']]);
    events.next(state('a', 1));
    setChannel(52);
    events.next(state('a', 2));
    wall.increment(500);
    expect(got).toHaveLength(2);
    expect(got[1].aps).toHaveLength(1);
    expect(got[1].aps[0].radios[0].channel).toBe(52);
    wall.increment(500);
    expect(got).toHaveLength(2); // nothing changed: nothing sent
  });

  it('lets a congested page skip ticks and catch up with the newest values, losing no AP', () => {
    const { wall, events, live, setChannel } = feed();
    const got: any[] = [];
    let queued = 10_000_000;
    live.subscribe({ send: (t) => got.push(JSON.parse(t)), get bufferedAmount() { return queued; } });
    events.next(state('a', 1));
    setChannel(100);
    wall.increment(2_000);
    expect(got).toEqual([]);
    expect(live.skippedTicks).toBe(4);
    queued = 0;
    wall.increment(500);
    expect(got).toHaveLength(1);
    expect(got[0].aps.map((a: ApView) => [a.serial, a.radios[0]!.channel])).toEqual([['a', 100], ['b', 100]]);
    live.close();
  });
});
