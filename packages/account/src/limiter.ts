/**
 * Per-account write limits: a token bucket per key. The clock is passed in (the routes pass
 * `deps.now()`), so tests drive time and hosts need no timers.
 */

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Take one token for `key` at time `now` (ms). */
  take(key: string, now: number): TakeResult | Promise<TakeResult>;
}

export interface TokenBucketOptions {
  /** Tokens a full bucket holds: the longest burst. Default 20. */
  burst?: number;
  /** Tokens added per second. Default 1. */
  perSecond?: number;
  /** Buckets kept at most; full (idle) buckets are dropped first, then the oldest. Default 10 000. */
  maxKeys?: number;
}

export const DEFAULT_WRITE_BURST = 20;
export const DEFAULT_WRITES_PER_SECOND = 1;

interface Bucket {
  tokens: number;
  at: number;
}

/** An in-memory token bucket limiter (one per process or isolate). */
export class TokenBucketLimiter implements RateLimiter {
  readonly burst: number;
  readonly perSecond: number;
  private readonly maxKeys: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: TokenBucketOptions = {}) {
    this.burst = Math.max(1, options.burst ?? DEFAULT_WRITE_BURST);
    this.perSecond = options.perSecond ?? DEFAULT_WRITES_PER_SECOND;
    if (!(this.perSecond > 0)) throw new Error('perSecond must be above 0');
    this.maxKeys = Math.max(1, options.maxKeys ?? 10_000);
  }

  take(key: string, now: number): TakeResult {
    let b = this.buckets.get(key);
    if (b) {
      const elapsed = Math.max(0, now - b.at) / 1000;
      b.tokens = Math.min(this.burst, b.tokens + elapsed * this.perSecond);
      b.at = Math.max(b.at, now);
      // Refresh the key's position (Map order = least recently used first).
      this.buckets.delete(key);
      this.buckets.set(key, b);
    } else {
      this.evict(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond)) };
  }

  /** How many buckets are held (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private evict(now: number): void {
    if (this.buckets.size < this.maxKeys) return;
    // A bucket that has refilled is the same as no bucket: drop those first.
    for (const [k, b] of this.buckets) {
      if (b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(k);
    }
    while (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next().value as string;
      this.buckets.delete(oldest);
    }
  }
}
