// Stores for the build memo's tests (build-memo.test.ts, unchanged-model.test.ts): SYNTHETIC days built into memory.
import type { Address } from '../index/blake3.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';

/** A memory store that reads an object's bytes at once, as the filesystem store does (`readBytes`). */
export class BytesStore extends MemoryObjectStore {
  private readonly bytes = new Map<string, Uint8Array>();
  override async put(bytes: Uint8Array, o: { kind: string; mediaType: string }) {
    const r = await super.put(bytes, o);
    this.bytes.set(r.meta.id, bytes);
    return r;
  }
  readBytes(address: Address): Uint8Array | undefined {
    return this.bytes.get(address);
  }
}

/**
 * `store` as a build sees it after losing model `id`'s model objects (`has` says no), with every model object put
 * through it recorded in `puts` (its JSON text).
 */
export function lostModelObject(store: BytesStore, id: string, puts: string[]): MemoryObjectStore {
  const lost = Object.assign(Object.create(store) as BytesStore, {
    has: async (a: Address) => {
      const stored = await store.get(a);
      const text = stored ? new TextDecoder().decode(stored.bytes) : '';
      return text.includes('"kind":"model-hub.model"') && text.includes(`"id":"${id}"`) ? false : store.has(a);
    },
  });
  return Object.assign(Object.create(lost) as MemoryObjectStore, {
    put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
      const r = await store.put(bytes, o);
      if (o.kind === 'model-hub.model') puts.push(new TextDecoder().decode(bytes));
      return r;
    },
  });
}
