import { createHash } from 'node:crypto';
import { BUCKETS_REF, type Logger, type ObjectStore } from '@hub/core-index';
import { BucketStore } from '@hub/dialect-oci';

const enc = (s: string) => new TextEncoder().encode(s);
const digestOf = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** The bucket seeded on first start, so the buckets section shows a real, pullable tree. */
export const DEMO_BUCKET = { name: 'demo-eval', tag: 'v1' } as const;

/**
 * SYNTHETIC files of the demo bucket: a tiny evaluation set made up for the demo (not real data), as an OCI artifact
 * (design 9.2): an empty config, one layer per file annotated with its path.
 */
const FILES: Array<{ path: string; mediaType: string; text: string }> = [
  {
    path: 'README.md',
    mediaType: 'text/markdown',
    text: '# demo-eval (SYNTHETIC)\n\nA made-up evaluation set seeded with the demo index, to show a bucket: pull it with any OCI client.\n',
  },
  {
    path: 'eval.csv',
    mediaType: 'text/csv',
    text: 'prompt,expected\n"2 + 2 =",4\n"The capital of France is",Paris\n"SYNTHETIC row",ok\n',
  },
];

/**
 * Seed the demo bucket through the same store the push routes write (each blob checked against its digest), only
 * into a store that has no buckets yet.
 */
export async function seedBuckets(objects: ObjectStore, log: Logger): Promise<void> {
  if (await objects.readRef(BUCKETS_REF)) return;
  const store = new BucketStore(objects);
  const config = enc('{}');
  const configDigest = digestOf(config);
  await store.store(DEMO_BUCKET.name, configDigest, config, 'application/vnd.oci.empty.v1+json');
  const layers = [];
  for (const f of FILES) {
    const bytes = enc(f.text);
    const digest = digestOf(bytes);
    await store.store(DEMO_BUCKET.name, digest, bytes, 'application/octet-stream');
    layers.push({ mediaType: f.mediaType, digest, size: bytes.byteLength, annotations: { 'org.opencontainers.image.title': f.path } });
  }
  const mediaType = 'application/vnd.oci.image.manifest.v1+json';
  const manifest = enc(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      artifactType: 'application/vnd.model-hub.bucket.v1',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: configDigest, size: config.byteLength },
      layers,
      annotations: { 'org.opencontainers.image.description': 'SYNTHETIC demo evaluation set' },
    }),
  );
  await store.putManifest(DEMO_BUCKET.name, digestOf(manifest), manifest, mediaType, DEMO_BUCKET.tag);
  log.info({ event: 'bucket-seeded', bucket: DEMO_BUCKET.name, tag: DEMO_BUCKET.tag }, 'seeded the demo bucket');
}
