/**
 * `bundle.json`, the last file `hub bundle create` writes and the first `hub bundle import` reads (design 10.3): the
 * day's catalog, the archive the bundle carries, and every index object it holds with its kind and media type. The
 * one definition of the format, in core-index beside the objects it names.
 */
import * as z from '../zod.js';
import { AddressSchema, ArchiveSchema } from './schemas.js';

export const BUNDLE_FORMAT = 'model-hub.bundle/v1';

/** Its name in a bundle folder. */
export const BUNDLE_FILE = 'bundle.json';

export const BundleSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  /** When the bundle was written (ISO 8601). */
  created: z.string(),
  /** The hub it was taken from. */
  hub: z.string(),
  /** The catalog of the day carried (the archive's first day). */
  catalog: AddressSchema,
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  archive: ArchiveSchema,
  objects: z.array(z.object({ address: AddressSchema, kind: z.string().min(1), media_type: z.string().min(1) })),
  /** The models whose files the bundle's mirror holds. */
  models: z.array(z.string()),
});

export type Bundle = z.Infer<typeof BundleSchema>;
