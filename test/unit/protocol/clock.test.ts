import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandService } from '../../../actors/command-service.js';
import { Fleet } from '../../../actors/fleet.js';
import { VirtualClock } from '../../../simulator/clock.js';
import { every, wallClock } from '../../../src/protocol/clock.js';
import { FakeLink } from '../../helpers/fake-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';

const DAY = 24 * 3_600_000;

// Fake timers behave as Node's do past 2^31 - 1 ms (~24.8 days): such a timer runs after 1 ms.
beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('wallClock.setTimeout', () => {
  it('runs a timer longer than a 32-bit delay when it is due, not at once', () => {
    const fired: number[] = [];
    wallClock.setTimeout(() => fired.push(Date.now()), 40 * DAY);
    vi.advanceTimersByTime(DAY);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(39 * DAY - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([1_700_000_000_000 + 40 * DAY]);
  });

  it('cancels a long timer in any of its steps', () => {
    let fired = 0;
    const id = wallClock.setTimeout(() => fired++, 60 * DAY);
    vi.advanceTimersByTime(30 * DAY);
    wallClock.clearTimeout(id);
    vi.advanceTimersByTime(60 * DAY);
    expect(fired).toBe(0);
  });
});

describe('a command scheduled beyond 24.8 days on the wall clock', () => {
  it('stays pending until its `when`, then runs', async () => {
    const serial = '112233445566';
    let n = 0;
    const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const fleet = new Fleet({ clock: wallClock, newId });
    const store = new MemoryCommandStore();
    const svc = new CommandService({ fleet, store, clock: wallClock, newId });
    const link = new FakeLink(serial, () => Date.now());
    fleet.attach(link);
    link.up();
    link.connect();
    await vi.advanceTimersByTimeAsync(10);
    const when = Math.floor(Date.now() / 1000) + 30 * 24 * 3600;
    const cmd = await svc.reboot(serial, { when });
    expect(cmd.status).toBe('pending');
    await vi.advanceTimersByTimeAsync(DAY);
    expect(store.get(cmd.UUID)?.status).toBe('pending');
    expect(link.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(29 * DAY);
    expect(link.last()).toMatchObject({ method: 'reboot', params: { when } });
    fleet.stopAll();
  });
});

describe('every', () => {
  it('runs at each period on the clock it is given, and not once stopped', () => {
    const clock = new VirtualClock(0);
    const ran: number[] = [];
    const stop = every(clock, 50, () => ran.push(clock.now()));
    clock.increment(175);
    expect(ran).toEqual([50, 100, 150]);
    stop();
    clock.increment(1_000);
    expect(ran).toEqual([50, 100, 150]);
    expect(clock.nextAt()).toBeUndefined();
  });

  it('can be stopped from inside its own run', () => {
    const clock = new VirtualClock(0);
    let runs = 0;
    const stop = every(clock, 10, () => { if (++runs === 2) stop(); });
    clock.increment(100);
    expect(runs).toBe(2);
  });
});
