import {
  type Address,
  addressOf,
  isAddress,
  type ListPage,
  type ListQuery,
  newObjectMetadata,
  ObjectCache,
  type ObjectMetadata,
  type ObjectStore,
  type PutOptions,
  REF_NAME,
  type StoredObject,
} from '@hub/core-index';
import type { R2BucketLike, R2ObjectLike } from './bindings.js';

const OBJECTS = 'objects/';
const REFS = 'refs/';
/** Objects up to this size are kept in the isolate's memory once read (they never change). */
const CACHE_OBJECT_MAX = 4 * 1024 * 1024;

/**
 * The Workers Cache API's cache (`caches.default`): the data center's own copy of what its isolates read, shared by
 * them and kept across isolates (design: "immutable objects can sit in the Cache API"). A no-op on workers.dev.
 */
export interface ColoCacheLike {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
}

/** The cache key of an object: a URL of its own host, never fetched (the Cache API keys by URL). */
const COLO_ORIGIN = 'https://objects.hub.invalid/';
/** Objects up to this size are put in the data center's cache once read from R2 (index pages are a few KB). */
const COLO_OBJECT_MAX = 1024 * 1024;
/** An object never changes under its address: the cache may keep it as long as it likes. */
const COLO_HEADERS = { 'cache-control': 'public, max-age=31536000, immutable', 'content-type': 'application/octet-stream' };

/** The R2 key of an object: `objects/<64 hex>`. */
export function objectKey(address: Address): string {
  return OBJECTS + address.slice('blake3:'.length);
}

/** The R2 key of a ref: `refs/<name>`. */
export function refKey(name: string): string {
  return REFS + name;
}

/**
 * Hub objects in an R2 bucket: `objects/<hex>` holds the bytes, with the metadata as custom metadata
 * (`kind`, `mediaType`, `created`, `filename`) and the media type as the content type; `refs/<name>`
 * holds a ref's value. Objects are immutable, so small ones stay in an in-isolate LRU once read.
 */
export class R2ObjectStore implements ObjectStore {
  private readonly cache: ObjectCache;
  /** reads answered by the data center's cache (for tests and logs) */
  coloHits = 0;

  constructor(
    private readonly bucket: R2BucketLike,
    private readonly now: () => number = Date.now,
    /** with it, {@link readBytes} (every index page read whole) looks in the data center's cache before R2 */
    private readonly colo?: ColoCacheLike,
    /** the most bytes of objects kept in the isolate (the edge's cache budget's `objects` share) */
    cacheBytes = 8 * 1024 * 1024,
  ) {
    this.cache = new ObjectCache(cacheBytes, Math.min(CACHE_OBJECT_MAX, cacheBytes / 4));
  }

  cachedBytes(): number {
    return this.cache.bytes;
  }

  async get(address: Address): Promise<StoredObject | undefined> {
    if (!isAddress(address)) return undefined;
    const hit = this.cache.get(address);
    if (hit) return hit;
    const obj = await this.bucket.get(objectKey(address));
    if (!obj) return undefined;
    const bytes = new Uint8Array(await obj.arrayBuffer());
    const stored = { bytes, meta: metaOf(address, obj) };
    this.cache.set(address, stored);
    return stored;
  }

  /**
   * The bytes alone, not kept in this store's cache (the paged store keeps its pages, parsed, in its own): from the
   * data center's cache when it has them (checked against the address: a damaged copy is dropped and read again from
   * R2), else from R2 and then put there (awaited: one local write on a miss).
   */
  async readBytes(address: Address): Promise<Uint8Array | undefined> {
    if (!isAddress(address)) return undefined;
    const hit = this.cache.get(address);
    if (hit) return hit.bytes;
    const key = this.colo ? new Request(COLO_ORIGIN + address.slice('blake3:'.length)) : undefined;
    if (this.colo && key) {
      const cached = await this.colo.match(key).catch(() => undefined);
      if (cached?.status === 200) {
        const bytes = new Uint8Array(await cached.arrayBuffer());
        // A copy that does not hash to its address (damaged in the cache) is dropped and read again from R2.
        if (addressOf(bytes) === address) {
          this.coloHits++;
          return bytes;
        }
        await this.colo.delete(key).catch(() => false);
      }
    }
    const obj = await this.bucket.get(objectKey(address));
    if (!obj) return undefined;
    const bytes = new Uint8Array(await obj.arrayBuffer());
    // Put before answering, within the request that read it: a put left running could be cancelled with its request,
    // and a promise handed to another request's `waitUntil` would make I/O on behalf of a request that may be over.
    if (this.colo && key && bytes.byteLength <= COLO_OBJECT_MAX)
      await this.colo.put(key, new Response(bytes.slice(), { headers: COLO_HEADERS })).catch(() => undefined);
    return bytes;
  }

