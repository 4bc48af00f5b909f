import {
  currentProbeState,
  emptyProbeState,
  healthStates,
  isModelId,
  MemorySourceHealth,
  type MissingLog,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  probeRetryAfterSeconds,
  runProbeRound,
  type SourceConfig,
} from '@hub/core-index';
import type { KVNamespaceLike } from './bindings.js';

/** KV key of the prober's state (the same `ProbeState` node-server keeps in `probes.json`). */
export const PROBES_KEY = 'probes';
/** KV key prefix of the missing log: `missing:<id in lower case>` → the id as first asked. */
export const MISSING_PREFIX = 'missing:';
/** Missing ids expire after 8 days: the daily index run reads them well before. */
const MISSING_TTL_SECONDS = 8 * 24 * 3600;

/**
 * Source health at the edge: the in-memory health of core-index, restored from the probe state the
 * cron trigger keeps in KV and re-read from KV at most every `refreshSeconds`. `probe` runs one
 * round of core-index's prober (sources that are due) and saves the state back to KV.
 */
export class KvSourceHealth extends MemorySourceHealth {
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private probes: ProbeState = emptyProbeState();

  constructor(
    private readonly kv: KVNamespaceLike,
    private readonly sourceList: SourceConfig[],
    order: string[],
    private readonly probeSettings: ProbeSettings,
    private readonly clock: () => number,
  ) {
    super(sourceList, order, probeSettings.intervalSeconds);
    this.useRetryAfter(() => probeRetryAfterSeconds(this.probes, this.clock(), this.probeSettings));
  }

  /** Read the probe state from KV (records of sources no longer configured, or re-configured, are dropped). */
  load(): Promise<void> {
    this.loading ??= this.kv
      .get(PROBES_KEY)
      .then((raw) => {
        this.loadedAt = this.clock();
        let saved: ProbeState | undefined;
        try {
          saved = raw ? (JSON.parse(raw) as ProbeState) : undefined;
        } catch {
          saved = undefined;
        }
        this.probes = currentProbeState(saved, this.sourceList);
        this.restore(healthStates(this.probes));
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** A refresh from KV when the last one is older than `refreshSeconds`, else undefined. */
  refreshIfStale(refreshSeconds: number): Promise<void> | undefined {
    if (this.loading || this.clock() - this.loadedAt < refreshSeconds * 1000) return undefined;
    return this.load();
  }

  /** One probe round over the sources that are due (all with `force`); the new state goes to KV. */
  async probe(fetchImpl: typeof fetch, force = false): Promise<ProbeRound> {
    await this.load();
    const round = await runProbeRound({
      sources: this.sourceList,
      fetch: fetchImpl,
      now: this.clock,
      state: this.probes,
      settings: this.probeSettings,
      force,
      health: this,
    });
    this.probes = round.state;
    if (round.results.length) await this.kv.put(PROBES_KEY, JSON.stringify(round.state));
    return round;
  }

  /** The prober's state (what KV holds). */
  probeState(): ProbeState {
    return this.probes;
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
