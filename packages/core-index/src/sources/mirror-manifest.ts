import { Sha256Schema } from '../index/schemas.js';
import { mirrorFileTemplate, type SourceConfig } from '../index/source-kinds.js';
import * as z from '../zod.js';

export { mirrorFilePath } from '../index/source-kinds.js';

/**
 * A local mirror (design 10.3): a folder of verified files named by their SHA-256 (`sha256/<hex>`) and a manifest of
 * what it holds (`manifest.json`). Any static web server with `Range` serves it; a hub configured with it reads the
 * manifest on each probe round and redirects to it for exactly the SHA-256s listed.
 */
export const MIRROR_FORMAT = 'model-hub.mirror/v1';
export const MIRROR_MANIFEST = 'manifest.json';

const Hex64 = Sha256Schema;

export const MirrorManifestSchema = z.object({
  format: z.literal(MIRROR_FORMAT),
  /** when the manifest was last written */
  updated: z.string(),
  /** when every file was last re-hashed (`hub mirror verify`), or null */
  verified: z.string().datetime({ offset: true }).nullable(),
  /** every file the folder holds, once per SHA-256 */
  files: z.array(z.object({ sha256: Hex64, size: z.number().int().nonnegative() })),
  /** the models pulled into it: which paths of which revision the files are */
  models: z.array(
    z.object({
      id: z.string(),
      revision: z.string(),
      files: z.array(z.object({ path: z.string(), sha256: Hex64, size: z.number().int().nonnegative() })),
    }),
  ),
});
export type MirrorManifest = z.Infer<typeof MirrorManifestSchema>;

/** Parse a manifest's text; throws a readable error. */
export function parseMirrorManifest(text: string): MirrorManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`the mirror manifest is not JSON (${(e as Error).message})`);
  }
  const parsed = MirrorManifestSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`the mirror manifest does not match ${MIRROR_FORMAT}: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/** What a hub knows of a mirror source from its last manifest read (kept in the probe state). */
export interface MirrorHolding {
  files: number;
  bytes: number;
  /** the manifest's `verified` */
  verified: string | null;
  /** when the hub last read the manifest (ISO) */
  read: string;
  /** the SHA-256s held, sorted */
  sha256: string[];
  /** size by position in `sha256` */
  sizes: number[];
}

export function holdingOf(manifest: MirrorManifest, readAt: number): MirrorHolding {
  const rows = [...manifest.files].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
  return {
    files: rows.length,
    bytes: rows.reduce((n, f) => n + f.size, 0),
    verified: manifest.verified,
    read: new Date(readAt).toISOString(),
    sha256: rows.map((f) => f.sha256),
    sizes: rows.map((f) => f.size),
  };
}

const sets = new WeakMap<MirrorHolding, Set<string>>();

/** True when the mirror's last manifest lists this SHA-256. */
export function mirrorHolds(holding: MirrorHolding | undefined, sha256: string | undefined): boolean {
  if (!holding || !sha256) return false;
  let s = sets.get(holding);
  if (!s) {
    s = new Set(holding.sha256);
    sets.set(holding, s);
  }
  return s.has(sha256.toLowerCase());
}

/** The file URL template of a mirror source (see `mirrorFileTemplate`). */
export function mirrorTemplate(config: SourceConfig): string | undefined {
  return config.url ? mirrorFileTemplate(config.url) : undefined;
}

/** Where a mirror source's manifest is: `manifest`, else `<url>/manifest.json` (undefined for a template without one). */
export function mirrorManifestUrl(config: SourceConfig): string | undefined {
  if (config.manifest) return config.manifest;
  if (!config.url || config.url.includes('{')) return undefined;
  return `${config.url.replace(/\/+$/, '')}/${MIRROR_MANIFEST}`;
}
