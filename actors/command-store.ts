import type { Command } from './device/device.types.js';

/**
 * The port through which the command service keeps the command history (spec "Commands
 * history"). The DuckDB repository in src/store/ implements it; actor tests use an in-memory one.
 * Calls for one command arrive in order: `insert` once, then `update`s with the whole record.
 */
export interface CommandStore {
  insert(command: Command): Promise<void>;
  update(command: Command): Promise<void>;
}

export type { Command };
