import { describe, expect, it } from 'vitest';
import { interval, take, timer } from 'rxjs';
import { clockScheduler } from '../../../src/pipelines/clock-scheduler.js';
import { IngestCounters, metricsText } from '../../../src/pipelines/metrics.js';
import { VirtualClock } from '../../../simulator/clock.js';

describe('clockScheduler', () => {
  it('runs RxJS time on the process clock: nothing fires until the clock is advanced', () => {
    const clock = new VirtualClock(1_000);
    const s = clockScheduler(clock);
    expect(s.now()).toBe(1_000);
    const seen: number[] = [];
    timer(500, s).subscribe(() => seen.push(clock.now()));
    clock.increment(499);
    expect(seen).toEqual([]);
    clock.increment(1);
    expect(seen).toEqual([1_500]);
  });

  it('supports rescheduling actions (interval) and cancellation by unsubscribe', () => {
    const clock = new VirtualClock(0);
    const s = clockScheduler(clock);
    const ticks: number[] = [];
    interval(100, s).pipe(take(3)).subscribe((n) => ticks.push(n));
    const cancelled: number[] = [];
    const sub = timer(150, s).subscribe(() => cancelled.push(1));
    sub.unsubscribe();
    clock.increment(1_000);
    expect(ticks).toEqual([0, 1, 2]);
    expect(cancelled).toEqual([]);
    expect(clock.nextAt()).toBeUndefined();
  });
});

describe('metricsText', () => {
  it('renders the counters and the per-table rows in the Prometheus text format', () => {
    const c = new IngestCounters();
    c.eventsReceived = 5;
    c.wrote('statistics', 3);
    c.wrote('state_radios', 6);
    const text = metricsText(c.snapshot(2));
    expect(text).toContain('# TYPE airtwin_ingest_rows_queued gauge\nairtwin_ingest_rows_queued 2\n');
    expect(text).toContain('airtwin_ingest_events_received 5\n');
    expect(text).toContain('airtwin_ingest_rows_written 9\n');
    expect(text).toContain('airtwin_ingest_table_rows_written{table="state_radios"} 6\n');
  });
});
