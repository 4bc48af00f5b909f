import {
  type Address,
  addressOf,
  CatalogObjectSchema,
  CatalogShardSchema,
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HubResponse,
  json,
  type ListQuery,
  ModelObjectSchema,
  missingAddresses,
  type ObjectMetadata,
  type Route,
  readBody,
  recordSpace,
  SourceObjectSchema,
  SPACE_KIND,
  SPACES_KIND,
  type SpaceObject,
  SpaceObjectSchema,
  SpacesCatalogSchema,
  spaceConflict,
} from '@hub/core-index';
import { PUBLISH_API } from './api.js';

/** Chunk objects of a payload published in pieces. */
export const CHUNK_KIND = 'model-hub.chunk';
/** The record that joins chunks (see {@link ChunkedRecord}). */
export const CHUNKED_KIND = 'model-hub.chunked';
export const CHUNKED_FORMAT = 'svc.model-hub.chunked/v1';
/** Payloads over this size are published as chunks of this size (spec: 16 MiB). */
export const CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * A payload published as chunks: the chunk addresses in order, and the size, SHA-256 and BLAKE3
 * address the joined bytes must have. Its own address is what the publisher hands out.
 */
export interface ChunkedRecord {
  kind: typeof CHUNKED_KIND;
  format: typeof CHUNKED_FORMAT;
  /** kind and media type of the joined payload */
  object_kind: string;
  media_type: string;
  filename: string | null;
  size: number;
  sha256: string;
  /** the address the joined bytes hash to */
  blake3: string;
  chunk_bytes: number;
  chunks: string[];
}

const KIND = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/;
const JSON_KINDS: Record<string, { parse(v: unknown): unknown }> = {
  'model-hub.catalog': CatalogObjectSchema,
  'model-hub.catalog-shard': CatalogShardSchema,
  'model-hub.model': ModelObjectSchema,
  'model-hub.source': SourceObjectSchema,
  [SPACE_KIND]: SpaceObjectSchema,
  [SPACES_KIND]: SpacesCatalogSchema,
};

function spaceConflictResponse(space: SpaceObject, current: string | null) {
  return errorResponse(
    'objects',
    409,
    'CONFLICT',
    `Space ${space.name} is now at ${current ?? 'nothing (a new name)'}, but this space object's prev is ${space.prev ?? 'null'}; set prev to ${current ?? 'null'} and publish again.`,
  );
}

function bad(code: string, message: string) {
  return errorResponse('objects', 400, code, message);
}

/**
 * What the publish route does once the caller is authorised and the body read: check the kind's
 * schema, refuse a space or spaces catalog that names an address this store does not hold, compare a
 * space's prev with its name's current root, store the bytes, and make a space current. Seeding the
 * bundled spaces calls this too, so they pass exactly the checks an operator's publish does.
 */
export async function acceptObject(
  deps: Pick<CoreDeps, 'objects' | 'log'>,
  bytes: Uint8Array,
  options: { kind: string; mediaType: string; filename: string | null },
): Promise<{ meta: ObjectMetadata; created: boolean } | { error: HubResponse }> {
  const { kind, mediaType, filename } = options;
  const schema = JSON_KINDS[kind];
  let space: SpaceObject | undefined;
  if (schema) {
    let parsed: unknown;
    try {
      parsed = schema.parse(JSON.parse(new TextDecoder().decode(bytes)));
    } catch (e) {
      return { error: bad('INVALID_OBJECT', `The body is not a valid ${kind} object: ${(e as Error).message.slice(0, 300)}`) };
    }
    // A space seals its files by address, and the spaces catalog names roots: both must name only
    // objects this store holds, or the sealed URL would answer 404 for a file it promises.
    if (kind === SPACE_KIND) space = parsed as SpaceObject;
    const named = space
      ? space.files.map((f) => f.address)
      : kind === SPACES_KIND
        ? Object.values(SpacesCatalogSchema.parse(parsed).spaces)
        : [];
    const missing = await missingAddresses(named, (a) => deps.objects.has(a as Address));
    if (missing.length > 0) {
      return {
        error: bad(
          'UNKNOWN_ADDRESS',
          `The ${kind} object names ${missing.length} address(es) this hub does not hold; publish them first: ${missing.slice(0, 5).join(', ')}`,
        ),
      };
    }
  }
  if (space) {
    const current = await spaceConflict(deps.objects, space, addressOf(bytes));
    if (current !== false) return { error: spaceConflictResponse(space, current) };
  }
  const { meta, created } = await deps.objects.put(bytes, { kind, mediaType, filename });
  if (space) {
    // The object is stored; now it becomes the name's current root (a new spaces catalog, then the ref).
    const recorded = await recordSpace(deps.objects, meta.id as Address, space);
    if (recorded.outcome === 'conflict') return { error: spaceConflictResponse(space, recorded.current) };
    deps.log.info({ event: 'space-published', name: space.name, root: meta.id, catalog: recorded.catalog }, 'space published');
  }
  deps.log.info({ event: 'object-published', id: meta.id, kind: meta.kind, size: meta.size, created }, 'object published');
  return { meta, created };
}

