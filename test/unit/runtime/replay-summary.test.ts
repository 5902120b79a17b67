import { describe, expect, it } from 'vitest';
import { replaySummaryLines } from '../../../src/runtime/replay-report.js';
import type { ReplaySummary } from '../../../src/links/replay/replayer.js';

const summary = (over: Partial<ReplaySummary>): ReplaySummary => ({
  frames: 0, devices: 0, accepted: 0, rejected: [], rejectedCount: 0, durationMs: 0, dropped: 0, refused: [], refusedCount: 0, unmatched: [], unmatchedCount: 0, stopped: false, ...over,
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

  it('says "1 frame", "1 device" and "1 rejected line" in the singular', () => {
    const lines = replaySummaryLines('x.ndjson', summary({ frames: 1, devices: 1, rejectedCount: 1, rejected: [{ line: 3, reason: 'not JSON' }], refusedCount: 1, refused: [{ line: 4, reason: 'r' }], dropped: 1 }), 1000);
    expect(lines).toEqual([
      'replay: 1 frame from 1 device, 0.0 s recorded, played in 1.00 s (1.0 frames/s)',
      'replay: 1 frame recorded while its AP was disconnected was not delivered',
      'replay: 1 rejected line:', '  x.ndjson:3: not JSON',
      'replay: 1 frame refused by their device actor, as a live AP\'s would be:', '  x.ndjson:4: r',
    ]);
  });

  it('counts the commands not run past the ones it lists', () => {
    const unmatched = Array.from({ length: 2 }, (_, i) => ({ line: i + 1, reason: 'recorded ping not run by the device actor (DEVICE_OFFLINE: x)' }));
    const lines = replaySummaryLines('x.ndjson', summary({ unmatched, unmatchedCount: 1_200 }), 1000);
    expect(lines.slice(-4)).toEqual([
      'replay: 1200 recorded commands not run by their device actor, or results of none it ran:',
      '  x.ndjson:1: recorded ping not run by the device actor (DEVICE_OFFLINE: x)',
      '  x.ndjson:2: recorded ping not run by the device actor (DEVICE_OFFLINE: x)',
      '  ... and 1198 more',
    ]);
  });
});
