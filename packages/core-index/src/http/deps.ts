import type { CacheBudget } from '../index/cache-budget.js';
import type { IndexStore } from '../index/index-store.js';
import { isModelId } from '../index/model-id.js';
import type { ObjectStore } from '../index/object-store.js';
import type { Logger } from '../observe/logger.js';
import type { Metrics } from '../observe/metrics.js';
import type { SourceHealth } from '../sources/source-health.js';
import type { ServePolicy } from './policy.js';

/** Models asked for that are not in the index, for the next index run. Deduplicated and bounded. */
export interface MissingLog {
  record(id: string): void | Promise<void>;
  list(): Promise<string[]>;
}

/** First path segments of the hub's own routes: `/api/hub/resolve/…` is a wrong URL, not a model to index. */
const RESERVED_OWNERS = new Set(['api', 'v1', 'v2', 'via', 'mcp', 'docs', 'models', 'registry', 'spaces', 'buckets']);

/**
 * Record a model id asked for but not in the index, for the next index run: the one rule every dialect uses. Only an
 * id the run could look up (the model id grammar, not a route of the hub's own) is recorded; a store's promise is
 * handed to `deps.defer` (the answer never waits for the log), a store that throws is logged. True when recorded.
 */
export function recordMissing(deps: Pick<CoreDeps, 'missing' | 'defer' | 'log'>, id: string): boolean {
  if (!isModelId(id) || RESERVED_OWNERS.has(id.split('/')[0]?.toLowerCase() ?? '')) return false;
  try {
    const pending = deps.missing.record(id);
    if (pending) deps.defer(Promise.resolve(pending));
  } catch (e) {
    deps.log.warn({ event: 'missing-log-failed', err: (e as Error).message }, 'missing log record failed');
  }
  return true;
}

/** A bounded, deduplicated in-memory missing log (hosts persist theirs). */
export class MemoryMissingLog implements MissingLog {
  private readonly ids = new Map<string, string>();
  constructor(private readonly max = 10_000) {}
  record(id: string): void {
    // the same rule as the file and KV logs: only ids the next index run could look up
    if (!isModelId(id)) return;
    const key = id.toLowerCase();
    if (this.ids.has(key)) return;
    if (this.ids.size >= this.max) return;
    this.ids.set(key, id);
  }
  async list(): Promise<string[]> {
    return [...this.ids.values()];
  }
}

export interface HubSettings {
  /** Absolute base URL for links; default: the origin the client used. */
  baseUrl?: string;
  /** Bearer tokens that may list, search and publish objects. */
  publisherTokens: string[];
  /** Tokens a container-registry login sends for writes under /v2/. */
  registryTokens: string[];
  /** The most one request body may hold (32 MiB at the server, 8 MiB at the edge). */
  maxRequestBytes: number;
  /** The most bytes one bucket may hold in all (default 1 GiB). */
  bucketMaxBytes?: number;
  /** `server` (node) or `edge`. */
  role: 'server' | 'edge';
  /** Code version and commit, for the capability manifest and health. */
  version: string;
  /** The site origin that may call /api/account/* with credentials (CORS). */
  siteOrigin?: string;
  commit?: string;
  serverId: string;
  /** What the operator refuses to serve (design 11.2; http/policy.ts). */
  policy?: ServePolicy;
  /**
   * The process's one bound on its caches and each cache's share (index/cache-budget.ts): the kept answers and the
   * dialects' caches read their share here; without it each takes its own default.
   */
  cache?: CacheBudget;
}

/** What every pure handler may use. Dialects extend it with their own needs. */
export interface CoreDeps {
  /** Today's index; a new build swaps it without a restart. */
  index(): IndexStore;
  health: SourceHealth;
  objects: ObjectStore;
  missing: MissingLog;
  settings: HubSettings;
  now(): number;
  log: Logger;
  /** Where metric events go (design 10.2); `noMetrics` when the host collects none. */
  metrics: Metrics;
  /** Schedule background work (ctx.waitUntil at the edge). */
  defer(p: Promise<unknown>): void;
}
