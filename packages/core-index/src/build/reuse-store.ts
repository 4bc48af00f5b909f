// What a build reuses, kept honest: reused objects checked to be stored (and put again when lost), yesterday's model
// object and catalog read when the memo cannot tell (builder.ts).
import type { Address } from '../index/blake3.js';
import { canonicalBytes, canonicalJson } from '../index/canonical-json.js';
import { missingOf, type ObjectStore, type StoredListing } from '../index/object-store.js';
import type { ModelObject } from '../index/schemas.js';
import type { BuiltObjectKind } from './load-pack-writer.js';

const JSON_MEDIA_TYPE = 'application/json';

export function sameContent(a: ModelObject, b: ModelObject): boolean {
  return canonicalJson({ ...a, prev: null }) === canonicalJson({ ...b, prev: null });
}

/** An object a build reuses (its address from the memo), and the value it is made from (made only if it was lost). */
export interface Kept {
  id: string;
  kind: BuiltObjectKind;
  value: () => unknown;
  address: Address;
}

/**
 * Put again the reused objects the store lost (from the same value, checked to hash as the memo says). Asked of the
 * store's listing taken when the build started, when it has one (no call to the disk per object), else of the store
 * for a chunk of models at once (`missing`): each object is still checked, without a promise each.
 */
export async function keepStored(objects: ObjectStore, kept: Kept[], listed?: StoredListing): Promise<void> {
  if (kept.length === 0) return;
  const addresses = kept.map((k) => k.address);
  const lost = new Set(listed ? listed.missing(addresses) : await missingOf(objects, addresses));
  await Promise.all(
    kept
      .filter((k) => lost.has(k.address))
      .map(async ({ id, kind, value, address }) => {
        const { meta } = await objects.put(canonicalBytes(value()), { kind, mediaType: JSON_MEDIA_TYPE });
        if (meta.id !== address) throw new Error(`build memo: ${id}'s ${kind} hashes to ${meta.id}, the memo says ${address}`);
      }),
  );
}

export async function readPrev(objects: ObjectStore, address: string): Promise<ModelObject | undefined> {
  const s = await objects.get(address as Address);
  return s ? (JSON.parse(new TextDecoder().decode(s.bytes)) as ModelObject) : undefined;
}

/**
 * `objects` with another `has`: every other member is the store's own, called on the store (a view made with
 * `Object.create` would set the store's fields on itself, such as its group commit's state).
 */
export function withHas(objects: ObjectStore, has: (a: Address) => Promise<boolean>): ObjectStore {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(objects, {
    get(target, key) {
      if (key === 'has') return has;
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let b = bound.get(key);
      if (!b) {
        b = value.bind(target);
        bound.set(key, b);
      }
      return b;
    },
  });
}
