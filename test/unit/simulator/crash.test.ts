import { describe, expect, it } from 'vitest';
import { runVenue } from '../../../simulator/run.js';
import { loadScenario } from '../../../simulator/scenario.js';

describe('simulated crashes (crashesPerDay)', () => {
  it('drop the AP, bring it back after a boot, then send a crashlog with kernel lines', () => {
    const scenario = { ...loadScenario('lab').scenario, crashesPerDay: 24 };
    const recs: any[] = [];
    runVenue({ scenario, durationMs: 3 * 3_600_000, onLine: (l) => recs.push(JSON.parse(l)) });
    const crash = recs.find((r) => r.frame?.method === 'crashlog');
    expect(crash).toBeDefined();
    const mine = recs.filter((r) => r.serial === crash.serial);
    const i = mine.indexOf(crash);
    // the crash log follows a disconnect, then the reconnect: event, connect frame, boot log, boot-up event
    expect(mine.slice(0, i).map((r) => r.event ?? r.frame.method).slice(-5)).toEqual(['disconnect', 'connect', 'connect', 'log', 'event']);
    expect(crash.t - mine[i - 5].t).toBeGreaterThanOrEqual(45_000); // it took a boot
    expect(crash.frame.params.loglines.some((l: string) => l.includes('Kernel panic'))).toBe(true);
  });
});
