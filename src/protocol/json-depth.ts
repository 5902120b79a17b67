/**
 * A JSON document nested 10,000 levels deep parses, but recursive code after it (validation,
 * configuration checks, serialising it back for storage) overflows the stack. No document airtwin
 * takes (request bodies, configurations and payloads sent as JSON text) nests anywhere near this.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep `text` (JSON) nests, counted without parsing it: brackets outside strings. Stops
 * counting past `limit` (the answer is then `limit + 1`).
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return max;
}

