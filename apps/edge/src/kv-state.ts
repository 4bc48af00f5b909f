import { type MissingLog, MemorySourceHealth, type SourceState } from '@hub/core-index';
import type { KVNamespaceLike } from './bindings.js';

/** KV key of the last probe results: `{savedAt, sources: {name: SourceState}}`. */
export const HEALTH_KEY = 'health';
/** KV key prefix of the missing log: `missing:<id in lower case>` → the id as first asked. */
export const MISSING_PREFIX = 'missing:';
/** Missing ids expire after 8 days: the daily index run reads them well before. */
const MISSING_TTL_SECONDS = 8 * 24 * 3600;
const MISSING_ID = /^[\w.-]{1,96}\/[\w.-]{1,96}$/;

/**
 * Source health at the edge: the in-memory health of core-index, restored from the probe results
 * the cron trigger saved in KV, and re-read from KV at most every `refreshSeconds`.
 */
export class KvSourceHealth extends MemorySourceHealth {
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly kv: KVNamespaceLike,
    ...args: ConstructorParameters<typeof MemorySourceHealth>
  ) {
    super(...args);
  }

  /** Read the saved probe results from KV (sources no longer configured are ignored). */
  load(now: number): Promise<void> {
    this.loading ??= this.kv
      .get(HEALTH_KEY)
      .then((raw) => {
        this.loadedAt = now;
        if (!raw) return;
        const saved = JSON.parse(raw) as { sources?: Record<string, SourceState> };
        if (saved.sources) this.restore(saved.sources);
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** A refresh from KV when the last one is older than `refreshSeconds`, else undefined. */
  refreshIfStale(now: number, refreshSeconds: number): Promise<void> | undefined {
    if (this.loading || now - this.loadedAt < refreshSeconds * 1000) return undefined;
    return this.load(now);
  }

  /** Save the current states to KV (after a probe round). */
  async save(now: number): Promise<void> {
    await this.kv.put(HEALTH_KEY, JSON.stringify({ savedAt: new Date(now).toISOString(), sources: this.snapshot().sources }));
    this.loadedAt = now;
  }
}

/**
 * The missing log in KV: one key per id (case-insensitive), written once per isolate and id, kept
 * 8 days. The bound of the node log (10,000) is kept per isolate; KV itself is not counted.
 */
export class KvMissingLog implements MissingLog {
  private readonly seen = new Set<string>();

  constructor(
    private readonly kv: KVNamespaceLike,
    private readonly max = 10_000,
  ) {}

  record(id: string): Promise<void> | undefined {
    if (!MISSING_ID.test(id)) return undefined;
    const key = id.toLowerCase();
    if (this.seen.has(key) || this.seen.size >= this.max) return undefined;
    this.seen.add(key);
    return this.kv.put(MISSING_PREFIX + key, id, { expirationTtl: MISSING_TTL_SECONDS }).catch((e: unknown) => {
      this.seen.delete(key);
      throw e;
    });
  }

  async list(): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.kv.list({ prefix: MISSING_PREFIX, ...(cursor ? { cursor } : {}) });
      for (const k of page.keys) {
        const id = await this.kv.get(k.name);
        if (id) out.push(id);
      }
      if (page.list_complete || !page.cursor) return out;
      cursor = page.cursor;
    }
  }
}
