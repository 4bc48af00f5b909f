/**
 * Names in a data folder beside the object store, shared by `hub serve` and `hub bundle`. Kept apart from bundle.ts so
 * a start does not load the bundle code and the download client it imports.
 */

/** In a data folder: the imported bundles, newest last (its presence makes `hub serve` air-gapped by default). */
export const IMPORTED_FILE = 'imported-bundles.json';
/** In a data folder: the mirror a bundle import fills, served by `hub serve` on the next port. */
export const DATA_MIRROR = 'mirror';
/** In a data folder: the open blob uploads of bucket pushes, shared by every process on the folder (bucket-uploads.ts). */
export const UPLOADS_DIR = 'uploads';
