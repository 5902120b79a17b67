import type { Store } from './duckdb.js';
import type { Command } from './records.js';

const COLUMNS: [keyof Command, string][] = [
  ['UUID', 'uuid'], ['serialNumber', 'serial'], ['command', 'command'], ['status', 'status'],
  ['submittedBy', 'submitted_by'], ['details', 'details'], ['results', 'results'], ['errorText', 'error_text'],
  ['errorCode', 'error_code'], ['submitted', 'submitted'], ['executed', 'executed'], ['completed', 'completed'],
  ['when', 'run_at'], ['custom', 'custom'], ['waitingForFile', 'waiting_for_file'], ['attachFile', 'attach_file'],
  ['attachSize', 'attach_size'], ['attachType', 'attach_type'], ['executionTime', 'execution_time'], ['lastTry', 'last_try'],
  ['deferred', 'deferred'],
];
const SELECT = `SELECT ${COLUMNS.map(([, c]) => c).join(', ')} FROM commands`;

function fromRow(row: Record<string, unknown>): Command {
  const c: Record<string, unknown> = {};
  for (const [field, column] of COLUMNS) c[field] = row[column];
  return c as Command;
}

function toParams(c: Command): (string | number | boolean)[] {
  return COLUMNS.map(([field]) => c[field]);
}

export interface CommandQuery {
  /** Only this device's commands (a filter: an unknown serial gives an empty list). */
  serial?: string;
  /** Epoch seconds, inclusive, on `submitted`. */
  startDate?: number;
  endDate?: number;
  /** 1-based; 0 or absent reads as 1. */
  offset?: number;
  /** Absent: all. */
  limit?: number;
  /** Newest first (submitted desc) instead of oldest first. */
  newest?: boolean;
}

function where(q: Pick<CommandQuery, 'serial' | 'startDate' | 'endDate'>): { sql: string; params: (string | number)[] } {
  const terms: string[] = [];
  const params: (string | number)[] = [];
  const add = (term: string, value: string | number) => {
    params.push(value);
    terms.push(term.replace('?', `$${params.length}`));
  };
  if (q.serial !== undefined) add('serial = ?', q.serial);
  if (q.startDate !== undefined) add('submitted >= ?', q.startDate);
  if (q.endDate !== undefined) add('submitted <= ?', q.endDate);
  return { sql: terms.length ? ` WHERE ${terms.join(' AND ')}` : '', params };
}

/**
 * The command history in DuckDB. Implements actors' CommandStore port (`insert` once, then
 * `update`s with the whole record), so the command service persists here, and answers the
 * history API (spec "Commands history").
 */
export class CommandsRepo {
  constructor(private readonly store: Store) {}

  /** CommandStore: a new record. A second insert of the same UUID fails (primary key). */
  async insert(command: Command): Promise<void> {
    const placeholders = COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    await this.store.run(`INSERT INTO commands (${COLUMNS.map(([, c]) => c).join(', ')}) VALUES (${placeholders})`, toParams(command));
  }

  /** CommandStore: replaces the record with the same UUID (the whole record arrives each time). */
  async update(command: Command): Promise<void> {
    const sets = COLUMNS.slice(1).map(([, c], i) => `${c} = $${i + 2}`).join(', ');
    await this.store.run(`UPDATE commands SET ${sets} WHERE uuid = $1`, toParams(command));
  }

  async get(uuid: string): Promise<Command | undefined> {
    const rows = await this.store.query(`${SELECT} WHERE uuid = $1`, [uuid]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /** Commands not ended yet (`pending` or `executed`), oldest first: what a start reopens (CommandService.restore). */
  async open(): Promise<(Command & { status: 'pending' | 'executed' })[]> {
    const rows = await this.store.query(`${SELECT} WHERE status IN ('pending', 'executed') ORDER BY submitted, uuid`);
    return rows.map((r) => fromRow(r) as Command & { status: 'pending' | 'executed' });
  }

  /** Oldest first by `submitted` (newest first with `newest`), ties by UUID for a stable order. */
  async list(q: CommandQuery = {}): Promise<Command[]> {
    const w = where(q);
    const dir = q.newest ? 'DESC' : 'ASC';
    const n = w.params.length;
    const rows = await this.store.query(
      `${SELECT}${w.sql} ORDER BY submitted ${dir}, uuid ${dir} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...w.params, q.limit ?? null, Math.max(1, q.offset ?? 1) - 1],
    );
    return rows.map(fromRow);
  }

  /** Deletes one command and the file uploaded for it; false when there was none. */
  async delete(uuid: string): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      await tx.run('DELETE FROM files WHERE uuid = $1', [uuid]);
      return (await tx.run('DELETE FROM commands WHERE uuid = $1', [uuid])) > 0;
    });
  }

  /** Deletes a device's commands submitted in the range, and their files; returns how many. */
  async deleteRange(q: Required<Pick<CommandQuery, 'serial'>> & Pick<CommandQuery, 'startDate' | 'endDate'>): Promise<number> {
    const w = where(q);
    return this.store.transaction(async (tx) => {
      await tx.run(`DELETE FROM files WHERE uuid IN (SELECT uuid FROM commands${w.sql})`, w.params);
      return tx.run(`DELETE FROM commands${w.sql}`, w.params);
    });
  }

  /** Count per command name (the dashboard's `commands`). */
  async countByCommand(): Promise<{ command: string; count: number }[]> {
    return this.store.query<{ command: string; count: number }>('SELECT command, count(*) AS count FROM commands GROUP BY command ORDER BY command');
  }
}
