import type { AnalyticsEngineDatasetLike } from './analytics-metrics.js';

/**
 * The Worker's bindings (wrangler.jsonc documents each one) and the few binding methods the hub uses,
 * typed structurally so the code needs no Workers type package and tests can pass fakes or
 * Miniflare's proxies.
 */

/** The subset of an R2 bucket the object store uses. */
export interface R2BucketLike {
  /** `range`: only these bytes (R2's ranged read, one operation like any get). */
  get(key: string, options?: { range?: { offset: number; length: number } }): Promise<R2ObjectBodyLike | null>;
  head(key: string): Promise<R2ObjectLike | null>;
  put(
    key: string,
    value: ArrayBuffer | Uint8Array | string,
    options?: { httpMetadata?: { contentType?: string }; customMetadata?: Record<string, string> },
  ): Promise<unknown>;
  list(options?: {
    prefix?: string;
    cursor?: string;
    startAfter?: string;
    limit?: number;
    include?: ('customMetadata' | 'httpMetadata')[];
  }): Promise<{
    objects: R2ObjectLike[];
    truncated: boolean;
    cursor?: string;
  }>;
}

export interface R2ObjectLike {
  key: string;
  size: number;
  customMetadata?: Record<string, string>;
  httpMetadata?: { contentType?: string };
}

export interface R2ObjectBodyLike extends R2ObjectLike {
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

/** The subset of a D1 database the account store uses. */
export interface D1DatabaseLike {
  prepare(sql: string): D1StatementLike;
  batch<T = unknown>(statements: D1StatementLike[]): Promise<D1ResultLike<T>[]>;
}

export interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike;
  all<T = unknown>(): Promise<D1ResultLike<T>>;
  first<T = unknown>(): Promise<T | null>;
  run(): Promise<D1ResultLike<unknown>>;
}

export interface D1ResultLike<T> {
  results: T[];
  meta: { changes?: number };
}

/** The subset of a KV namespace the health and missing-log stores use. */
export interface KVNamespaceLike {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    keys: { name: string }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

/** `env` as the Worker receives it. JSON vars may arrive parsed (wrangler.jsonc) or as strings (`.dev.vars`, secrets). */
export interface Env {
  /** R2: every hub object (`objects/<hex>`) and the refs (`refs/current`, `refs/archive`). */
  OBJECTS: R2BucketLike;
  /** D1: accounts, saved lists and model requests (schema in migrations/). */
  ACCOUNTS: D1DatabaseLike;
  /** KV: the prober state (`probes`) and the missing log (`missing:<id>`). */
  STATE: KVNamespaceLike;
  /** JSON array of sources, merged over the defaults by name (as the node config's `sources`). */
  SOURCES?: unknown;
  /** JSON array: source preference order. */
  ORDER?: unknown;
  PROBE_INTERVAL_SECONDS?: string | number;
  /** Minutes between checks of `refs/current` for a new index (default 5). */
  INDEX_RECHECK_MINUTES?: string | number;
  /** Which store serves the day: auto (default: pages from 20,000 models), memory or paged (design 11.1). */
  INDEX_STORE?: string;
  /** Megabytes every cache of an isolate may hold in all (default 48; index/cache-budget.ts shares it out). */
  CACHE_MEGABYTES?: string | number;
  BASE_URL?: string;
  /** JSON object: the serving policy, as the node config's `policy` (refuseScanLevels, refuseFailedSignatures, requireSignature). */
  POLICY?: unknown;
  /** Secret: JSON array or comma list of publisher tokens. */
  PUBLISHER_TOKENS?: unknown;
  /** Secret: JSON array or comma list of registry tokens. */
  REGISTRY_TOKENS?: unknown;
  /** Secret or var: the ES256 public key (PEM, JWK or JWK set) that signs account tokens. */
  ACCOUNT_PUBLIC_KEY?: string;
  ACCOUNT_ISSUER?: string;
  ACCOUNT_AUDIENCE?: string;
  ACCOUNT_SITE_ORIGIN?: string;
  /** `debug`, `info` (default), `warn`, `error`. */
  LOG_LEVEL?: string;
  /** Optional Workers Analytics Engine dataset: the hub's metric events are written there (docs/operations.md). */
  HUB_METRICS?: AnalyticsEngineDatasetLike;
  /** `true`: one access-log line per request (method, route pattern, status, ms, source, bytes). */
  LOG_REQUESTS?: string | boolean;
  /** Commit the bundle was built from (set by the deploy). */
  COMMIT?: string;
}

/** Read a var that holds JSON (or is already parsed). */
export function jsonVar<T>(value: unknown, name: string): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    throw new Error(`The var ${name} must be JSON; got ${JSON.stringify(value.slice(0, 60))}.`);
  }
}

/** A token list: a JSON array, or a comma- or newline-separated string. */
export function tokenList(value: unknown, name: string): string[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.map(String);
  const s = String(value).trim();
  if (s.startsWith('[')) return (jsonVar<unknown[]>(s, name) ?? []).map(String);
  return s
    .split(/[\n,]/)
    .map((t) => t.trim())
    .filter(Boolean);
}

/** A positive number var with a default. */
export function numberVar(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`The var ${name} must be a positive number; got ${JSON.stringify(value)}.`);
  return n;
}
