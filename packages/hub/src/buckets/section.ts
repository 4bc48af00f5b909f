import type { Address, BucketsCatalog, RequestObject, SectionDescriptor } from '@hub/core-index';
import { escapeHtml, formatBytes } from '../site/html.js';

/** The current buckets catalog and its address (design 9.2). */
export interface BucketsState {
  address: Address;
  catalog: BucketsCatalog;
}

const MANIFEST = /manifest|image\.index/;

/** The first bucket with a tag, its first tag, and a blob (not a manifest) it holds: the section's runnable examples. */
export function bucketExample(catalog: BucketsCatalog) {
  for (const [name, entry] of Object.entries(catalog.buckets).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const tag = Object.keys(entry.tags).sort()[0];
    const blob = entry.digests.find((d) => catalog.blobs[d] && !MANIFEST.test(catalog.blobs[d]?.media_type ?? ''));
    if (tag && blob) return { name, tag, blob };
  }
  return undefined;
}

/** The buckets SectionDescriptor when a bucket with a tag exists; every Request names a real bucket, tag and blob. */
export function bucketsDescriptor(
  state: BucketsState,
  common: Omit<SectionDescriptor, 'about' | 'inventory' | 'catalog' | 'list' | 'item' | 'fetch' | 'verify'>,
  origin: string,
): SectionDescriptor | undefined {
  const ex = bucketExample(state.catalog);
  if (!ex) return undefined;
  const names = Object.keys(state.catalog.buckets).sort();
  const bytes = Object.values(state.catalog.blobs).reduce((n, b) => n + b.size, 0);
  const list: RequestObject[] = [
    {
      method: 'GET',
      url: '/api/v1/objects/{catalog.address}',
      returns:
        'the buckets catalog (model-hub.buckets): every bucket with its tags and digests, and each sha256 digest with the BLAKE3 address of its bytes',
      dialect: 'objects',
    },
    {
      method: 'GET',
      url: '/v2/_catalog',
      returns: 'every repository of the registry; buckets are hub/buckets/{name}',
      dialect: 'oci',
    },
  ];
  const host = origin.replace(/^https?:\/\//, '');
  return {
    ...common,
    about:
      'OCI index trees the hub holds (datasets, adapters, tokenizer packs, evaluation sets), in repositories hub/buckets/{name}: every block stored once and checked against its sha256 digest when it is pushed; pulled by any OCI client.',
    inventory: {
      described: names.length,
      served_here: names.length,
      note: `${names.length} bucket${names.length === 1 ? '' : 's'} (${names.join(', ')}), ${Object.keys(state.catalog.blobs).length} blobs and manifests, ${bytes} bytes, all served here from the object store.`,
    },
    catalog: {
      address: state.address,
      fetch: '/api/v1/objects/{catalog.address}',
      format: 'model-hub.buckets',
      media_type: 'application/json',
      note: 'canonical JSON; its BLAKE3 is the address. Every push that changes a bucket writes a new catalog and moves the buckets ref.',
    },
    list,
    item: {
      method: 'GET',
      url: `/v2/hub/buckets/${ex.name}/tags/list`,
      returns: 'the tags of one bucket (OciTagList)',
      dialect: 'oci',
      note: 'any bucket name from the catalog in its place',
    },
    files: {
      method: 'GET',
      url: `/v2/hub/buckets/${ex.name}/manifests/${ex.tag}`,
      returns: 'the manifest or index a tag names, with the media type it was pushed with and Docker-Content-Digest',
      dialect: 'oci',
    },
    fetch: {
      method: 'GET',
      url: `/v2/hub/buckets/${ex.name}/blobs/${ex.blob}`,
      returns: 'one blob: its bytes (the hub holds them), Range supported; sha256 of the bytes = the digest in the URL',
      dialect: 'oci',
    },
    verify: {
      algorithm: 'sha256',
      expected_from: 'the manifest of the tag: config and layers by their sha256 digests; the manifest itself by the digest its tag names',
      server_verifies_on_read: false,
      root: 'the digest a tag names seals the tree: the manifest (or index) lists every blob by digest',
    },
    one_line: `skopeo copy --preserve-digests --src-tls-verify=false docker://${host}/hub/buckets/${ex.name}:${ex.tag} oci:./${ex.name}:${ex.tag}`,
  };
}

/** The list of buckets on the section page. */
export function bucketsSectionHtml(state: BucketsState): string {
  const items = Object.entries(state.catalog.buckets)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, entry]) => {
      const tags = Object.keys(entry.tags).sort();
      const links = tags.map((t) => `<a href="/v2/hub/buckets/${escapeHtml(name)}/manifests/${escapeHtml(t)}">${escapeHtml(t)}</a>`);
      return `<li><code>hub/buckets/${escapeHtml(name)}</code>: ${tags.length ? `tags ${links.join(', ')}` : 'no tag yet'} <span class="muted">(${entry.digests.length} blobs and manifests, ${formatBytes(entry.size)})</span></li>`;
    })
    .join('');
  return items ? `<h2>Buckets here</h2><ul>${items}</ul>` : '';
}
