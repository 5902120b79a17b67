import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** The outcome of checking a document against a protocol schema. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * A parser for one schema: the typed value, or every problem as "field /a/0/b: why" (the
 * project-wide wording of input errors). The validator is compiled on first
 * use, so importing a schema module costs nothing.
 */
export function parserFor<S extends TSchema>(schema: S): (doc: unknown) => Parsed<Static<S>> {
  let compiled: { Check(v: unknown): boolean; Errors(v: unknown): { instancePath: string; message: string }[] } | undefined;
  return (doc) => {
    const validator = (compiled ??= Compile(schema));
    if (validator.Check(doc)) return { ok: true, value: doc as Static<S> };
    const errors = validator.Errors(doc).map((e) => `field ${e.instancePath === '' ? '/' : e.instancePath}: ${e.message}`);
    return { ok: false, errors: errors.length > 0 ? errors : ['field /: does not match the schema'] };
  };
}

/** A colon-separated MAC address as uCentral writes them (bssid, station, macaddr). */
export const MAC_PATTERN = '^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$';
