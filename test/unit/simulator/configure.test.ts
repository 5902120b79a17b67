import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LinkEvent } from '../../../src/protocol/device-link.js';
import type { CommandFrame, UpFrame } from '../../../src/protocol/frame.js';
import { scanEntries } from '../../../simulator/ap/scan.js';
import { labWithLinks } from '../../helpers/sim-venue.js';

const cmd = (id: number, params: Record<string, unknown>): CommandFrame => ({ jsonrpc: '2.0', id, method: 'configure', params });
const frames = (evs: LinkEvent[]): UpFrame[] => evs.flatMap((e) => (e.type === 'frame' ? [e.frame] : []));
const resultOf = (evs: LinkEvent[], id: number): any => frames(evs).find((f) => 'id' in f && f.id === id);
const lastState = (evs: LinkEvent[]): any => frames(evs).filter((f) => 'method' in f && f.method === 'state').at(-1);
const clientEvents = (evs: LinkEvent[], type: string): any[] => frames(evs)
  .filter((f: any) => f.method === 'event' && f.params.data.event[1].type === type).map((f: any) => f.params.data.event[1].payload);

/** The lab with every AP online and the stations settled a minute. */
function online(seed?: number) {
  const lab = labWithLinks(seed);
  lab.clock.increment(60_000);
  return lab;
}

