/**
 * Polls `read` until `ok` holds; fails with what it waited for and the last value after
 * `timeoutMs` of wall time. Integration tests wait on real servers this way instead of sleeping.
 */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await read();
  }
  return last;
}
