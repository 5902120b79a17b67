/**
 * JSON documents the gateway stores as text (configurations, command details and results, state,
 * health check and log data, capabilities), embedded as the objects they hold, as upstream sends
 * them. Text that is not a JSON object or array stays the string it is.
 *
 * The same stored text is served again and again (a device's configuration on every GET), so
 * parsed documents are kept by their text, a bounded number of them, oldest dropped first.
 * Nothing may change a returned document: it is shared by every answer that embeds it.
 */
const CACHE_MAX = 1024;
/** Shorter texts parse faster than a cache lookup is worth keeping. */
const CACHE_MIN_LENGTH = 256;
const cache = new Map<string, unknown>();

export function embedJson(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof parsed !== 'object' || parsed === null) return text;
  if (text.length >= CACHE_MIN_LENGTH) {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(text, parsed);
  }
  return parsed;
}
