import { pino, type Logger, type LevelWithSilent } from 'pino';

/** Subsystems whose log level can be changed at runtime (POST /system setloglevel). */
export const SUBSYSTEMS = ['gateway', 'rrm', 'auth', 'store', 'fleet', 'commands', 'pipelines', 'simulator', 'links', 'scheduler'] as const;
export type Subsystem = (typeof SUBSYSTEMS)[number];
export const LEVEL_NAMES: LevelWithSilent[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export interface Logging {
  root: Logger;
  for(subsystem: Subsystem): Logger;
  setLevel(subsystem: Subsystem | 'all', level: LevelWithSilent): void;
  levels(): { tag: Subsystem; value: string }[];
}

/** One pino root with a child per subsystem, each with its own level. */
export function createLogging(level: LevelWithSilent, destination?: NodeJS.WritableStream): Logging {
  const root = destination ? pino({ level }, destination as pino.DestinationStream) : pino({ level });
  const children = new Map<Subsystem, Logger>(SUBSYSTEMS.map((s) => [s, root.child({ subsystem: s }, { level })]));
  return {
    root,
    for: (subsystem) => children.get(subsystem)!,
    setLevel(subsystem, lvl) {
      for (const [name, child] of children) if (subsystem === 'all' || subsystem === name) child.level = lvl;
    },
    levels: () => [...children].map(([tag, child]) => ({ tag, value: child.level })),
  };
}
