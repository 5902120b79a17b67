/**
 * Optimizer plug-ins (docs/rrm.md "Your own optimizer"): a TypeScript or JavaScript module that
 * exports an optimizer with the same pure interface as the built-in modes. Loaded by
 * `serve --rrm-plugin <file>` (config `rrmPlugin`, env AIRTWIN_RRM_PLUGIN) and by
 * `airtwin arena --rrm-plugin <file>`, it becomes a mode of its algorithm type: listed by
 * /algorithms, run by runRRM / optimizeChannel / optimizeTxPower, scored, kept in the run history.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ArgSpec } from './args.js';
import type { AlgorithmInput, Plan } from './common.js';

export type { AlgorithmInput, Plan, Rng } from './common.js';
export type { ArgSpec } from './args.js';

/** What a plug-in module exports (as `optimizer`, `optimizers` or its default export). */
export interface RrmOptimizer {
  /** The mode name (`mode=<name>`): lower case letters, digits, `_` and `-`. */
  name: string;
  algorithm: 'OptimizeChannel' | 'OptimizeTxPower';
  description?: string;
  /** Its arguments (`k=v` in runRRM args), validated like the built-in ones. */
  args?: Record<string, ArgSpec>;
  /**
   * Pure: the plan from the model, the zone, the effective configs, a seeded rng and the
   * arguments; no clock, no I/O, no Math.random (the same seed must give the same plan).
   */
  run(input: AlgorithmInput<Record<string, boolean | number>>): Plan;
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

function isOptimizer(v: unknown): v is RrmOptimizer {
  const o = v as Partial<RrmOptimizer> | null;
  return !!o && typeof o === 'object' && typeof o.name === 'string' && typeof o.run === 'function'
    && (o.algorithm === 'OptimizeChannel' || o.algorithm === 'OptimizeTxPower');
}

/** The optimizers a module exports; an Error naming the file when it exports none or a bad one. */
export async function loadPluginFile(file: string): Promise<RrmOptimizer[]> {
  const url = pathToFileURL(resolve(file)).href;
  let mod: Record<string, unknown>;
  try {
    mod = await import(url) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--rrm-plugin ${file}: cannot load it: ${(e as Error).message}`, { cause: e });
  }
  const found = [mod.optimizer, ...(Array.isArray(mod.optimizers) ? mod.optimizers : []), mod.default].filter((v) => v !== undefined);
  const out = found.filter(isOptimizer);
  if (out.length === 0 || out.length !== found.length) {
    throw new Error(`--rrm-plugin ${file}: export an optimizer ({name, algorithm: 'OptimizeChannel' | 'OptimizeTxPower', run}) as \`optimizer\`, \`optimizers\` or the default export`);
  }
  for (const o of out) if (!NAME.test(o.name)) throw new Error(`--rrm-plugin ${file}: mode name '${o.name}' must match ${String(NAME)}`);
  return [...new Map(out.map((o) => [o.name, o])).values()];
}