/** One publish event per authorised attempt (design 10.2): created (201), already there (200), or refused. */
function counted<D extends CoreDeps>(handler: Route<D>['handler']): Route<D>['handler'] {
  return async (ctx) => {
    let res: HubResponse | undefined;
    try {
      res = await handler(ctx);
      return res;
    } finally {
      ctx.deps.metrics.emit({ type: 'publish', outcome: res?.status === 201 ? 'created' : res?.status === 200 ? 'existing' : 'refused' });
    }
  };
}

/** Publishing and listing objects: `POST /api/v1/objects` and `GET /api/v1/objects` (publisher token). */
function publishRouteTable<D extends CoreDeps>(): Route<D>[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/objects',
      rules: 'publish',
      group: 'objects',
      errors: 'objects',
      cache: 'no-store',
      summary: 'Publish an object: raw bytes, Content-Type = media type, X-Object-Kind = kind; 201 ObjectMetadata, 200 when it exists',
      handler: counted(async ({ req, deps, origin }) => {
        const kind = req.headers.get('x-object-kind')?.trim() ?? '';
        if (!KIND.test(kind)) {
          return bad('INVALID_KIND', 'Send X-Object-Kind: the object kind, 1-64 of a-z 0-9 . _ - (for example model-hub.model).');
        }
        const mediaType = (req.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
        if (!MEDIA_TYPE.test(mediaType))
          return bad('INVALID_MEDIA_TYPE', 'Send Content-Type: the media type of the bytes (for example application/json).');
        const filenameRaw = req.headers.get('x-object-filename');
        const filename = filenameRaw && filenameRaw.length <= 255 && !/[\\/\0]/.test(filenameRaw) ? filenameRaw : null;
        // Limit enforced while the body streams: an oversized body is refused without being buffered whole.
        const bytes = await readBody(req, deps.settings.maxRequestBytes);
        if (bytes.byteLength === 0) return bad('EMPTY_BODY', 'The body is empty; send the object bytes as the request body.');
        const accepted = await acceptObject(deps, bytes, { kind, mediaType, filename });
        if ('error' in accepted) return accepted.error;
        const { meta, created } = accepted;
        return json(created ? 201 : 200, meta, { location: `${origin}/api/v1/objects/${meta.id}` });
      }),
    },
    {
      method: 'GET',
      path: '/api/v1/objects',
      rules: 'publish',
      group: 'objects',
      errors: 'objects',
      cache: 'no-store',
      summary: 'List and search objects (publisher token): kind, prefix, cursor, limit',
      handler: async ({ deps, query, origin }) => {
        const q: ListQuery = {};
        const kind = query.get('kind');
        if (kind !== null && kind !== '') {
          if (!KIND.test(kind)) return bad('INVALID_QUERY', 'kind must be 1-64 of a-z 0-9 . _ -.');
          q.kind = kind;
        }
        const prefix = query.get('prefix');
        if (prefix !== null && prefix !== '') {
          if (!/^(blake3:)?[0-9a-f]{0,64}$/.test(prefix))
            return bad('INVALID_QUERY', 'prefix must be lowercase hex, with or without blake3:.');
          q.prefix = prefix;
        }
        const cursor = query.get('cursor');
        if (cursor !== null && cursor !== '') {
          if (!/^blake3:[0-9a-f]{64}$/.test(cursor)) return bad('INVALID_CURSOR', 'cursor must be the next value of a previous page.');
          q.cursor = cursor as Address;
        }
        const limitRaw = query.get('limit');
        if (limitRaw !== null && limitRaw !== '') {
          if (!/^\d{1,4}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 1000) {
            return bad('INVALID_QUERY', 'limit must be a whole number from 1 to 1000 (default 100).');
          }
          q.limit = Number(limitRaw);
        }
        const page = await deps.objects.list(q);
        const headers: Record<string, string> = {};
        if (page.next) {
          const params = new URLSearchParams();
          if (q.kind) params.set('kind', q.kind);
          if (q.prefix) params.set('prefix', q.prefix);
          if (q.limit) params.set('limit', String(q.limit));
          params.set('cursor', page.next);
          headers.link = `<${origin}/api/v1/objects?${params.toString()}>; rel="next"`;
        }
        return json(200, { items: page.items, next: page.next }, headers);
      },
    },
  ];
}

/** {@link publishRouteTable} with each route's API description (PUBLISH_API) attached. */
export function publishRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(publishRouteTable<D>(), PUBLISH_API);
}
