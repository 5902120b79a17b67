import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { batchBy, runBatches } from '../../../src/pipelines/batch.js';
import { clockScheduler } from '../../../src/pipelines/clock-scheduler.js';
import { VirtualClock } from '../../../simulator/clock.js';

const marbles = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('batchBy (marbles)', () => {
  it('emits a batch as soon as it holds maxRows items', () => {
    const ts = marbles();
    ts.run(({ cold, expectObservable }) => {
      const src = cold('a-b-c-d-e-f-|');
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 3, maxDelayMs: 1000 }))).toBe('----x-----y-|', {
        x: ['a', 'b', 'c'],
        y: ['d', 'e', 'f'],
      });
    });
  });

  it('emits a partial batch maxDelayMs after its first item, and nothing while idle', () => {
    const ts = marbles();
    ts.run(({ cold, expectObservable }) => {
      const src = cold('a-b 20ms c 30ms |');
      // a at 0, b at 2: timer from 0 fires at 10. c at 23: timer fires at 33. Complete at 54, nothing left.
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 100, maxDelayMs: 10 }))).toBe('10ms x 22ms y 20ms |', {
        x: ['a', 'b'],
        y: ['c'],
      });
    });
  });

  it('flushes the remainder when the source completes, before the time limit', () => {
    const ts = marbles();
    ts.run(({ cold, expectObservable }) => {
      const src = cold('a-b-|');
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 10, maxDelayMs: 1000 }))).toBe('----(x|)', { x: ['a', 'b'] });
    });
  });

  it('flushes the remainder when the source errors, then errors', () => {
    const ts = marbles();
    ts.run(({ cold, expectObservable }) => {
      const src = cold('a-#');
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 10, maxDelayMs: 1000 }))).toBe('--(x#)', { x: ['a'] });
    });
  });

  it('counts rows by weight: one heavy item closes the batch', () => {
    const ts = marbles();
    ts.run(({ cold, expectObservable }) => {
      const src = cold('a-b-c-|', { a: 1, b: 5, c: 2 });
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 5, maxDelayMs: 1000, weight: (n: number) => n }))).toBe('--x---(y|)', {
        x: [1, 5],
        y: [2],
      });
    });
  });

  it('closes the current batch on each flush$ emission', () => {
    const ts = marbles();
    ts.run(({ cold, hot, expectObservable }) => {
      const src = cold('a-b-c-------|');
      const flush$ = hot('---f----f--');
      expectObservable(src.pipe(batchBy({ scheduler: ts, maxRows: 10, maxDelayMs: 1000, flush$ }))).toBe('---x----y---|', {
        x: ['a', 'b'],
        y: ['c'],
      });
    });
  });
});

describe('runBatches', () => {
  it('writes batches one at a time on the clock scheduler and reports the backlog', async () => {
    const clock = new VirtualClock(0);
    const events = new Subject<number>();
    const written: number[][] = [];
    let release!: () => void;
    let gate = Promise.resolve();
    const run = runBatches(events, async (b) => {
      await gate;
      written.push(b);
    }, { scheduler: clockScheduler(clock), maxRows: 2, maxDelayMs: 500 });

    gate = new Promise<void>((r) => (release = r));
    events.next(1);
    events.next(2); // size limit: first batch handed to the (blocked) sink
    events.next(3);
    expect(run.backlog).toBe(3);
    clock.increment(499);
    expect(written).toEqual([]);
    clock.increment(1); // time limit: [3] waits behind the first batch
    release();
    await run.flush();
    expect(written).toEqual([[1, 2], [3]]);
    expect(run.backlog).toBe(0);
  });

  it('merges the batches that queued behind a busy sink into one write, up to coalesceRows', async () => {
    const clock = new VirtualClock(0);
    const events = new Subject<number>();
    const written: number[][] = [];
    let release!: () => void;
    let gate = new Promise<void>((r) => (release = r));
    const run = runBatches(events, async (b) => {
      await gate;
      written.push(b);
    }, { scheduler: clockScheduler(clock), maxRows: 2, maxDelayMs: 500, coalesceRows: 5 });
    for (let i = 1; i <= 8; i++) events.next(i); // [1,2] is being written; [3,4] [5,6] [7,8] wait
    expect(run.backlog).toBe(8);
    gate = Promise.resolve();
    release();
    await run.flush();
    // 3..6 fit in one write of at most 5 rows; [7,8] would make 6, so it goes next.
    expect(written).toEqual([[1, 2], [3, 4, 5, 6], [7, 8]]);
    expect(run.backlog).toBe(0);
  });

  it('stop() writes everything received and nothing after', async () => {
    const clock = new VirtualClock(0);
    const events = new Subject<string>();
    const written: string[] = [];
    const run = runBatches(events, async (b) => {
      written.push(...b);
    }, { scheduler: clockScheduler(clock), maxRows: 100, maxDelayMs: 60_000 });
    events.next('a');
    events.next('b');
    await run.stop();
    events.next('late');
    expect(written).toEqual(['a', 'b']);
    expect(run.backlog).toBe(0);
  });

  it('keeps going after a sink rejection and reports it', async () => {
    const clock = new VirtualClock(0);
    const events = new Subject<number>();
    const errors: unknown[] = [];
    const written: number[] = [];
    const run = runBatches(events, async (b) => {
      if (b.includes(1)) throw new Error('boom');
      written.push(...b);
    }, { scheduler: clockScheduler(clock), maxRows: 1, maxDelayMs: 10, onError: (e) => errors.push(e) });
    events.next(1);
    events.next(2);
    await run.flush();
    expect(errors).toHaveLength(1);
    expect(written).toEqual([2]);
  });
});
