import { keyHash } from './page-layout.js';

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
  private readonly door: Doorkeeper | undefined;

  /**
   * `maxBytes` in all; a value larger than `maxEntryBytes` (default a quarter of the whole) is never kept. With
   * `secondAsk`, a key is kept from the second time it is offered while the {@link Doorkeeper} still remembers the
   * first (the cache's admission rule: a stream of one-off keys, such as random look-ups over a large index, passes
   * through without pushing out what is asked again, and leaves the collector young garbage, not old).
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes = maxBytes / 4,
    options: { secondAsk?: boolean } = {},
  ) {
    this.door = options.secondAsk ? new Doorkeeper() : undefined;
  }

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

  /**
   * Offer a value counted at `size` bytes: kept when it is small enough (and, with `secondAsk`, when its key was
   * offered before, or is already kept), evicting the least recently used past the bound. Returns whether it is kept.
   */
  set(key: K, v: V, size: number): boolean {
    if (this.door !== undefined && !this.map.has(key) && !this.door.seen(key)) return false;
    return this.keep(key, v, size);
  }

  /** Keep a value whatever the admission rule says (what is known to be asked again: a start's examples, work in flight). */
  keep(key: K, v: V, size: number): boolean {
    const old = this.map.get(key);
    if (old) {
      this.map.delete(key);
      this.total -= old.size;
    }
    if (size > this.maxEntryBytes) return false;
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
    return true;
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

/**
 * Remembers the last keys offered, one 32-bit hash a slot in a fixed table (a direct-mapped "doorkeeper", as in
 * TinyLFU): `seen(k)` is true when `k`'s slot still holds `k`'s hash, else it writes it there. Fixed memory, no
 * allocation per key (page-layout's `keyHash`); a collision only makes a key wait for one more ask, or (1 in 2^32) admits one early.
 */
export class Doorkeeper {
  private readonly slots: Uint32Array;
  private readonly mask: number;

  constructor(bits = 16) {
    this.slots = new Uint32Array(1 << bits);
    this.mask = (1 << bits) - 1;
  }

  seen(key: unknown): boolean {
    const h = keyHash(String(key)) || 1; // never 0, the empty slot
    const at = h & this.mask;
    if (this.slots[at] === h) return true;
    this.slots[at] = h;
    return false;
  }
}
