import { describe, expect, it } from 'vitest';
import { nextFireTime, scheduleCrons, scheduledRuns, validateCron } from '../../../../src/rrm/config/schedule.js';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

describe('schedule', () => {
  it('computes the next fire time from a given instant (Quartz 6/7 fields and Linux 5 fields)', () => {
    expect(nextFireTime('0 */10 * ? * *', T0)).toBe(T0 + 10 * 60_000);
    expect(nextFireTime('0 */10 * ? * * *', T0 + 1)).toBe(T0 + 10 * 60_000);
    expect(nextFireTime('30 2 * * *', T0)).toBe(T0 + (2 * 60 + 30) * 60_000);
    expect(nextFireTime('not a cron', T0)).toBeNull();
  });

  it('validates crons with a coded 400', () => {
    expect(() => validateCron('0 0 25 * * *')).toThrowError(/Invalid cron expression/);
    expect(() => validateCron('0 0 12 ? * MON-FRI')).not.toThrow();
    expect(() => validateCron('* * * * * * 2030')).toThrowError(/year/);
  });

  it('joins the spec cron and the persisted crons', () => {
    expect(scheduleCrons({ cron: 'a', crons: ['b'] })).toEqual(['a', 'b']);
    expect(scheduleCrons(null)).toEqual([]);
  });

  it('defaults to channel then tx power, and tolerates missing args', () => {
    expect(scheduledRuns({ crons: ['x'] }).map((r) => r.name)).toEqual(['OptimizeChannel', 'OptimizeTxPower']);
    expect(scheduledRuns({ algorithms: [{ name: 'OptimizeTxPower' }] })).toEqual([{ name: 'OptimizeTxPower', args: {} }]);
  });
});