describe('simulated configure: the configuration replaces the whole configuration', () => {
  it('a configure naming only the 5 GHz radio turns 2.4 GHz off: its stations leave, it leaves the state and the air', async () => {
    // Seed 6 puts three stations on the first AP's 2.4 GHz radio.
    const { clock, venue, links, events } = online(6);
    const ap = venue.aps[0]!;
    const link = links[ap.index]!;
    const evs = events.get(ap.serial)!;
    const r2 = ap.radios[1]!;
    const on2g = r2.stations.map((c) => c.mac);
    expect(on2g.length).toBeGreaterThan(0);
    const from = evs.length;
    await link.send(cmd(1, { serial: ap.serial, uuid: 10, config: { radios: [{ band: '5G', channel: 36, 'channel-width': 80, 'tx-power': 20 }] } }));
    clock.increment(30_000);
    expect(resultOf(evs, 1).result.status).toMatchObject({ error: 0 });
    expect(r2.enabled).toBe(false);
    expect(r2.stations).toEqual([]);
    const left = clientEvents(evs.slice(from), 'client.leave').filter((p) => p.reason === 'radio-off');
    expect(left.map((p) => p.client).sort()).toEqual([...on2g].sort());
    const st = lastState(evs).params.state;
    expect(st.radios.map((r: any) => r.band)).toEqual([['5G']]);
    expect(st.interfaces[0].ssids.every((s: any) => s.band === '5G' && s.radio.$ref === '#/radios/0')).toBe(true);
    // No one hears the 2.4 GHz BSSs any more; the AP itself scans only where a radio runs.
    for (const other of venue.aps.filter((a) => a !== ap)) {
      expect(scanEntries(venue, other).filter((e) => r2.bssids.includes(e.bssid))).toEqual([]);
    }
    expect(scanEntries(venue, ap).every((e) => e.channel > 14)).toBe(true);
    // A configure naming 2.4 GHz again brings it back.
    await link.send(cmd(2, { serial: ap.serial, uuid: 11, config: { radios: [{ band: '5G', channel: 36 }, { band: '2G', channel: 6 }] } }));
    clock.increment(30_000);
    expect(r2).toMatchObject({ enabled: true, channel: 6 });
    expect(lastState(evs).params.state.radios.map((r: any) => r.band)).toEqual([['5G'], ['2G']]);
  });

  it('what a named radio leaves out is the venue\'s own setting, not what an earlier configure set', async () => {
    const { clock, venue, links, events } = online();
    const ap = venue.aps[0]!;
    const evs = events.get(ap.serial)!;
    const [r5, r2] = ap.radios as [typeof ap.radios[0], typeof ap.radios[0]];
    const factory = ap.factory.radios.map((f) => ({ ...f }));
    await links[0]!.send(cmd(1, { serial: ap.serial, uuid: 20, config: { radios: [{ band: '5G', channel: 149, 'channel-width': 40, 'tx-power': 9 }, { band: '2G', channel: 11, 'tx-power': 4 }] } }));
    clock.increment(5000);
    expect([r5.channel, r5.width, r5.txPower, r2.channel, r2.txPower]).toEqual([149, 40, 9, 11, 4]);
    await links[0]!.send(cmd(2, { serial: ap.serial, uuid: 21, config: { radios: [{ band: '5G' }, { band: '2G', channel: 1 }] } }));
    clock.increment(5000);
    expect(resultOf(evs, 2).result.status.error).toBe(0);
    expect({ channel: r5.channel, width: r5.width, txPower: r5.txPower }).toEqual({ channel: factory[0]!.channel, width: factory[0]!.width, txPower: factory[0]!.txPower });
    expect({ channel: r2.channel, txPower: r2.txPower }).toEqual({ channel: 1, txPower: factory[1]!.txPower });
  });

  it('a configure without radios turns every radio off; `enable: false` turns one off', async () => {
    const { clock, venue, links, events } = online();
    const ap = venue.aps[1]!;
    const evs = events.get(ap.serial)!;
    await links[1]!.send(cmd(1, { serial: ap.serial, uuid: 30, config: { metrics: { statistics: { interval: 60 } } } }));
    clock.increment(70_000);
    expect(ap.radios.map((r) => r.enabled)).toEqual([false, false]);
    expect(ap.radios.flatMap((r) => r.stations)).toEqual([]);
    expect(lastState(evs).params.state.radios).toEqual([]);
    await links[1]!.send(cmd(2, { serial: ap.serial, uuid: 31, config: { radios: [{ band: '5G', channel: 149 }, { band: '2G', channel: 6, enable: false }] } }));
    clock.increment(5000);
    expect(ap.radios.map((r) => r.enabled)).toEqual([true, false]);
  });

  it('names one radio per entry: a second 5 GHz entry on a one-5G-radio AP is a substitution', async () => {
    const { clock, venue, links, events } = online();
    const ap = venue.aps[0]!;
    await links[0]!.send(cmd(1, { serial: ap.serial, uuid: 40, config: { radios: [{ band: '5G', channel: 36 }, { band: '5G', channel: 149 }] } }));
    clock.increment(5000);
    const status = resultOf(events.get(ap.serial)!, 1).result.status;
    expect(status.error).toBe(1);
    expect(status.rejected).toEqual([{ parameter: 'radios[1].band', reason: 'every 5G radio of this device is named before', substitution: '' }]);
    expect(ap.radios[0]!.channel).toBe(36);
    expect(ap.radios[1]!.enabled).toBe(false);
  });

  it('metrics a configure leaves out go back to the venue\'s intervals; wifi-scan verbose and information-elements shape the periodic scans', async () => {
    const { clock, venue, links, events } = online();
    const ap = venue.aps[2]!;
    const evs = events.get(ap.serial)!;
    const radios = [{ band: '5G', channel: 36, 'channel-width': 40 }, { band: '2G', channel: 11 }];
    await links[2]!.send(cmd(1, { serial: ap.serial, uuid: 50, config: { radios, metrics: { statistics: { interval: 120 }, 'wifi-scan': { interval: 30, verbose: false } } } }));
    clock.increment(5000);
    expect(ap.intervals).toMatchObject({ state: 120_000, wifiscan: 30_000 });
    let from = evs.length;
    clock.increment(65_000);
    const plain = frames(evs.slice(from)).filter((f: any) => f.method === 'wifiscan') as any[];
    expect(plain.length).toBeGreaterThanOrEqual(2);
    expect(plain.every((f) => f.params.data.every((e: any) => e.ht_oper === undefined && e.ies === undefined))).toBe(true);
    await links[2]!.send(cmd(2, { serial: ap.serial, uuid: 51, config: { radios, metrics: { 'wifi-scan': { 'information-elements': true } } } }));
    clock.increment(5000);
    expect(ap.intervals).toEqual(ap.factory.intervals);
    from = evs.length;
    clock.increment(ap.factory.intervals.wifiscan + 1000);
    const full = frames(evs.slice(from)).filter((f: any) => f.method === 'wifiscan') as any[];
    expect(full.length).toBeGreaterThanOrEqual(1);
    for (const e of full[0].params.data) expect(e).toMatchObject({ ht_oper: expect.any(String), ies: [{ type: 11 }] });
  });

  it('the radios an AP runs depend on its last configuration only (property, seed 34)', () => {
    const entry = fc.record({
      band: fc.constantFrom('5G', '2G'),
      channel: fc.option(fc.constantFrom(1, 6, 11, 36, 44, 149, 157, 52), { nil: undefined }),
      'channel-width': fc.option(fc.constantFrom(20, 40, 80), { nil: undefined }),
      'tx-power': fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
      enable: fc.option(fc.boolean(), { nil: undefined }),
    }, { requiredKeys: ['band'] });
    const config = fc.array(entry, { maxLength: 3 });
    fc.assert(fc.property(fc.array(config, { maxLength: 3 }), config, (earlier, last) => {
      const run = (configs: unknown[][]) => {
        const { clock, venue, links } = online();
        configs.forEach((radios, i) => { void links[0]!.send(cmd(i + 1, { serial: venue.aps[0]!.serial, uuid: 100 + i, config: { radios } })); clock.increment(3000); });
        return venue.aps[0]!.radios.map((r) => ({ enabled: r.enabled, channel: r.channel, width: r.width, txPower: r.txPower }));
      };
      const settled = (r: ReturnType<typeof run>) => r.map((x) => (x.enabled ? x : { enabled: false }));
      expect(settled(run([...earlier, last]))).toEqual(settled(run([last])));
    }), { seed: 34, numRuns: 25 });
  });
});
