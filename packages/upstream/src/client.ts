/**
 * HTTP to the upstream model host for the index run: bounded concurrency; the host's `RateLimit` /
 * `RateLimit-Policy` answers read per bucket (`api`, `resolvers`, `pages`), requests paced to the
 * quota left and paused until the window resets; `Retry-After` honoured where sent; exponential
 * backoff with jitter on 5xx and network errors. Time is injected, so tests prove the waits without
 * waiting.
 */

import { BoundedQueue } from '@hub/core-index';
import { errorOf, retryable, UpstreamError } from './errors.js';
import { type BucketState, bucketOf, parseRateLimit, parseRetryAfter, type RateLimitInfo } from './rate-limit.js';

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
  /** Extra headers on every request (for example a User-Agent). */
  headers?: Record<string, string>;
  /**
   * A read token for the upstream (`HF_TOKEN`): sent as `Authorization: Bearer …` only to `tokenOrigin`, never to
   * another host (a second source, a `Link` or redirect on another origin), never logged.
   */
  token?: string;
  /** The one origin the token goes to (required with `token`). */
  tokenOrigin?: string;
  /**
   * The run's deadline (ms since the epoch). A rate-limited request waits for its window as often as
   * needed while the wait ends before this; past it, the request fails (default: no deadline).
   */
  deadline?: number;
  /** Told about every wait, for logs. */
  onWait?: (info: WaitInfo) => void;
}

export interface WaitInfo {
  url: string;
  status: number | 'network' | 'paced';
  waitMs: number;
  attempt: number;
  retryAfter: boolean;
  /** the rate-limit bucket the wait is for, when it is one */
  bucket?: string;
}

export interface UpstreamStats {
  requests: number;
  /** answers that were 429 */
  rateLimited: number;
  retries: number;
  waitedMs: number;
  bytes: number;
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

/** One signal that aborts when any of these does (AbortSignal.any where the runtime has it). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any.call(AbortSignal, signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

export class UpstreamClient {
  readonly clock: Clock;
  readonly stats: UpstreamStats = { requests: 0, rateLimited: 0, retries: 0, waitedMs: 0, bytes: 0 };
  /** Per rate-limit bucket: what the host last said, and any pause. */
  readonly buckets = new Map<string, BucketState>();
  private readonly fetchImpl: typeof fetch;
  /** requests in flight at once (the one bounded queue of core-index) */
  private readonly slots: BoundedQueue;
  /** requests in flight per bucket (sent, no answer yet) */
  private readonly inflight = new Map<string, number>();

  constructor(private readonly options: UpstreamClientOptions) {
    this.fetchImpl = options.fetch;
    this.clock = options.clock ?? systemClock;
    this.slots = new BoundedQueue(options.concurrency ?? 8);
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

  /** The Authorization header for a URL: only on the token's own origin. */
  private authFor(url: string): Record<string, string> {
    const { token, tokenOrigin } = this.options;
    if (!token || !tokenOrigin) return {};
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return {};
    }
    return origin === new URL(tokenOrigin).origin ? { authorization: `Bearer ${token}` } : {};
  }

  private bucket(name: string): BucketState {
    let b = this.buckets.get(name);
    if (!b) {
      b = { remaining: Number.POSITIVE_INFINITY, resetAt: 0, pausedUntil: 0, sent: 0, limited: 0 };
      this.buckets.set(name, b);
    }
    return b;
  }

  private jitter(): number {
    // Up to a second, so the paused requests of a bucket do not all land in the window's first millisecond.
    return Math.round((this.options.random ?? Math.random)() * 1000);
  }

  /** Fail instead of waiting past the run's deadline. */
  private checkDeadline(url: string, waitMs: number, status: number | 'network', bucket: string): void {
    const deadline = this.options.deadline;
    if (deadline !== undefined && this.clock.now() + waitMs > deadline) {
      throw new UpstreamError(
        `${url}: the ${bucket} window needs ${Math.ceil(waitMs / 1000)} s more, past the run's deadline`,
        url,
        status,
        'RateLimited',
      );
    }
  }

