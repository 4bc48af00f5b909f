// Upload an object store (the demo index, or any index built with `hub index build`) to the edge's R2
// bucket in the layout R2ObjectStore reads: `objects/<hex>` with the metadata as custom metadata, and
// `refs/<name>`. Used by `pnpm --filter @hub/edge dev` (local R2 through wrangler's getPlatformProxy)
// and by the tests (Miniflare's R2).

/**
 * What `pnpm --filter @hub/edge dev` serves, seeded as node-server seeds an empty data folder (issue 27): the bundled
 * spaces first (so the demo day's archive records their catalog), the demo bucket, then the demo index. `node` holds
 * @hub/node-toolkit's seedSpaces, seedBuckets and seedDemo, `core` @hub/core-index's MemoryObjectStore and silentLogger.
 */
export async function demoStore(node, core) {
  const store = new core.MemoryObjectStore();
  await node.seedSpaces(store, core.silentLogger);
  await node.seedBuckets(store, core.silentLogger);
  const built = await node.seedDemo(store);
  return { store, catalog: built.catalog };
}

/** True when the bucket already holds what `demoStore` built: today's index, the spaces and the buckets. */
export async function bucketHolds(bucket, from) {
  for (const ref of ['current', 'spaces', 'buckets']) {
    const want = await from.readRef(ref);
    const have = await (await bucket.get(`refs/${ref}`))?.text();
    if (want !== undefined && have !== want) return false;
  }
  return true;
}

/**
 * Copy every object the bucket lacks and the `log`, `archive`, `pins` and `current` refs (current last) of
 * `from` into an R2 bucket. Returns how many objects were written.
 */
export async function uploadStore(from, bucket) {
  let cursor;
  let objects = 0;
  for (;;) {
    const page = await from.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const meta of page.items) {
      const key = `objects/${meta.id.slice('blake3:'.length)}`;
      // An address never changes meaning: an object already in the bucket is the same object.
      if (await bucket.head(key)) continue;
      const stored = await from.get(meta.id);
      if (!stored) continue;
      const custom = { kind: meta.kind, mediaType: meta.media_type, created: String(meta.created_at_millis) };
      if (meta.filename) custom.filename = meta.filename;
      await bucket.put(key, stored.bytes, {
        httpMetadata: { contentType: meta.media_type },
        customMetadata: custom,
      });
      objects++;
    }
    if (!page.next) break;
    cursor = page.next;
  }
  // `current` last: an edge that reads it finds every object already there.
  for (const ref of ['log', 'archive', 'pins', 'spaces', 'buckets', 'current']) {
    const value = await from.readRef(ref);
    if (value !== undefined) await bucket.put(`refs/${ref}`, value, { httpMetadata: { contentType: 'text/plain; charset=utf-8' } });
  }
  return { objects };
}
