import { describe, expect, it } from 'vitest';
import { debouncePushes, dueCollections } from '../../../src/rrm/collection.js';
import { defaultEffectiveConfig } from '../../../src/rrm/config/layered.js';

const cfg = (enableWifiScan = true) => ({ ...defaultEffectiveConfig(), enableWifiScan });

describe('dueCollections', () => {
  const base = {
    configs: new Map([['b', cfg()], ['a', cfg()], ['c', cfg(false)], ['d', cfg()]]),
    connected: new Set(['a', 'b', 'c']),
    lastScanAt: new Map([['b', 1_000]]),
    lastCapabilitiesAt: new Map([['a', 1_000]]),
    now: 1_000 + 900_000 - 1,
  };

  it('scans connected devices with enableWifiScan whose interval elapsed; refreshes capabilities hourly', () => {
    expect(dueCollections(base)).toEqual({ wifiScan: ['a'], capabilities: ['b', 'c'] });
    expect(dueCollections({ ...base, now: 1_000 + 900_000 }).wifiScan).toEqual(['a', 'b']);
    expect(dueCollections({ ...base, now: 1_000 + 3_600_000 }).capabilities).toEqual(['a', 'b', 'c']);
  });

  it('a non-positive scan interval disables scans', () => {
    expect(dueCollections({ ...base, wifiScanIntervalMs: -1 }).wifiScan).toEqual([]);
  });
});

describe('debouncePushes', () => {
  it('defers devices pushed less than the window ago', () => {
    const pushes = new Map([['a', 1], ['b', 2], ['c', 3]]);
    const out = debouncePushes(pushes, new Map([['a', 100], ['b', 50]]), 129, 30);
    expect([...out.send.keys()]).toEqual(['b', 'c']);
    expect([...out.defer.keys()]).toEqual(['a']);
  });
});

describe('debouncePushes at the edge', () => {
  it('sends once exactly the window has passed', () => {
    expect([...debouncePushes(new Map([['a', 1]]), new Map([['a', 100]]), 130, 30).send.keys()]).toEqual(['a']);
  });
});
