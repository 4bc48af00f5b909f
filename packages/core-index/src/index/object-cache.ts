import { ByteLru } from './byte-lru.js';
import type { StoredObject } from './object-store.js';

/**
 * The immutable-object cache, written once (issue 13): objects never change, so whole objects are kept in memory,
 * least recently used out first, up to `maxBytes` in all; an object over `maxObjectBytes` is never kept. Used by the
 * filesystem store (node-server) and the R2 store (the edge).
 */
export class ObjectCache {
  private readonly lru: ByteLru<StoredObject>;

  constructor(maxBytes: number, maxObjectBytes: number = maxBytes / 8) {
    this.lru = new ByteLru(maxBytes, maxObjectBytes);
  }

  /** The cached object, moved to the most recently used end. */
  get(address: string): StoredObject | undefined {
    return this.lru.get(address);
  }

  has(address: string): boolean {
    return this.lru.has(address);
  }

  /** Keep an object (when it is small enough), evicting the least recently used past the total. */
  set(address: string, obj: StoredObject): void {
    this.lru.set(address, obj, obj.bytes.byteLength);
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.lru.bytes;
  }
}
