/**
 * Schedule validation (invalid cron expressions are rejected when set, 400). Upstream uses Quartz
 * crons (6–7 fields, `?` in day-of-month or day-of-week, optional year,
 * docs/upstream.md#rrm-schedules) and silently skips invalid ones; we parse with cron-parser, which
 * accepts 5- or 6-field expressions and `?`. A 7th Quartz year field is accepted when it is `*` and
 * dropped.
 */
import { CronExpressionParser } from 'cron-parser';
import { badRequest } from '../../errors.js';
import type { Schedule } from '../schemas/device-config.js';

/** The expression cron-parser understands, or an error naming why. */
export function toCronParserExpression(expr: string): string {
  const fields = expr.trim().split(/\s+/);
  if (fields.length === 7) {
    if (fields[6] !== '*' && fields[6] !== '?') {
      throw new Error('a Quartz year field other than * is not supported');
    }
    fields.pop();
  }
  if (fields.length < 5 || fields.length > 6) throw new Error(`expected 5 to 7 fields, got ${fields.length}`);
  return fields.join(' ');
}

/** Throws BAD_REQUEST naming the expression when it cannot be parsed. */
export function validateCron(expr: string, field = 'schedule.crons'): void {
  try {
    CronExpressionParser.parse(toCronParserExpression(expr), { currentDate: 0, tz: 'UTC' });
  } catch (e) {
    throw badRequest(field, `Invalid cron expression '${expr}': ${(e as Error).message}`);
  }
}

/** Every cron of a schedule (the spec's `cron` and the persisted `crons`). */
export const scheduleCrons = (s: Schedule | null | undefined): string[] =>
  s ? [...(s.cron !== undefined ? [s.cron] : []), ...(s.crons ?? [])] : [];

export function validateSchedule(s: Schedule, knownAlgorithms: readonly string[]): void {
  scheduleCrons(s).forEach((c, i) => validateCron(c, s.cron !== undefined && i === 0 ? 'schedule.cron' : 'schedule.crons'));
  for (const [i, a] of (s.algorithms ?? []).entries()) {
    if (!knownAlgorithms.includes(a.name)) {
      throw badRequest(`schedule.algorithms[${i}].name`, `Unknown algorithm '${a.name}'; expected one of ${knownAlgorithms.join(', ')}.`);
    }
  }
}

/**
 * Next time (epoch ms, strictly after `afterMs`) a cron fires, in UTC, or null when it never
 * does. The scheduler calls this with the shared clock's now, so an accelerated simulation runs
 * schedules faster.
 */
export function nextFireTime(expr: string, afterMs: number): number | null {
  try {
    const it = CronExpressionParser.parse(toCronParserExpression(expr), { currentDate: afterMs, tz: 'UTC' });
    return it.hasNext() ? it.next().getTime() : null;
  } catch {
    return null;
  }
}

/**
 * The algorithm runs a schedule asks for (docs/upstream.md#rrm-schedules): its list, or
 * OptimizeChannel then OptimizeTxPower with default modes when the list is missing or empty.
 * Missing args are `{}` (upstream failed with "Null algorithm name or arguments?", docs/rrm.md).
 */
export function scheduledRuns(s: Schedule | null | undefined): { name: string; args: Record<string, string> }[] {
  const list = s?.algorithms ?? [];
  if (list.length === 0) return [{ name: 'OptimizeChannel', args: {} }, { name: 'OptimizeTxPower', args: {} }];
  return list.map((a) => ({ name: a.name, args: { ...(a.args ?? {}) } }));
}
