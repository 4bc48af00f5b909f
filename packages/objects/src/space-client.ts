import {
  type Address,
  addressOf,
  type CoreDeps,
  canonicalBytes,
  canonicalJson,
  readSpace,
  readSpaces,
  SPACE_KIND,
  type SpaceObject,
  SpaceObjectSchema,
  SpacePathSchema,
  spaceMediaType,
} from '@hub/core-index';
import { PublishError, publishObject } from './publish-client.js';
import { acceptObject, CHUNK_BYTES } from './publish-routes.js';

/** Kind of the objects a space's files are published as. */
export const SPACE_FILE_KIND = 'model-hub.space-file';

export interface SpaceFileInput {
  /** relative, `/`-separated */
  path: string;
  bytes: Uint8Array;
}

export interface SpaceMeta {
  name: string;
  title?: string;
  about?: string;
  /** default `index.html` */
  entry?: string;
}

/** Where a space is published: a hub over HTTP (operators), or a store directly (seeding the bundled spaces). */
export interface SpaceSink {
  put(bytes: Uint8Array, kind: string, mediaType: string, filename: string | null): Promise<{ address: string; created: boolean }>;
  /** The name's current root and space object, or null for a new name. */
  current(name: string): Promise<{ root: string; space: SpaceObject } | null>;
}

export interface SpacePublishResult {
  name: string;
  root: string;
  /** false when this exact version was already current */
  changed: boolean;
  files: number;
  /** files the hub did not hold before */
  uploaded: number;
  bytes: number;
}

/** The space object for these files (sorted by path, each with its BLAKE3 address, size and media type). */
export function buildSpace(files: SpaceFileInput[], meta: SpaceMeta, prev: string | null): SpaceObject {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    const ok = SpacePathSchema.safeParse(f.path);
    if (!ok.success) throw new PublishError(`${f.path}: not a usable space path (${ok.error.issues[0]?.message})`, 400, 'INVALID_PATH');
    if (f.bytes.byteLength > CHUNK_BYTES) {
      throw new PublishError(`${f.path}: ${f.bytes.byteLength} bytes; a space file may be at most ${CHUNK_BYTES} bytes`, 413, 'TOO_LARGE');
    }
  }
  const space = {
    kind: SPACE_KIND,
    name: meta.name,
    title: meta.title ?? meta.name,
    about: meta.about ?? '',
    entry: meta.entry ?? 'index.html',
    files: sorted.map((f) => ({ path: f.path, address: addressOf(f.bytes), size: f.bytes.byteLength, media_type: spaceMediaType(f.path) })),
    prev,
  };
  const parsed = SpaceObjectSchema.safeParse(space);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new PublishError(`not a valid space: ${i?.path.join('.') ?? ''} ${i?.message ?? ''}`.trim(), 400, 'INVALID_OBJECT');
  }
  return parsed.data;
}

/**
 * Publish a space: every file as an object, then the space object naming them (its address is the
 * root). The hub refuses the space if it lacks a file, and makes it the name's current version.
 */
export async function publishSpace(files: SpaceFileInput[], meta: SpaceMeta, sink: SpaceSink): Promise<SpacePublishResult> {
  const now = await sink.current(meta.name);
  const current = now?.root ?? null;
  const space = buildSpace(files, meta, current);
  // The same content as the current version (whatever its prev): nothing to publish.
  const same = now !== null && canonicalJson({ ...now.space, prev: null }) === canonicalJson({ ...space, prev: null });
  let uploaded = 0;
  let bytes = 0;
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const r = await sink.put(f.bytes, SPACE_FILE_KIND, spaceMediaType(f.path).split(';')[0] ?? 'application/octet-stream', null);
    if (r.address !== addressOf(f.bytes)) throw new PublishError(`${f.path}: the hub named ${r.address}`, 502);
    if (r.created) uploaded++;
    bytes += f.bytes.byteLength;
  }
  if (now && same) return { name: meta.name, root: now.root, changed: false, files: files.length, uploaded, bytes };
  const spaceBytes = canonicalBytes(space);
  const root = addressOf(spaceBytes);
  if (root === current) return { name: meta.name, root, changed: false, files: files.length, uploaded, bytes };
  const r = await sink.put(spaceBytes, SPACE_KIND, 'application/json', null);
  if (r.address !== root) throw new PublishError(`space: the hub named ${r.address}, the bytes hash to ${root}`, 502);
  return { name: meta.name, root, changed: true, files: files.length, uploaded, bytes };
}

/** Publish to a hub over HTTP with a publisher token. */
export function httpSpaceSink(url: string, token: string, f: typeof fetch = fetch): SpaceSink {
  const base = url.replace(/\/+$/, '');
  return {
    async put(bytes, kind, mediaType, filename) {
      const r = await publishObject(base, token, bytes, { kind, mediaType, ...(filename ? { filename } : {}) }, f);
      return { address: r.address, created: r.created };
    },
    async current(name) {
      // The current root is on every answer of /spaces/{name}/ (X-Space-Root); 404 means a new name.
      const res = await f(`${base}/spaces/${encodeURIComponent(name)}/`, { method: 'HEAD', headers: { 'cache-control': 'no-cache' } });
      if (res.status === 404) return null;
      const root = res.headers.get('x-space-root');
      if (!res.ok || !root) throw new PublishError(`HEAD ${base}/spaces/${name}/: ${res.status}, no X-Space-Root`, res.status);
      const got = await f(`${base}/api/v1/objects/${root}`);
      const bytes = new Uint8Array(await got.arrayBuffer());
      if (!got.ok || addressOf(bytes) !== root) throw new PublishError(`GET ${base}/api/v1/objects/${root}: ${got.status}`, got.status);
      return { root, space: SpaceObjectSchema.parse(JSON.parse(new TextDecoder().decode(bytes))) };
    },
  };
}

/** Publish straight into a hub's store through the publish route's own checks (seeding, no token). */
export function storeSpaceSink(deps: Pick<CoreDeps, 'objects' | 'log'>): SpaceSink {
  return {
    async put(bytes, kind, mediaType, filename) {
      const r = await acceptObject(deps, bytes, { kind, mediaType, filename });
      if ('error' in r) {
        const body = typeof r.error.body === 'string' ? r.error.body : '';
        throw new PublishError(`publishing ${kind}: ${r.error.status} ${body}`, r.error.status);
      }
      return { address: r.meta.id, created: r.created };
    },
    async current(name) {
      const root = (await readSpaces(deps.objects)).catalog.spaces[name] as Address | undefined;
      const space = root ? await readSpace(deps.objects, root) : undefined;
      return root && space ? { root, space } : null;
    },
  };
}
