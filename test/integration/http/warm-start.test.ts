import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * A warm start: `serve` with the simulated venue comes up with history. The `lab` venue (a state
 * every 10 s) is told to start 60 s in the past; it catches up with the wall at 30x, each of its
 * timers at its own time, so every AP has the states of those 60 s, 10 s apart, and then follows
 * the wall. Served again, a data dir gets no second history over the minutes it already holds.
 */

const A = 'a0b1c2000001';
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const states = async (s: TestServer): Promise<number[]> => {
  const a = await s.gw('GET', `/device/${A}/statistics?newest=true&limit=30`);
  return ((a.body as { data?: { recorded: number }[] }).data ?? []).map((x) => x.recorded).sort((x, y) => x - y);
};

describe('serve --warm-up', () => {
  it('starts the venue in the past, makes its history at every interval, then follows the wall clock', async () => {
    const banner: string[] = [];
    const startedAt = Date.now();
    const s = await startTestServer({ sim: true, scenario: 'lab', warmUp: 60, wire: 'openwifi' }, { print: (l) => banner.push(l) });
    servers.push(s);
    expect(banner.find((l) => l.startsWith('  warm-up'))).toBe('  warm-up  60 s of simulated history, made at 30x until it reaches the wall clock');
    // The service's own start is in the venue's time: the warm-up's start.
    expect(s.running.clock.now()).toBeLessThan(startedAt);
    const clock = s.running.clock;
    await until('the clock caught up with the wall', async () => clock.now() - Date.now(), (behind) => behind >= -5, 30_000);
    const times = await until('five states of the warm-up', () => states(s), (t) => t.length >= 5, 30_000);
    // Made in the past, before the wall reached the start of this test, 10 s apart: no state skipped.
    expect(times[0]! * 1000).toBeLessThan(startedAt - 30_000);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps.every((g) => g === 10), `state times ${times.join(', ')}`).toBe(true);
    expect(clock.now()).toBeLessThanOrEqual(Date.now());

    // Served again at once: the warm-up is cut to the seconds since the last stored state.
    const before = await states(s);
    const printed = banner.length;
    await s.restart();
    const warm = banner.slice(printed).find((l) => l.startsWith('  warm-up'));
    const seconds = warm === undefined ? 0 : Number(/warm-up +([\d.]+) s/.exec(warm)?.[1]);
    expect(seconds).toBeLessThan(60);
    expect(s.running.clock.now()).toBeGreaterThan(before.at(-1)! * 1000);
  }, 120_000);

  it('--warm-up 0 starts the venue on the wall clock, as without one', async () => {
    const banner: string[] = [];
    const startedAt = Date.now();
    const s = await startTestServer({ sim: true, scenario: 'lab', warmUp: 0 }, { print: (l) => banner.push(l) });
    servers.push(s);
    expect(banner.some((l) => l.startsWith('  warm-up'))).toBe(false);
    expect(s.running.clock.now()).toBeGreaterThanOrEqual(startedAt);
  }, 60_000);
});
