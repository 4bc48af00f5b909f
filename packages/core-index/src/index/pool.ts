/**
 * The one bounded worker pool (issue 13): `fn` over `items`, at most `limit` at once, taken in item order; the
 * results by index. The first failure stops new work and aborts `signal` (so running work can stop early); it is
 * thrown once the running calls have ended. Used by the index loader, the index run (models and small files), the
 * prober and `@hub/client`'s downloads.
 */
export async function boundedAll<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  const abort = new AbortController();
  let next = 0;
  let failure: { e: unknown } | undefined;
  const worker = async () => {
    for (;;) {
      if (failure) return;
      const i = next++;
      if (i >= items.length) return;
      try {
        out[i] = await fn(items[i] as T, i, abort.signal);
      } catch (e) {
        if (!failure) {
          failure = { e };
          abort.abort(e);
        }
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(limit) || 1, items.length)) }, worker));
  if (failure) throw failure.e;
  return out;
}
