import { AddressSchema } from '../index/schemas.js';
import * as z from '../zod.js';

/**
 * The `model-hub.buckets` object (design 9.2): the buckets section's catalog. OCI names blobs by SHA-256 and the
 * object store by BLAKE3, so it maps every `sha256:` digest a bucket holds to the object holding those bytes, and
 * every bucket's tags to manifest digests. The ref `buckets` names the current one.
 */
export const BUCKETS_KIND = 'model-hub.buckets';
export const BUCKETS_REF = 'buckets';
/** The kind of the object holding one verified bucket blob or manifest. */
export const BUCKET_BLOB_KIND = 'model-hub.bucket-blob';

const Sha256DigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

export const BucketEntrySchema = z.object({
  /** tag → `sha256:` digest of the manifest or index it names */
  tags: z.record(z.string(), Sha256DigestSchema),
  /** `sha256:` digests of the blobs and manifests this bucket holds (pushed or mounted into it), sorted */
  digests: z.array(Sha256DigestSchema),
  /** total bytes of those digests, for the size limit */
  size: z.number().int().nonnegative(),
});

export const BucketsCatalogSchema = z.object({
  kind: z.literal(BUCKETS_KIND),
  blobs: z.record(Sha256DigestSchema, z.object({ address: AddressSchema, size: z.number().int().nonnegative(), media_type: z.string() })),
  buckets: z.record(z.string(), BucketEntrySchema),
});

export type BucketEntry = z.Infer<typeof BucketEntrySchema>;
export type BucketsCatalog = z.Infer<typeof BucketsCatalogSchema>;
