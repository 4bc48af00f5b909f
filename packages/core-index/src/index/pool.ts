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

/**
 * The one bounded queue (issue 25): for work that arrives over time rather than as a list, at most `limit` at once,
 * the waiting ones started in arrival order. `boundedAll` is for a known list; this is for a stream of calls (the
 * upstream client's requests, the index run's secondary-source lookups).
 */
export class BoundedQueue {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  readonly limit: number;

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit) || 1);
  }

  /** Wait for a slot (first come, first served); pair with {@link release}. */
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Give the slot to the next waiting call, or free it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Run `fn` in a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