  /**
   * Wait until a request of this bucket may go: while it is paused (a 429, or the quota used up), until
   * the pause ends. Then count the request against the quota left.
   */
  private async pace(url: string, name: string): Promise<void> {
    const b = this.bucket(name);
    for (;;) {
      const now = this.clock.now();
      if (b.resetAt && b.resetAt <= now) {
        // A new window: the quota is unknown until the next answer says it (the first answers of the window refill it).
        b.remaining = b.quota ?? Number.POSITIVE_INFINITY;
        b.resetAt = 0;
      }
      if (b.pausedUntil > now) {
        const waitMs = b.pausedUntil - now;
        this.checkDeadline(url, waitMs, 429, name);
        this.options.onWait?.({ url, status: 'paced', waitMs, attempt: 0, retryAfter: false, bucket: name });
        await this.wait(waitMs);
        continue;
      }
      if (b.remaining <= 0 && b.resetAt > now) {
        // The quota of this window is spent: every request of the bucket waits for the reset.
        b.pausedUntil = b.resetAt + this.jitter();
        continue;
      }
      break;
    }
    b.remaining--;
    b.sent++;
    this.inflight.set(name, (this.inflight.get(name) ?? 0) + 1);
  }

  /** Read an answer's rate-limit headers into its bucket. */
  private observe(name: string, res: Response | undefined): RateLimitInfo | undefined {
    this.inflight.set(name, Math.max(0, (this.inflight.get(name) ?? 1) - 1));
    if (!res) return undefined;
    const info = parseRateLimit(res.headers.get('ratelimit'), res.headers.get('ratelimit-policy'));
    if (!info) return undefined;
    const b = this.bucket(info.bucket);
    const now = this.clock.now();
    // Requests of the bucket still in flight may not be counted in `r` yet: keep room for them.
    b.remaining = info.remaining - (this.inflight.get(info.bucket) ?? 0);
    b.resetAt = now + info.resetSeconds * 1000;
    if (info.quota !== undefined) b.quota = info.quota;
    if (info.windowSeconds !== undefined) b.windowSeconds = info.windowSeconds;
    return info;
  }

  /** The buckets as the progress line shows them: quota left, and the pause if there is one. */
  quota(): Array<{ bucket: string; remaining: number; quota?: number; waitMs: number }> {
    const now = this.clock.now();
    return [...this.buckets.entries()]
      .filter(([, b]) => Number.isFinite(b.remaining) || b.pausedUntil > now)
      .map(([bucket, b]) => ({
        bucket,
        remaining: Math.max(0, Number.isFinite(b.remaining) ? b.remaining : (b.quota ?? 0)),
        ...(b.quota !== undefined ? { quota: b.quota } : {}),
        waitMs: Math.max(0, b.pausedUntil - now),
      }));
  }

