/**
 * `bundle.json`, the last file `hub bundle create` writes and the first `hub bundle import` reads (design 10.3): the
 * day's catalog, the archive the bundle carries, and the index objects it holds with their kind and media type. The
 * one definition of the format, in core-index beside the objects it names.
 * - `model-hub.bundle/v2` (written today): `objects` names a file of the bundle, {@link BUNDLE_OBJECTS_FILE}, holding
 *   one {@link BundleObjectSchema} JSON object a line, with its line count and SHA-256; each object's bytes are in
 *   `objects/<first 2 hex>/<64 hex>`. Read and written a line at a time, so a bundle of any size takes bounded memory.
 * - `model-hub.bundle/v1` (still imported): `objects` is an array in `bundle.json` itself, and the bytes are in
 *   `objects/<64 hex>`. Its `bundle.json` passes V8's longest string near 2 million models.
 */
import * as z from '../zod.js';
import { AddressSchema, ArchiveSchema } from './schemas.js';

export const BUNDLE_FORMAT = 'model-hub.bundle/v2';
export const BUNDLE_FORMAT_V1 = 'model-hub.bundle/v1';

/** Its name in a bundle folder. */
export const BUNDLE_FILE = 'bundle.json';

/** The object list of a v2 bundle: one {@link BundleObjectSchema} JSON object a line (JSON Lines). */
export const BUNDLE_OBJECTS_FILE = 'objects.jsonl';

/** One object a bundle holds: its address, and the kind and media type the hub published it with. */
export const BundleObjectSchema = z.object({ address: AddressSchema, kind: z.string().min(1), media_type: z.string().min(1) });

const head = {
  /** When the bundle was written (ISO 8601). */
  created: z.string(),
  /** The hub it was taken from. */
  hub: z.string(),
  /** The catalog of the day carried (the archive's first day). */
  catalog: AddressSchema,
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  archive: ArchiveSchema,
  /** The models whose files the bundle's mirror holds. */
  models: z.array(z.string()),
};

export const BundleV1Schema = z.object({ format: z.literal(BUNDLE_FORMAT_V1), ...head, objects: z.array(BundleObjectSchema) });

export const BundleSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  ...head,
  objects: z.object({
    /** The list's file in the bundle folder (always {@link BUNDLE_OBJECTS_FILE}). */
    file: z.literal(BUNDLE_OBJECTS_FILE),
    /** Its lines: the objects the bundle holds. */
    count: z.number().int().nonnegative(),
    /** The SHA-256 of the file's bytes (lowercase hex): a truncated or edited list is refused. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});

export type BundleObject = z.Infer<typeof BundleObjectSchema>;
export type Bundle = z.Infer<typeof BundleSchema>;
export type BundleV1 = z.Infer<typeof BundleV1Schema>;
