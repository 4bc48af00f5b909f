/**
 * HTTP to the upstream model host for the index run: bounded concurrency, `Retry-After` honoured,
 * exponential backoff with jitter on 429, 5xx and network errors. Time is injected, so tests prove
 * the waits without waiting.
 */

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface UpstreamClientOptions {
  fetch: typeof fetch;
  clock?: Clock;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Attempts after the first on 429/5xx/network errors (default 6). */
  retries?: number;
  /** First backoff step in ms (default 1000); doubles each attempt. */
  baseDelayMs?: number;
  /** Longest backoff step in ms (default 60 000). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this (ms) is not waited for: the request fails (default 15 min). */
  maxRetryAfterMs?: number;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /** Per-attempt timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Extra headers on every request (for example a User-Agent or an Authorization for a private mirror). */
  headers?: Record<string, string>;
  /** Told about every wait, for logs. */
  onWait?: (info: { url: string; status: number | 'network'; waitMs: number; attempt: number; retryAfter: boolean }) => void;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | 'network',
  ) {
    super(message);
  }
}

export interface UpstreamStats {
  requests: number;
  retries: number;
  waitedMs: number;
  bytes: number;
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The absolute `rel="next"` URL of a `Link` header, resolved against the request URL. */
export function nextLink(link: string | null, base: string): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!m) continue;
    const rels = /\brel\s*=\s*"?([^";]+)"?/i.exec(m[2] as string)?.[1]?.split(/\s+/) ?? [];
    if (rels.includes('next')) return new URL(m[1] as string, base).toString();
  }
  return undefined;
}

function headerObject(h: RequestInit['headers']): Record<string, string> {
  if (!h) return {};
  if (Array.isArray(h)) return Object.fromEntries(h as [string, string][]);
  if (typeof (h as Headers).forEach === 'function') {
    const out: Record<string, string> = {};
    (h as Headers).forEach((v, k) => {
      out[k] = v;
    });
    return out;
  }
  return { ...(h as Record<string, string>) };
}

function retryable(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status !== 501);
}

export class UpstreamClient {
  readonly clock: Clock;
  readonly stats: UpstreamStats = { requests: 0, retries: 0, waitedMs: 0, bytes: 0 };
  private readonly fetchImpl: typeof fetch;
  private readonly limit: number;
  private active = 0;
  private readonly queue: Array<() => void> = [];
  /** A 429 with `Retry-After` pauses every request until then, not only the one that got it. */
  private pausedUntil = 0;

  constructor(private readonly options: UpstreamClientOptions) {
    this.fetchImpl = options.fetch;
    this.clock = options.clock ?? systemClock;
    this.limit = Math.max(1, options.concurrency ?? 8);
  }

  private async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }

  private backoff(attempt: number): number {
    const base = this.options.baseDelayMs ?? 1000;
    const max = this.options.maxDelayMs ?? 60_000;
    const step = Math.min(max, base * 2 ** attempt);
    // "Equal jitter": half the step fixed, half random, so waits grow but never synchronise.
    return Math.round(step / 2 + (this.options.random ?? Math.random)() * (step / 2));
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.stats.waitedMs += ms;
    await this.clock.sleep(ms);
  }

  /**
   * One request with retries. Answers with the first response that is not 429/5xx (a 404 is returned,
   * not thrown); throws {@link UpstreamError} when the retries run out.
   */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const retries = this.options.retries ?? 6;
    const maxRetryAfter = this.options.maxRetryAfterMs ?? 15 * 60_000;
    for (let attempt = 0; ; attempt++) {
      const pause = this.pausedUntil - this.clock.now();
      if (pause > 0) await this.wait(pause);
      await this.acquire();
      let res: Response | undefined;
      let failure: unknown;
      try {
        this.stats.requests++;
        const headers = { ...(this.options.headers ?? {}), ...headerObject(init.headers) };
        const signal = init.signal ?? AbortSignal.timeout(this.options.timeoutMs ?? 120_000);
        res = await this.fetchImpl(url, { ...init, headers, signal });
      } catch (e) {
        failure = e;
      } finally {
        this.release();
      }
      if (res && !retryable(res.status)) return res;
      const status: number | 'network' = res ? res.status : 'network';
      if (attempt >= retries) {
        void res?.body?.cancel().catch(() => {});
        const why = res ? `HTTP ${res.status}` : `network error (${(failure as Error)?.message ?? String(failure)})`;
        throw new UpstreamError(`${url}: ${why} after ${attempt + 1} attempts`, url, status);
      }
      let waitMs = this.backoff(attempt);
      let fromHeader = false;
      if (res) {
        const ra = parseRetryAfter(res.headers.get('retry-after'), this.clock.now());
        void res.body?.cancel().catch(() => {});
        if (ra !== undefined) {
          if (ra > maxRetryAfter) {
            throw new UpstreamError(
              `${url}: HTTP ${res.status} with Retry-After of ${Math.round(ra / 1000)} s, longer than the ${Math.round(maxRetryAfter / 1000)} s allowed`,
              url,
              res.status,
            );
          }
          waitMs = ra;
          fromHeader = true;
          if (res.status === 429) this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ra);
        }
      }
      this.stats.retries++;
      this.options.onWait?.({ url, status, waitMs, attempt: attempt + 1, retryAfter: fromHeader });
      await this.wait(waitMs);
    }
  }

  /** GET and parse JSON; a non-2xx answer throws {@link UpstreamError} with its status. */
  async json<T>(url: string): Promise<{ value: T; response: Response }> {
    const res = await this.request(url, { headers: { accept: 'application/json' } });
    if (!res.ok) {
      void res.body?.cancel().catch(() => {});
      throw new UpstreamError(`${url}: HTTP ${res.status}`, url, res.status);
    }
    const text = await res.text();
    this.stats.bytes += text.length;
    try {
      return { value: JSON.parse(text) as T, response: res };
    } catch {
      throw new UpstreamError(`${url}: the answer is not JSON`, url, res.status);
    }
  }

  /** Every page of a JSON-array listing, following `Link: <…>; rel="next"` (at most `maxPages`). */
  async *pages<T>(url: string, maxPages = 10_000): AsyncGenerator<T[]> {
    let next: string | undefined = url;
    for (let i = 0; next && i < maxPages; i++) {
      const { value, response } = await this.json<T[]>(next);
      if (!Array.isArray(value)) throw new UpstreamError(`${next}: expected a JSON array`, next, response.status);
      yield value;
      next = nextLink(response.headers.get('link'), next);
    }
  }

  /** A `fetch` for libraries (such as the GGUF reader) that goes through the limits and retries and fails on non-2xx. */
  asFetch(): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
      const res = await this.request(url, init);
      if (!res.ok) {
        void res.body?.cancel().catch(() => {});
        throw new UpstreamError(`${url}: HTTP ${res.status}`, url, res.status);
      }
      return res;
    }) as typeof fetch;
  }
}
