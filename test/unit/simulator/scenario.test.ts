import { describe, expect, it } from 'vitest';
import { blockOf, isDfsChannel } from '../../../src/protocol/wifi-channels.js';
import { DEFAULT_WIFISCAN_S, loadScenario, parseScenario, ScenarioError } from '../../../simulator/scenario.js';
import { buildVenue } from '../../../simulator/venue.js';
import { VirtualClock } from '../../../simulator/clock.js';

const base = `name: t
seed: 1
intervals: { state: 60, healthcheck: 120 }
building:
  floors:
    - { width: 20, depth: 10 }
ssids:
  - { name: s, bands: [2G, 5G] }
aps:
  - serial: "a0b1c2000001"
    floor: 0
    at: [5, 5]
    radios:
      - { band: 5G, channel: 36, width: 80 }
`;

function problems(text: string): string[] {
  try {
    parseScenario(text, 'venue.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  return [];
}

describe('scenario files', () => {
  it('load and build for every shipped venue, with the sizes the issue asks for', () => {
    const sizes: Record<string, [number, number]> = {};
    for (const name of ['lab', 'default', 'hotel', 'hall']) {
      const { scenario } = loadScenario(name);
      const v = buildVenue(scenario, new VirtualClock(0));
      sizes[name] = [v.aps.length, v.clients.length];
      expect(v.neighbours.length).toBeGreaterThan(0);
      expect(typeof scenario.seed).toBe('number');
    }
    expect(sizes.lab![0]).toBe(3);
    expect(sizes.default).toEqual([12, 60]);
    expect(sizes.hotel![0]).toBe(60);
    expect(sizes.hall).toEqual([200, 2000]);
  });

  it('start every shipped venue on non-DFS 5 GHz channels (a zone plans DFS only when it opts in) and scan periodically', () => {
    for (const name of ['lab', 'default', 'hotel', 'hall']) {
      const { scenario } = loadScenario(name);
      const v = buildVenue(scenario, new VirtualClock(0));
      const dfs = v.aps.flatMap((ap) => ap.radios.filter((r) => blockOf(r.band, r.channel, r.width)!.channels.some((c) => isDfsChannel(r.band, c))).map((r) => `${ap.serial} ${r.channel}/${r.width}`));
      expect(dfs, name).toEqual([]);
      expect(v.aps.every((ap) => ap.intervals.wifiscan > 0 && ap.scanReport.verbose), name).toBe(true);
    }
    expect(buildVenue(parseScenario(base), new VirtualClock(0)).aps[0]!.intervals.wifiscan).toBe(DEFAULT_WIFISCAN_S * 1000);
    expect(buildVenue(parseScenario(base.replace('healthcheck: 120', 'healthcheck: 120, wifiscan: 0')), new VirtualClock(0)).aps[0]!.intervals.wifiscan).toBe(0);
  });

  it('accepts a minimal valid file', () => {
    expect(problems(base)).toEqual([]);
  });

  it('names file, line and field for a schema error', () => {
    const p = problems(base.replace('state: 60', 'state: "often"'));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^venue\.yaml:3: field \/intervals\/state: /);
  });

  it('names file, line and field for a channel the country does not allow', () => {
    const p = problems(base.replace('channel: 36, width: 80', 'channel: 169, width: 20'));
    expect(p).toEqual(['venue.yaml:14: field /aps/0/radios/0/channel: channel 169 is not allowed on 5G in US']);
  });

  it('reports positions off the floor, unknown models and duplicate serials', () => {
    const text = `${base}  - serial: "a0b1c2000001"
    model: acme_9000
    floor: 0
    at: [50, 5]
    radios:
      - { band: 2G, channel: 6 }
`;
    const p = problems(text);
    expect(p.some((x) => /venue\.yaml:15: field \/aps\/1\/serial: .*used twice/.test(x))).toBe(true);
    expect(p.some((x) => /field \/aps\/1\/model: unknown model 'acme_9000'/.test(x))).toBe(true);
    expect(p.some((x) => /venue\.yaml:18: field \/aps\/1\/at: .*outside/.test(x))).toBe(true);
  });

  it('reports YAML syntax errors with their line', () => {
    const p = problems('name: t\nseed: [1\n');
    expect(p[0]).toMatch(/^venue\.yaml:\d+: /);
  });

  it('reads JSON with the same checks', () => {
    const p = problems(JSON.stringify({ name: 'j', seed: 1, intervals: { state: 0, healthcheck: 1 }, building: { floors: [{ width: 1, depth: 1 }] }, ssids: [{ name: 's', bands: ['2G'] }] }, null, 2));
    expect(p.some((x) => /^venue\.yaml:5: field \/intervals\/state:/.test(x))).toBe(true);
  });

  it('says which scenario it could not find', () => {
    expect(() => loadScenario('no-such-venue')).toThrow(/scenario 'no-such-venue' not found: the scenarios are default, hall, hotel, lab/);
  });
});
