import { isModelId, type MissingLog, type ProbeState, type ProbeStorage } from '@hub/core-index';
import type { KVNamespaceLike } from './bindings.js';

/** KV key of the prober's state (the same `ProbeState` node-server keeps in `probes.json`). */
export const PROBES_KEY = 'probes';
/** KV key prefix of the missing log: `missing:<id in lower case>` → the id as first asked. */
export const MISSING_PREFIX = 'missing:';
/** Missing ids expire after 8 days: the daily index run reads them well before. */
const MISSING_TTL_SECONDS = 8 * 24 * 3600;

/**
 * The prober's storage at the edge: the probe state under one KV key, written by the cron trigger's round and read
 * by every isolate (core-index's `SourceProber` re-reads it at most once a probe interval). Unparseable JSON counts
 * as nothing stored.
 */
export function kvProbeStorage(kv: KVNamespaceLike): ProbeStorage {
  return {
    async read() {
      const raw = await kv.get(PROBES_KEY);
      if (!raw) return undefined;
      try {
        return JSON.parse(raw) as ProbeState;
      } catch {
        return undefined;
      }
    },
    write: (state) => kv.put(PROBES_KEY, JSON.stringify(state)),
  };
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
    if (!isModelId(id)) return undefined;
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
