/**
 * A cache bounded in bytes, least recently used out first: the one LRU of the paged store's pages, models and memos
 * of the object stores' immutable objects (`ObjectCache`) and of the model-host dialect's row bytes. A Map keeps insertion order; a hit moves its
 * entry to the end. Eviction walks one long-lived iterator from the oldest end instead of a new `for…of` each time:
 * V8 leaves a deleted Map entry as a hole until the table is rebuilt, and a fresh iterator skips every hole before
 * the oldest live entry, so a busy cache spent most of its `set` there (3-4x slower on 300,000 mixed gets and sets).
 * A Map iterator stays valid while the Map changes, and entries moved or added after it land behind it, so it always
 * stands at the oldest live entry.
 */
export class ByteLru<V, K = string> {
  private readonly map = new Map<K, { v: V; size: number }>();
  private total = 0;
  private oldest: Iterator<[K, { v: V; size: number }]> | undefined;

  /** `maxBytes` in all; a value larger than `maxEntryBytes` (default a quarter of the whole) is never kept. */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes = maxBytes / 4,
  ) {}

  /** The value, moved to the most recently used end. */
  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.v;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Keep a value counted at `size` bytes (when it is small enough), evicting the least recently used past the bound. */
  set(key: K, v: V, size: number): void {
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      this.total -= old.size;
    }
    if (size > this.maxEntryBytes) return;
    this.map.set(key, { v, size });
    this.total += size;
    while (this.total > this.maxBytes) {
      this.oldest ??= this.map.entries();
      const next = this.oldest.next();
      if (next.done) {
        this.oldest = undefined;
        continue;
      }
      const [k, e] = next.value;
      this.map.delete(k);
      this.total -= e.size;
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.total;
  }

  /** Entries held now. */
  get size(): number {
    return this.map.size;
  }
}
