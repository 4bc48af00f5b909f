/**
 * What the model host says about its rate limits, read apart from the client that acts on it: the `RateLimit` and
 * `RateLimit-Policy` headers, the bucket a URL counts against, and `Retry-After`.
 */

/** The host's rate-limit buckets (hub-docs `docs/hub/rate-limits.md`). */
export type Bucket = 'api' | 'resolvers' | 'pages' | (string & {});

/** One answer's `RateLimit` (and `RateLimit-Policy`) header, as huggingface_hub's `parse_ratelimit_headers` reads it. */
export interface RateLimitInfo {
  bucket: string;
  remaining: number;
  resetSeconds: number;
  quota?: number;
  windowSeconds?: number;
}

/** What the client knows of one bucket right now. */
export interface BucketState {
  remaining: number;
  quota?: number;
  windowSeconds?: number;
  /** ms since the epoch when the window resets */
  resetAt: number;
  /** ms since the epoch until which every request of the bucket waits (a 429 or an empty quota) */
  pausedUntil: number;
  /** requests sent, and answers that were 429 */
  sent: number;
  limited: number;
}

const RATELIMIT = /"([^"]+)"\s*;\s*r\s*=\s*(\d+)\s*;\s*t\s*=\s*(\d+)/;
const RATELIMIT_POLICY = /q\s*=\s*(\d+).*?w\s*=\s*(\d+)/;

/**
 * `RateLimit: "api";r=0;t=55` with `RateLimit-Policy: "fixed window";"api";q=500;w=300` (draft-ietf-httpapi-
 * ratelimit-headers-09, as the model host sends it). Undefined when absent or unreadable.
 */
export function parseRateLimit(ratelimit: string | null, policy: string | null): RateLimitInfo | undefined {
  if (!ratelimit) return undefined;
  const m = RATELIMIT.exec(ratelimit);
  if (!m) return undefined;
  const out: RateLimitInfo = { bucket: m[1] as string, remaining: Number(m[2]), resetSeconds: Number(m[3]) };
  const p = policy ? RATELIMIT_POLICY.exec(policy) : null;
  if (p) {
    out.quota = Number(p[1]);
    out.windowSeconds = Number(p[2]);
  }
  return out;
}

/** The bucket a URL of the model host counts against: `/resolve/` → resolvers, `/api/` → api, else pages. */
export function bucketOf(url: string): Bucket {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  if (/\/resolve\//.test(path)) return 'resolvers';
  if (path.startsWith('/api/')) return 'api';
  return 'pages';
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
