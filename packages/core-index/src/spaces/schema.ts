import { AddressSchema } from '../index/schemas.js';
import * as z from '../zod.js';

/** Kind of one published space (design 9.1): its BLAKE3 address is the space's root digest. */
export const SPACE_KIND = 'model-hub.space';
/** Kind of the spaces catalog: space name → current root. */
export const SPACES_KIND = 'model-hub.spaces';

/** A space name: what `/spaces/{name}/` uses; never starts with `blake3:` (that prefix names a sealed root). */
export const SpaceNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a space name is 1-63 of a-z 0-9 -, starting with a letter or digit');

/** A file path inside a space: relative, `/`-separated, no empty, `.` or `..` segment. */
export const SpacePathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine(
    (p) => !p.startsWith('/') && !/[\\\0]/.test(p) && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'),
    'a space path is relative, /-separated, without empty, . or .. segments',
  );

export const SpaceFileSchema = z.object({
  path: SpacePathSchema,
  address: AddressSchema,
  size: z.number().int().nonnegative(),
  media_type: z.string().min(3).max(255),
});

export const SpaceObjectSchema = z
  .object({
    kind: z.literal(SPACE_KIND),
    name: SpaceNameSchema,
    title: z.string().max(200),
    about: z.string().max(2000),
    /** The file served at `/spaces/{name}/` (for example `index.html`). */
    entry: SpacePathSchema,
    /** Sorted by path, each path once. */
    files: z.array(SpaceFileSchema).min(1).max(10_000),
    /** The space's previous root, or null for its first version. */
    prev: AddressSchema.nullable(),
  })
  .superRefine((s, ctx) => {
    for (let i = 1; i < s.files.length; i++) {
      const a = s.files[i - 1]?.path ?? '';
      const b = s.files[i]?.path ?? '';
      if (!(a < b))
        ctx.addIssue({ code: 'custom', path: ['files', i], message: `files must be sorted by path, each once (${a} before ${b})` });
    }
    if (!s.files.some((f) => f.path === s.entry)) {
      ctx.addIssue({ code: 'custom', path: ['entry'], message: `entry ${s.entry} is not one of the files` });
    }
  });

export const SpacesCatalogSchema = z.object({
  kind: z.literal(SPACES_KIND),
  /** name → root (the address of that space's current `model-hub.space` object) */
  spaces: z.record(SpaceNameSchema, AddressSchema),
  /** The previous spaces catalog, or null. */
  prev: AddressSchema.nullable(),
});

export type SpaceObject = z.Infer<typeof SpaceObjectSchema>;
export type SpacesCatalog = z.Infer<typeof SpacesCatalogSchema>;

const MEDIA_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  map: 'application/json',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
  woff: 'font/woff',
};

/** The media type a space file is served with, from its extension; unknown extensions are octet streams. */
export function spaceMediaType(path: string): string {
  const dot = path.lastIndexOf('.');
  const ext = dot < 0 ? '' : path.slice(dot + 1).toLowerCase();
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

/** The addresses a space or spaces catalog names that the store does not hold (what publishing refuses). */
export async function missingAddresses(addresses: Iterable<string>, has: (a: string) => Promise<boolean>): Promise<string[]> {
  const missing: string[] = [];
  for (const a of new Set(addresses)) if (!(await has(a))) missing.push(a);
  return missing;
}
