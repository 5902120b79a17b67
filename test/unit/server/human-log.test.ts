import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { formatLogLine, humanLogLines } from '../../../src/server/human-log.js';

describe('formatLogLine', () => {
  it('writes time, level, subsystem and message, then the other fields', () => {
    const time = new Date(2026, 10, 28, 9, 5, 7, 42).getTime();
    const line = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', subsystem: 'links', msg: 'replay skipped a line', line: 3, reason: 'not JSON' });
    expect(formatLogLine(line)).toBe('09:05:07.042 WARN  links     replay skipped a line  line=3 reason="not JSON"\n');
  });

  it('shows an error\'s message as a field and its stack below the line', () => {
    const err = { type: 'Error', message: 'disk full', stack: 'Error: disk full\n    at write (file.ts:1:1)' };
    const out = formatLogLine(JSON.stringify({ level: 50, time: 0, msg: 'recording stopped', err }));
    expect(out).toMatch(/ERROR recording stopped {2}err="disk full"\n {4}at write \(file\.ts:1:1\)\n$/);
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(formatLogLine('plain text')).toBe('plain text\n');
  });
});

describe('humanLogLines', () => {
  it('takes pino\'s records and writes one readable line each', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const log = pino({ level: 'info' }, humanLogLines(out)).child({ subsystem: 'gateway' });
    log.info({ port: 16002 }, 'listening');
    log.debug('not shown');
    await new Promise((r) => setImmediate(r));
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}gateway {3}listening {2}port=16002\n$/);
  });
});
