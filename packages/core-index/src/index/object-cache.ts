import type { StoredObject } from './object-store.js';

/**
 * The immutable-object cache, written once (issue 13): objects never change, so whole objects are kept in memory,
 * least recently used out first, up to `maxBytes` in all; an object over `maxObjectBytes` is never kept. Used by the
 * filesystem store (node-server) and the R2 store (the edge).
 */
export class ObjectCache {
  private readonly entries = new Map<string, StoredObject>();
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxObjectBytes: number = maxBytes / 8,
  ) {}

  /** The cached object, moved to the most recently used end. */
  get(address: string): StoredObject | undefined {
    const hit = this.entries.get(address);
    if (hit) {
      this.entries.delete(address);
      this.entries.set(address, hit);
    }
    return hit;
  }

  has(address: string): boolean {
    return this.entries.has(address);
  }

  /** Keep an object (when it is small enough), evicting the least recently used past the total. */
  set(address: string, obj: StoredObject): void {
    const size = obj.bytes.byteLength;
    if (size > this.maxObjectBytes) return;
    const old = this.entries.get(address);
    if (old) {
      this.entries.delete(address);
      this.total -= old.bytes.byteLength;
    }
    this.entries.set(address, obj);
    this.total += size;
    for (const [key, value] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(key);
      this.total -= value.bytes.byteLength;
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.total;
  }
}
