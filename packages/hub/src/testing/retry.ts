/**
 * A test client's tries of one request over a keep-alive connection the host may have closed under it: a host that
 * answers before reading a whole request body (an early 413 or 4xx) may reset the connection, and the client's next
 * request on it fails as a network error (fetch: `TypeError: fetch failed`) though the host did nothing wrong; a
 * browser retries such a request on a new connection too. Only that error is tried again, after each pause in turn
 * (five tries by default: workerd's early 413 on an oversized body was reset three times in a row once, on a loaded
 * machine); any other failure, and an answer of any status, comes back at once.
 */
export async function withRetries<T>(send: () => Promise<T>, pausesMs: readonly number[] = [100, 300, 1000, 2000]): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await send();
    } catch (e) {
      const pause = pausesMs[i];
      if (pause === undefined || !isNetworkError(e)) throw e;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/** fetch's network error (undici): the connection failed, no answer was read. */
function isNetworkError(e: unknown): boolean {
  return e instanceof TypeError && e.message === 'fetch failed';
}
