// Upload an object store (the demo index, or any index built with `hub index build`) to the edge's R2
// bucket in the layout R2ObjectStore reads: `objects/<hex>` with the metadata as custom metadata, and
// `refs/<name>`. Used by `pnpm --filter @hub/edge dev` (local R2 through wrangler's getPlatformProxy)
// and by the tests (Miniflare's R2).

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