  /** A byte range of an object (one model of a models page): one ranged read, not kept in this store's cache. */
  async readRange(address: Address, start: number, length: number): Promise<Uint8Array | undefined> {
    if (!isAddress(address)) return undefined;
    const hit = this.cache.get(address);
    if (hit) return hit.bytes.length >= start + length ? hit.bytes.subarray(start, start + length) : undefined;
    const obj = await this.bucket.get(objectKey(address), { range: { offset: start, length } });
    if (!obj) return undefined;
    const bytes = new Uint8Array(await obj.arrayBuffer());
    return bytes.length === length ? bytes : undefined;
  }

  async meta(address: Address): Promise<ObjectMetadata | undefined> {
    if (!isAddress(address)) return undefined;
    const hit = this.cache.get(address);
    if (hit) return hit.meta;
    const obj = await this.bucket.head(objectKey(address));
    return obj ? metaOf(address, obj) : undefined;
  }

  async has(address: Address): Promise<boolean> {
    return (await this.meta(address)) !== undefined;
  }

  async put(bytes: Uint8Array, options: PutOptions): Promise<{ meta: ObjectMetadata; created: boolean }> {
    const meta = newObjectMetadata(bytes, options, this.now());
    const id = meta.id as Address;
    const existing = await this.meta(id);
    if (existing) return { meta: existing, created: false };
    await this.write(bytes, meta);
    return { meta, created: true };
  }

  /**
   * Store an object with the metadata it already has (uploading another store's objects). The bytes
   * must hash to `meta.id`.
   */
  async import(stored: StoredObject): Promise<void> {
    if (addressOf(stored.bytes) !== stored.meta.id) throw new Error(`object ${stored.meta.id} does not hash to its address`);
    await this.write(stored.bytes, stored.meta);
  }

  private async write(bytes: Uint8Array, meta: ObjectMetadata): Promise<void> {
    const custom: Record<string, string> = { kind: meta.kind, mediaType: meta.media_type, created: String(meta.created_at_millis) };
    if (meta.filename) custom.filename = meta.filename;
    await this.bucket.put(objectKey(meta.id as Address), bytes, { httpMetadata: { contentType: meta.media_type }, customMetadata: custom });
  }

  async list(query: ListQuery): Promise<ListPage> {
    const limit = Math.max(1, Math.min(query.limit ?? 100, 1000));
    let prefix = query.prefix ?? '';
    if (prefix.startsWith('blake3:')) prefix = prefix.slice('blake3:'.length);
    const items: ObjectMetadata[] = [];
    let startAfter = query.cursor ? objectKey(query.cursor as Address) : undefined;
    let cursor: string | undefined;
    // Scan pages until limit + 1 matches (to know whether a next page exists) or the end.
    for (;;) {
      const page = await this.bucket.list({
        prefix: OBJECTS + prefix,
        limit: 1000,
        include: ['customMetadata', 'httpMetadata'],
        ...(cursor ? { cursor } : startAfter ? { startAfter } : {}),
      });
      for (const o of page.objects) {
        const meta = metaOf(`blake3:${o.key.slice(OBJECTS.length)}` as Address, o);
        if (query.kind && meta.kind !== query.kind) continue;
        items.push(meta);
        if (items.length > limit) return { items: items.slice(0, limit), next: items[limit - 1]?.id ?? null };
      }
      if (!page.truncated || !page.cursor) return { items, next: null };
      cursor = page.cursor;
      startAfter = undefined;
    }
  }

  async readRef(name: string): Promise<string | undefined> {
    if (!REF_NAME.test(name)) return undefined;
    const obj = await this.bucket.get(refKey(name));
    return obj ? obj.text() : undefined;
  }

  async writeRef(name: string, value: string): Promise<void> {
    if (!REF_NAME.test(name)) throw new Error(`invalid ref name ${JSON.stringify(name)}`);
    await this.bucket.put(refKey(name), value, { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
  }
}

function metaOf(address: Address, obj: R2ObjectLike): ObjectMetadata {
  const c = obj.customMetadata ?? {};
  return {
    id: address,
    kind: c.kind ?? 'unknown',
    // `mediatype`: what S3 tools write (S3 lower-cases metadata keys).
    media_type: c.mediaType ?? c.mediatype ?? obj.httpMetadata?.contentType ?? 'application/octet-stream',
    size: obj.size,
    created_at_millis: Number(c.created ?? 0),
    filename: c.filename ?? null,
  };
}
