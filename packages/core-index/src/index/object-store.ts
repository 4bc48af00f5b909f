import type { Address } from './blake3.js';
import { addressOf } from './blake3.js';
import type { ObjectMetadata } from './schemas.js';

export interface StoredObject {
  bytes: Uint8Array;
  meta: ObjectMetadata;
}

export interface PutOptions {
  kind: string;
  mediaType: string;
  filename?: string | null;
}

export interface ListQuery {
  kind?: string;
  /** a prefix of the address, `blake3:` included or not */
  prefix?: string;
  cursor?: string;
  limit?: number;
}

export interface ListPage {
  items: ObjectMetadata[];
  next: string | null;
}

/**
 * Content-addressed storage of hub objects. `put` computes the address itself; an address, once
 * written, never changes meaning. Named refs (`current`, `archive`, `pins`, …) are small mutable
 * pointers written atomically.
 */
export interface ObjectStore {
  get(address: Address): Promise<StoredObject | undefined>;
  /**
   * The bytes of an object for a reader that keeps its own cache (the paged store's pages): no metadata, and not kept
   * in the store's own cache, so the bytes are held once. A store on a local disk answers at once (a synchronous read
   * of a small immutable file costs a fraction of a trip through the thread pool); a remote one with a promise.
   * Stores without it are read through `get`. Nothing is checked: the reader checks the bytes against the address.
   */
  readBytes?(address: Address): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /**
   * `length` bytes of an object from byte `start` (one model of a models page), as {@link readBytes} reads: at once
   * from a local disk, else with a promise; undefined when the object is missing or shorter. Nothing is checked.
   */
  readRange?(address: Address, start: number, length: number): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  meta(address: Address): Promise<ObjectMetadata | undefined>;
  has(address: Address): Promise<boolean>;
  /**
   * Which of these addresses are not stored (in their order): {@link has} of many at once, for a build that reuses
   * thousands of objects a second (a store on a local disk checks each without a promise or a stat object each). Stores
   * without it are asked {@link has} of each ({@link missingOf}).
   */
  missing?(addresses: readonly Address[]): Promise<Address[]>;
  /**
   * The objects stored now, listed once, for a build's checks of the objects it reuses (hundreds of thousands a day):
   * its `missing` answers from the listing, without a call to the disk per address. An object put after the listing
   * counts as missing (put again, harmlessly); one removed after it counts as stored. A build asks only about objects
   * stored before it started. Stores without it are asked {@link missing}.
   */
  listing?(): Promise<StoredListing>;
  /** bytes of objects its in-memory cache holds now (a store that keeps none has no such method) */
  cachedBytes?(): number;
  put(bytes: Uint8Array, options: PutOptions): Promise<{ meta: ObjectMetadata; created: boolean }>;
  list(query: ListQuery): Promise<ListPage>;
  readRef(name: string): Promise<string | undefined>;
  writeRef(name: string, value: string): Promise<void>;
  /**
   * Run a read-modify-write of the ref `name` with it held against the other processes sharing this store (design
   * 11.3). Stores that only one process writes leave it out; {@link withRef} then just runs the change.
   */
  withRefLock?<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** What a store held when it was listed ({@link ObjectStore.listing}). */
export interface StoredListing {
  /** which of these addresses were not stored (in their order) */
  missing(addresses: readonly Address[]): Address[];
}

/** The addresses of `addresses` that `objects` does not have: its {@link ObjectStore.missing}, else `has` of each. */
export async function missingOf(objects: ObjectStore, addresses: readonly Address[]): Promise<Address[]> {
  if (objects.missing) return objects.missing(addresses);
  const has = await Promise.all(addresses.map((a) => objects.has(a)));
  return addresses.filter((_, i) => !has[i]);
}

/** Run `fn` (which reads the ref `name` and writes it) holding the store's cross-process lock on it, when it has one. */
export function withRef<T>(objects: ObjectStore, name: string, fn: () => Promise<T>): Promise<T> {
  return objects.withRefLock ? objects.withRefLock(name, fn) : fn();
}

/** Ref names are short identifiers; anything else is refused so refs never escape their folder. */
export const REF_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** The metadata a new object gets: its address (computed here), kind, media type, size and creation time. */
export function newObjectMetadata(bytes: Uint8Array, options: PutOptions, now: number): ObjectMetadata {
  return {
    id: addressOf(bytes),
    kind: options.kind,
    media_type: options.mediaType,
    size: bytes.byteLength,
    created_at_millis: now,
    filename: options.filename ?? null,
  };
}
