/**
 * Log lines for a person at a terminal: pino writes one JSON object per line, which is right for
 * files and collectors and hard to read between the banner's lines. On a terminal the command
 * hands pino this stream instead, which writes each record as one line:
 * `18:57:01.123 INFO  gateway  Server listening at http://127.0.0.1:16002  key=value ...`.
 */
import { Writable } from 'node:stream';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every record has, shown in the line's head or not at all. */
const HEAD = new Set(['level', 'time', 'pid', 'hostname', 'subsystem', 'msg', 'v']);

const pad2 = (n: number) => String(n).padStart(2, '0');

function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One pino JSON line as a readable line (with the stack of an `err` below it); other text as it is. */
export function formatLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line.endsWith('\n') ? line : `${line}\n`;
    record = parsed as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[record.level as number] ?? String(record.level ?? '');
  const time = typeof record.time === 'number' ? clockTime(record.time) : '';
  const subsystem = typeof record.subsystem === 'string' ? record.subsystem : '';
  const msg = typeof record.msg === 'string' ? record.msg : '';
  let stack = '';
  const fields: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (HEAD.has(key)) continue;
    const err = value as { message?: unknown; stack?: unknown } | null;
    if ((key === 'err' || key === 'error') && err && typeof err === 'object' && typeof err.message === 'string') {
      fields.push(`${key}=${show(err.message)}`);
      if (typeof err.stack === 'string') stack = `${err.stack.split('\n').slice(1).map((l) => `    ${l.trim()}`).join('\n')}\n`;
      continue;
    }
    fields.push(`${key}=${show(value)}`);
  }
  const head = [time, level.padEnd(5), subsystem === '' ? '' : subsystem.padEnd(9), msg].filter((p) => p !== '').join(' ');
  return `${head}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n${stack}`;
}

/** A stream for pino that writes each record to `out` as formatLogLine does. */
export function humanLogLines(out: NodeJS.WritableStream): Writable {
  let partial = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(formatLogLine(line));
      done();
    },
    final(done) {
      if (partial !== '') out.write(formatLogLine(partial));
      done();
    },
  });
}
