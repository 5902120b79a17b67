import type { Command, CommandStore } from '../../actors/command-store.js';

/** In-memory CommandStore for actor unit tests (integration tests use the DuckDB repository). */
export class MemoryCommandStore implements CommandStore {
  readonly rows = new Map<string, Command>();
  /** Every write in order, to check that an insert comes first and nothing is lost. */
  readonly log: { op: 'insert' | 'update'; command: Command }[] = [];

  async insert(command: Command): Promise<void> {
    if (this.rows.has(command.UUID)) throw new Error(`duplicate command ${command.UUID}`);
    this.rows.set(command.UUID, command);
    this.log.push({ op: 'insert', command });
  }

  async update(command: Command): Promise<void> {
    if (!this.rows.has(command.UUID)) throw new Error(`update of unknown command ${command.UUID}`);
    this.rows.set(command.UUID, command);
    this.log.push({ op: 'update', command });
  }

  get(uuid: string): Command | undefined {
    return this.rows.get(uuid);
  }
}
