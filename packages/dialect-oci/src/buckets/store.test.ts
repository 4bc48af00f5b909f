import { addressOf, MemoryObjectStore, sha256Hex } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { BLOB_KIND, BucketStore } from './store.js';

// SYNTHETIC bytes, generated here.
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);
const digestOf = (b: Uint8Array) => `sha256:${sha256Hex(b)}`;

describe('bucket store', () => {
  it('stores a blob once by content, maps sha256 to its BLAKE3 address, and the catalog address is the BLAKE3 of its bytes', async () => {
    const objects = new MemoryObjectStore();
    const store = new BucketStore(objects);
    const b = bytes(1000);
    const address = await store.store('a', digestOf(b), b, 'application/octet-stream');
    expect(address).toBe(addressOf(b));
    await store.store('b', digestOf(b), b, 'application/octet-stream');
    const blobs = await objects.list({ kind: BLOB_KIND });
    expect(blobs.items).toHaveLength(1);
    const { catalog, address: catalogAddress } = await store.catalog();
    expect(catalog.blobs[digestOf(b)]?.address).toBe(addressOf(b));
    const stored = catalogAddress ? await objects.get(catalogAddress) : undefined;
    expect(stored && addressOf(stored.bytes)).toBe(catalogAddress);
    expect(catalog.buckets.a?.size).toBe(1000);
  });

  it('reads only what a bucket holds; a mount from a bucket that holds the digest adds it', async () => {
    const store = new BucketStore(new MemoryObjectStore());
    const b = bytes(10);
    await store.store('a', digestOf(b), b, 'application/octet-stream');
    expect(await store.read('c', digestOf(b))).toBeUndefined();
    expect(await store.mount('c', 'nobody', digestOf(b))).toBe(false);
    expect(await store.mount('c', 'a', digestOf(b))).toBe(true);
    expect(Array.from((await store.read('c', digestOf(b)))?.bytes ?? [])).toEqual(Array.from(b));
  });

  it('concurrent writes lose no update, and tags map to digests', async () => {
    const store = new BucketStore(new MemoryObjectStore());
    const blobs = [1, 2, 3, 4, 5].map((s) => bytes(20, s));
    await Promise.all(blobs.map((b) => store.store('a', digestOf(b), b, 'application/octet-stream')));
    await store.tag('a', 'v1', digestOf(blobs[0] as Uint8Array));
    const { catalog } = await store.catalog();
    expect(catalog.buckets.a?.digests).toHaveLength(5);
    expect(catalog.buckets.a?.tags.v1).toBe(digestOf(blobs[0] as Uint8Array));
  });
});
