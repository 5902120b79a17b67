import { describe, expect, it } from 'vitest';
import { replaySummaryLines } from '../../../src/commands/replay.js';
import type { ReplaySummary } from '../../../src/links/replay/replayer.js';

const summary = (over: Partial<ReplaySummary>): ReplaySummary => ({
  frames: 0, devices: 0, accepted: 0, rejected: [], rejectedCount: 0, durationMs: 0, dropped: 0, refused: [], refusedCount: 0, unmatched: [], stopped: false, ...over,
});

describe('the summary line of a replay', () => {
  it('gives the rate of a slow, paced replay with one decimal instead of 0', () => {
    const [first] = replaySummaryLines('x.ndjson', summary({ frames: 9, devices: 3, durationMs: 14_400, stopped: true }), 28_750);
    expect(first).toBe('replay: 9 frames from 3 devices, 14.4 s recorded, played in 28.75 s (0.3 frames/s), stopped early');
  });

  it('switches to whole frames where one decimal would round to 10.0', () => {
    const rate = (frames: number, ms: number) => /\((.*) frames\/s\)/.exec(replaySummaryLines('x', summary({ frames }), ms)[0]!)![1];
    expect(rate(994, 100_000)).toBe('9.9');
    expect(rate(997, 100_000)).toBe('10');
    expect(rate(1000, 100_000)).toBe('10');
  });

  it('rounds a fast replay\'s rate to whole frames', () => {
    const [first] = replaySummaryLines('x.ndjson', summary({ frames: 44_646, devices: 200, durationMs: 3_599_700 }), 1_460);
    expect(first).toBe('replay: 44646 frames from 200 devices, 3599.7 s recorded, played in 1.46 s (30579 frames/s)');
  });
});
