import {
  type Address,
  BUCKET_BLOB_KIND as BLOB_KIND,
  BUCKETS_KIND,
  BUCKETS_REF,
  type BucketEntry,
  type BucketsCatalog,
  BucketsCatalogSchema,
  canonicalBytes,
  type ObjectStore,
  withRef,
} from '@hub/core-index';

/**
 * Where bucket blobs live (design 9.2, docs/decisions/spaces-and-buckets.md "Buckets"): each verified blob is one object of
 * kind `model-hub.bucket-blob` in the BLAKE3 object store, so a block is stored once whatever bucket
 * names it. OCI speaks sha256; the map from sha256 to BLAKE3 address lives in the `model-hub.buckets`
 * catalog object, which also maps every bucket's tags to manifest digests and is the section's catalog.
 * The ref `buckets` names the current catalog. Every write is: put the object (content-addressed, so a
 * repeat is a no-op), put the new catalog, then move the ref atomically; a kill at any point leaves the
 * old catalog or the new one, never half of either.
 */
export { BUCKET_BLOB_KIND as BLOB_KIND, BUCKETS_KIND, BUCKETS_REF, type BucketEntry, type BucketsCatalog } from '@hub/core-index';

export function emptyCatalog(): BucketsCatalog {
  return { kind: BUCKETS_KIND, blobs: {}, buckets: {} };
}

export class BucketStore {
  /** Writes of the catalog run one after another, so no update is lost. */
  #chain: Promise<unknown> = Promise.resolve();

  /** The last catalog read, by address: parsed once. */
  #last?: { address: Address; catalog: BucketsCatalog };

  constructor(private readonly objects: ObjectStore) {}

  /**
   * The current catalog, parsed once per address and shared by every read: callers only read it. Changes go through
   * `#update`, which works on its own copy, so reads on the request path never copy the catalog.
   */
  async catalog(): Promise<{ catalog: BucketsCatalog; address: Address | undefined }> {
    const ref = (await this.objects.readRef(BUCKETS_REF)) as Address | null;
    if (!ref) return { catalog: emptyCatalog(), address: undefined };
    if (this.#last?.address === ref) return { catalog: this.#last.catalog, address: ref };
    const stored = await this.objects.get(ref);
    if (!stored) return { catalog: emptyCatalog(), address: undefined };
    const catalog = BucketsCatalogSchema.parse(JSON.parse(new TextDecoder().decode(stored.bytes)));
    this.#last = { address: ref, catalog };
    return { catalog, address: ref };
  }

  /** Stores a verified manifest or index (its blobs already checked) and, with a tag, points the tag at it: one catalog write. */
  putManifest(bucket: string, digest: string, bytes: Uint8Array, mediaType: string, tag?: string): Promise<void> {
    return this.#update(async (catalog) => {
      const { meta } = await this.objects.put(bytes, { kind: BLOB_KIND, mediaType });
      catalog.blobs[digest] = { address: meta.id as Address, size: bytes.byteLength, media_type: mediaType };
      addDigest(catalog, bucket, digest, bytes.byteLength);
      if (tag) bucketEntry(catalog, bucket).tags[tag] = digest;
    });
  }

  /** The bytes of a blob or manifest by `sha256:` digest, if the given bucket holds it. */
  async read(bucket: string, digest: string): Promise<{ bytes: Uint8Array; mediaType: string } | undefined> {
    const { catalog } = await this.catalog();
    if (!catalog.buckets[bucket]?.digests.includes(digest)) return undefined;
    const blob = catalog.blobs[digest];
    if (!blob) return undefined;
    const stored = await this.objects.get(blob.address as Address);
    return stored ? { bytes: stored.bytes, mediaType: blob.media_type } : undefined;
  }

  /** Stores verified bytes (their digest already checked) and adds the digest to the bucket. */
  store(bucket: string, digest: string, bytes: Uint8Array, mediaType: string): Promise<Address> {
    return this.#update(async (catalog) => {
      const { meta } = await this.objects.put(bytes, { kind: BLOB_KIND, mediaType });
      catalog.blobs[digest] = { address: meta.id as Address, size: bytes.byteLength, media_type: mediaType };
      addDigest(catalog, bucket, digest, bytes.byteLength);
      return meta.id as Address;
    });
  }

  /** Cross-repository mount: true when `from` held the digest and `bucket` now holds it too. */
  mount(bucket: string, from: string, digest: string): Promise<boolean> {
    return this.#update(async (catalog) => {
      const blob = catalog.blobs[digest];
      if (!blob || !catalog.buckets[from]?.digests.includes(digest)) return false;
      addDigest(catalog, bucket, digest, blob.size);
      return true;
    });
  }

  tag(bucket: string, tag: string, digest: string): Promise<void> {
    return this.#update(async (catalog) => {
      const entry = bucketEntry(catalog, bucket);
      entry.tags[tag] = digest;
    });
  }

  #update<T>(change: (catalog: BucketsCatalog) => Promise<T>): Promise<T> {
    // Queued in this process, and held against the other processes sharing the data folder (issue 41): the
    // catalog is read again under the lock, so a change another process made is kept.
    const run = this.#chain.then(() =>
      withRef(this.objects, BUCKETS_REF, async () => {
        const catalog = structuredClone((await this.catalog()).catalog);
        const out = await change(catalog);
        const { meta } = await this.objects.put(canonicalBytes(catalog), { kind: BUCKETS_KIND, mediaType: 'application/json' });
        await this.objects.writeRef(BUCKETS_REF, meta.id);
        this.#last = { address: meta.id as Address, catalog };
        return out;
      }),
    );
    this.#chain = run.catch(() => undefined);
    return run;
  }
}

function bucketEntry(catalog: BucketsCatalog, bucket: string): BucketEntry {
  let entry = catalog.buckets[bucket];
  if (!entry) {
    entry = { tags: {}, digests: [], size: 0 };
    catalog.buckets[bucket] = entry;
  }
  return entry;
}

function addDigest(catalog: BucketsCatalog, bucket: string, digest: string, size: number): void {
  const entry = bucketEntry(catalog, bucket);
  if (entry.digests.includes(digest)) return;
  entry.digests.push(digest);
  entry.digests.sort();
  entry.size += size;
}