  /**
   * One request with retries. Answers with the first response that is not 429/5xx (a 404 is returned,
   * not thrown); throws {@link UpstreamError} when the retries run out. A 429 is not a retry: the
   * request waits for its bucket's window (the `RateLimit` header's `t`, or `Retry-After` where sent)
   * as often as the run's deadline allows.
   */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const retries = this.options.retries ?? 6;
    const maxRetryAfter = this.options.maxRetryAfterMs;
    const urlBucket = bucketOf(url);
    let failures = 0;
    let limited = 0;
    for (;;) {
      await this.pace(url, urlBucket);
      await this.slots.acquire();
      let res: Response | undefined;
      let failure: unknown;
      try {
        this.stats.requests++;
        const headers = { ...(this.options.headers ?? {}), ...this.authFor(url), ...headerObject(init.headers) };
        const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 120_000);
        const signal = init.signal ? anySignal([init.signal, timeout]) : timeout;
        res = await this.fetchImpl(url, { ...init, headers, signal });
      } catch (e) {
        failure = e;
      } finally {
        this.slots.release();
      }
      const info = this.observe(urlBucket, res);
      if (init.signal?.aborted) {
        void res?.body?.cancel().catch(() => {});
        throw init.signal.reason ?? failure;
      }
      if (res && !retryable(res.status)) return res;
      const status: number | 'network' = res ? res.status : 'network';
      const bucket = info?.bucket ?? urlBucket;
      const ra = res ? parseRetryAfter(res.headers.get('retry-after'), this.clock.now()) : undefined;
      if (res) void res.body?.cancel().catch(() => {});
      let waitMs: number;
      let fromHeader = false;
      if (status === 429) {
        this.stats.rateLimited++;
        const b = this.bucket(bucket);
        b.limited++;
        limited++;
        // Retry-After wins where sent; else the window's reset `t`; else a growing backoff.
        if (ra !== undefined) {
          waitMs = ra;
          fromHeader = true;
        } else if (info) waitMs = info.resetSeconds * 1000 + this.jitter();
        else waitMs = this.backoff(Math.min(limited - 1, 10));
        if (maxRetryAfter !== undefined && fromHeader && ra !== undefined && ra > maxRetryAfter) {
          throw new UpstreamError(
            `${url}: HTTP 429 with Retry-After of ${Math.round(ra / 1000)} s, longer than the ${Math.round(maxRetryAfter / 1000)} s allowed`,
            url,
            429,
          );
        }
        this.checkDeadline(url, waitMs, 429, bucket);
        // Every request of the bucket waits, not only this one.
        b.pausedUntil = Math.max(b.pausedUntil, this.clock.now() + waitMs);
        b.remaining = 0;
        this.options.onWait?.({ url, status, waitMs, attempt: limited, retryAfter: fromHeader, bucket });
        continue;
      }
      if (failures >= retries) {
        const why = res ? `HTTP ${res.status}` : `network error (${(failure as Error)?.message ?? String(failure)})`;
        throw new UpstreamError(`${url}: ${why} after ${failures + 1} attempts`, url, status);
      }
      waitMs = this.backoff(failures);
      if (ra !== undefined) {
        if (maxRetryAfter !== undefined && ra > maxRetryAfter) {
          throw new UpstreamError(
            `${url}: HTTP ${status} with Retry-After of ${Math.round(ra / 1000)} s, longer than the ${Math.round(maxRetryAfter / 1000)} s allowed`,
            url,
            status,
          );
        }
        waitMs = ra;
        fromHeader = true;
      }
      failures++;
      this.stats.retries++;
      this.options.onWait?.({ url, status, waitMs, attempt: failures, retryAfter: fromHeader });
      await this.wait(waitMs);
    }
  }

  /** GET and parse JSON; a non-2xx answer throws {@link UpstreamError} with its status. */
  async json<T>(url: string): Promise<{ value: T; response: Response }> {
    const res = await this.request(url, { headers: { accept: 'application/json' } });
    if (!res.ok) {
      void res.body?.cancel().catch(() => {});
      throw errorOf(url, res);
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
      const link = nextLink(response.headers.get('link'), next);
      // A next page on another origin is not followed (swift-huggingface#75 rejects them too).
      if (link && new URL(link).origin !== new URL(url).origin)
        throw new UpstreamError(`${next}: the next page is on another origin (${new URL(link).origin})`, next, response.status);
      next = link;
    }
  }

  /** A `fetch` for libraries (such as the GGUF reader) that goes through the limits and retries and fails on non-2xx. */
  asFetch(): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
      const res = await this.request(url, init);
      if (!res.ok) {
        void res.body?.cancel().catch(() => {});
        throw errorOf(url, res);
      }
      return res;
    }) as typeof fetch;
  }
}
