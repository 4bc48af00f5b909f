import {
  type CoreDeps,
  describeRoutes,
  type Handler,
  type HubResponse,
  json,
  type ObjectStore,
  parseRange,
  type Route,
  type RouteContext,
  readBody,
  sha256Hex,
} from '@hub/core-index';
import { blobUnknown, digestInvalid, manifestUnknown, nameInvalid, ociError, unsupported } from '../errors.js';
import { API_VERSION, API_VERSION_HEADER } from '../media-types.js';
import { BUCKET_API } from './api.js';
import { manifestBlobUnknown, manifestInvalid } from './errors.js';
import { bucketRepository } from './names.js';
import { BucketStore } from './store.js';
import type { UploadSessionStore } from './upload-store.js';
import { BlobUploads } from './uploads.js';

/**
 * Buckets (design 9.2, docs/decisions/spaces-and-buckets.md "Buckets"): named, tagged OCI trees the hub itself holds, in repositories
 * `hub/buckets/{name}`. Reads are anonymous; writes are real OCI pushes (blob uploads: monolithic, chunked PATCH,
 * cross-repository mount; manifest and index PUT) behind the registry token (rules `registry-write`), accepted by
 * node-server only. Every blob's SHA-256 is checked before it is stored; a manifest naming a blob the bucket does not
 * hold is refused.
 */

/** Bytes one bucket may hold in all, unless the settings say otherwise. */
export const DEFAULT_BUCKET_MAX_BYTES = 1024 * 1024 * 1024;
/** The most one upload request (a monolithic PUT or one PATCH chunk) may carry. */
export const BUCKET_REQUEST_MAX_BYTES = 256 * 1024 * 1024;

const BUCKET = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export const MANIFEST_TYPES = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);
const INDEX_TYPES = new Set(['application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json']);

interface BucketState {
  store: BucketStore;
  uploads: BlobUploads;
}

/** What the bucket routes take beyond CoreDeps: where open uploads live (default: this process's memory). */
export interface BucketDeps {
  /** node-server: `DIR/uploads/`, shared by every process on the data folder (apps/node-server/src/bucket-uploads.ts). */
  bucketUploads?: UploadSessionStore;
}

const states = new WeakMap<ObjectStore, BucketState>();

/** The bucket store and the open upload sessions of one object store (one per hub). */
export function bucketState(deps: CoreDeps & BucketDeps): BucketState {
  let s = states.get(deps.objects);
  if (!s) {
    const store = new BucketStore(deps.objects);
    const limit = deps.settings.bucketMaxBytes ?? DEFAULT_BUCKET_MAX_BYTES;
    // What a bucket holds, from the current catalog (read again when another process moved the ref).
    const used = async (repository: string) => (await store.catalog()).catalog.buckets[repository.slice('hub/buckets/'.length)]?.size ?? 0;
    const uploads = new BlobUploads({ limit: () => limit, used, ...(deps.bucketUploads ? { store: deps.bucketUploads } : {}) });
    s = { store, uploads };
    states.set(deps.objects, s);
  }
  return s;
}

function withVersion(res: HubResponse): HubResponse {
  res.headers[API_VERSION_HEADER] = API_VERSION;
  return res;
}

/** The bucket name of the request, or the 400 that says why it is not one. */
function bucketName(ctx: RouteContext<CoreDeps>): { name: string } | { error: HubResponse } {
  const name = ctx.params.bucket ?? '';
  if (!BUCKET.test(name) || name.length > 128)
    return {
      error: nameInvalid(
        `hub/buckets/${name}`,
        'a bucket name is 1-128 of a-z 0-9, with single ".", "_" or "-" between them (the OCI repository name rule).',
      ),
    };
  return { name };
}

function bucketUnknown(name: string, known: string[]): HubResponse {
  const shown = known.slice(0, 20).join(', ') || 'none';
  return ociError(
    404,
    'NAME_UNKNOWN',
    `No bucket named ${name}. Buckets here: ${shown}; they are listed in /v2/_catalog as hub/buckets/{name}.`,
  );
}

const empty = (status: number, headers: Record<string, string>): HubResponse => ({ status, headers, body: null });

function uploadHeaders(name: string, uuid: string, received: number): Record<string, string> {
  return {
    location: `/v2/${bucketRepository(name)}/blobs/uploads/${uuid}`,
    'docker-upload-uuid': uuid,
    range: `0-${Math.max(0, received - 1)}`,
  };
}

function created(name: string, kind: 'blobs' | 'manifests', digest: string): HubResponse {
  return empty(201, { location: `/v2/${bucketRepository(name)}/${kind}/${digest}`, 'docker-content-digest': digest });
}

/** The edge holds no upload sessions (they span requests an isolate may not see): pushes go to node-server. */
function edgeRefusal(ctx: RouteContext<CoreDeps>): HubResponse | undefined {
  if (ctx.deps.settings.role !== 'edge') return undefined;
  return unsupported(ctx.req.method, ctx.path);
}

/** Verified bytes into the object store and the bucket (the upload's session is dropped after). */
async function keepBlob(store: BucketStore, name: string, digest: string, bytes: Uint8Array): Promise<void> {
  await store.store(name, digest, bytes, 'application/octet-stream');
}

const readTags: Handler<CoreDeps> = async (ctx) => {
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const { catalog } = await bucketState(ctx.deps).store.catalog();
  const entry = catalog.buckets[b.name];
  if (!entry) return bucketUnknown(b.name, Object.keys(catalog.buckets));
  return json(200, { name: bucketRepository(b.name), tags: Object.keys(entry.tags).sort() });
};

const readManifest: Handler<CoreDeps> = async (ctx) => {
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const reference = ctx.params.reference ?? '';
  const { store } = bucketState(ctx.deps);
  const { catalog } = await store.catalog();
  const entry = catalog.buckets[b.name];
  if (!entry) return bucketUnknown(b.name, Object.keys(catalog.buckets));
  const byDigest = DIGEST.test(reference);
  const digest = byDigest ? reference : entry.tags[reference];
  const tags = Object.keys(entry.tags).sort();
  if (!digest) return manifestUnknown(bucketRepository(b.name), reference, tags);
  const found = await store.read(b.name, digest);
  if (!found || !MANIFEST_TYPES.has(found.mediaType)) return manifestUnknown(bucketRepository(b.name), reference, tags);
  return {
    status: 200,
    headers: {
      'content-type': found.mediaType,
      'docker-content-digest': digest,
      etag: `"${digest}"`,
      'cache-control': byDigest ? 'public, max-age=31536000, immutable' : 'public, max-age=60',
    },
    body: found.bytes,
  };
};

const readBlob: Handler<CoreDeps> = async (ctx) => {
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const digest = ctx.params.digest ?? '';
  if (!DIGEST.test(digest)) return digestInvalid(digest);
  const found = await bucketState(ctx.deps).store.read(b.name, digest);
  if (!found) return blobUnknown(bucketRepository(b.name), digest);
  const size = found.bytes.byteLength;
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'docker-content-digest': digest,
    etag: `"${digest}"`,
    'accept-ranges': 'bytes',
    'cache-control': 'public, max-age=31536000, immutable',
  };
  const range = parseRange(ctx.req.headers.get('range'), size);
  if (range === 'unsatisfiable')
    return ociError(416, 'BLOB_UNKNOWN', `The range is outside the ${size} bytes of ${digest}.`, { 'content-range': `bytes */${size}` });
  if (range) {
    return {
      status: 206,
      headers: { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${size}` },
      body: found.bytes.subarray(range.start, range.end + 1),
    };
  }
  return { status: 200, headers, body: found.bytes };
};

/** POST …/blobs/uploads/: start a session, or take the blob whole (`?digest=`), or mount it from another bucket. */
const startUpload: Handler<CoreDeps> = async (ctx) => {
  const refused = edgeRefusal(ctx);
  if (refused) return refused;
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const { store, uploads } = bucketState(ctx.deps);
  const repository = bucketRepository(b.name);
  const mount = ctx.query.get('mount');
  const from = ctx.query.get('from');
  if (mount && from) {
    if (!DIGEST.test(mount)) return digestInvalid(mount);
    const fromBucket = from.startsWith('hub/buckets/') ? from.slice('hub/buckets/'.length) : undefined;
    if (fromBucket && (await store.mount(b.name, fromBucket, mount))) return created(b.name, 'blobs', mount);
    // not mountable: a plain upload session, as the distribution spec says
  }
  const digest = ctx.query.get('digest');
  if (digest) {
    const body = await readBody(ctx.req, BUCKET_REQUEST_MAX_BYTES);
    const session = await uploads.start(repository);
    const done = await uploads.finish(repository, session.uuid, digest, body, (bytes) => keepBlob(store, b.name, digest, bytes));
    if (!done.ok) return done.response;
    return created(b.name, 'blobs', digest);
  }
  const session = await uploads.start(repository);
  return empty(202, { ...uploadHeaders(b.name, session.uuid, 0), 'content-length': '0' });
};

const uploadStatus: Handler<CoreDeps> = async (ctx) => {
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const got = await bucketState(ctx.deps).uploads.get(bucketRepository(b.name), ctx.params.uuid ?? '');
  if (!got.ok) return got.response;
  return empty(204, uploadHeaders(b.name, got.value.uuid, got.value.received));
};

const patchUpload: Handler<CoreDeps> = async (ctx) => {
  const refused = edgeRefusal(ctx);
  if (refused) return refused;
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const { uploads } = bucketState(ctx.deps);
  const repository = bucketRepository(b.name);
  const uuid = ctx.params.uuid ?? '';
  const known = await uploads.get(repository, uuid);
  if (!known.ok) return known.response;
  const body = await readBody(ctx.req, BUCKET_REQUEST_MAX_BYTES);
  const got = await uploads.append(repository, uuid, body, ctx.req.headers.get('content-range') ?? undefined);
  if (!got.ok) return got.response;
  return empty(202, uploadHeaders(b.name, uuid, got.value.received));
};

const finishUpload: Handler<CoreDeps> = async (ctx) => {
  const refused = edgeRefusal(ctx);
  if (refused) return refused;
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const { store, uploads } = bucketState(ctx.deps);
  const repository = bucketRepository(b.name);
  const uuid = ctx.params.uuid ?? '';
  const known = await uploads.get(repository, uuid);
  if (!known.ok) return known.response;
  const digest = ctx.query.get('digest') ?? '';
  const body = await readBody(ctx.req, BUCKET_REQUEST_MAX_BYTES);
  const done = await uploads.finish(repository, uuid, digest, body, (bytes) => keepBlob(store, b.name, digest, bytes));
  if (!done.ok) return done.response;
  return created(b.name, 'blobs', digest);
};

const cancelUpload: Handler<CoreDeps> = async (ctx) => {
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const repository = bucketRepository(b.name);
  const uuid = ctx.params.uuid ?? '';
  const { uploads } = bucketState(ctx.deps);
  const done = await uploads.cancel(repository, uuid);
  if (!done.ok) return done.response;
  return empty(204, {});
};

/** The digests a manifest or index names: config and layers, or the manifests of an index. */
export function referencedDigests(mediaType: string, value: unknown): string[] | string {
  if (!value || typeof value !== 'object') return 'the body is not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.schemaVersion !== 2) return 'schemaVersion must be 2';
  const digestsOf = (list: unknown, what: string): string[] | string => {
    if (!Array.isArray(list)) return `${what} must be an array`;
    const out: string[] = [];
    for (const d of list) {
      const digest = (d as { digest?: unknown } | null)?.digest;
      if (typeof digest !== 'string' || !DIGEST.test(digest)) return `every entry of ${what} needs a sha256 digest`;
      out.push(digest);
    }
    return out;
  };
  if (INDEX_TYPES.has(mediaType)) return digestsOf(v.manifests, 'manifests');
  const config = (v.config as { digest?: unknown } | undefined)?.digest;
  if (typeof config !== 'string' || !DIGEST.test(config)) return 'config needs a sha256 digest';
  const layers = digestsOf(v.layers, 'layers');
  return typeof layers === 'string' ? layers : [config, ...layers];
}

const putManifest: Handler<CoreDeps> = async (ctx) => {
  const refused = edgeRefusal(ctx);
  if (refused) return refused;
  const b = bucketName(ctx);
  if ('error' in b) return b.error;
  const reference = ctx.params.reference ?? '';
  const byDigest = DIGEST.test(reference);
  if (!byDigest && !TAG.test(reference))
    return ociError(
      400,
      'TAG_INVALID',
      `${JSON.stringify(reference.slice(0, 200))} is not a tag: 1-128 of letters, digits, "_", "." and "-", not starting with "." or "-".`,
    );
  const body = await readBody(ctx.req, 4 * 1024 * 1024);
  const digest = `sha256:${sha256Hex(body)}`;
  if (byDigest && digest !== reference)
    return ociError(400, 'DIGEST_INVALID', `The manifest hashes to ${digest}, not ${reference}; nothing was stored.`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return manifestInvalid('the body is not JSON.');
  }
  const declared = (ctx.req.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const inner = typeof (value as { mediaType?: unknown })?.mediaType === 'string' ? (value as { mediaType: string }).mediaType : '';
  const mediaType = MANIFEST_TYPES.has(declared) ? declared : inner;
  if (!MANIFEST_TYPES.has(mediaType))
    return manifestInvalid(
      `its media type ${JSON.stringify((declared || inner).slice(0, 100))} is not an OCI or Docker manifest or index.`,
    );
  const refs = referencedDigests(mediaType, value);
  if (typeof refs === 'string') return manifestInvalid(`${refs}.`);
  const { store } = bucketState(ctx.deps);
  const { catalog } = await store.catalog();
  const held = new Set(catalog.buckets[b.name]?.digests ?? []);
  const missing = refs.find((d) => !held.has(d));
  if (missing) return manifestBlobUnknown(missing);
  await store.putManifest(b.name, digest, body, mediaType, byDigest ? undefined : reference);
  return created(b.name, 'manifests', digest);
};

/** The bucket routes (`/v2/hub/buckets/{bucket}/…`): reads for everyone, pushes with the registry token. */
function bucketRouteTable<D extends CoreDeps>(): Route<D>[] {
  const p = '/v2/hub/buckets/:bucket';
  const v = (h: Handler<CoreDeps>) => (async (ctx: RouteContext<D>) => withVersion(await h(ctx as RouteContext<CoreDeps>))) as Handler<D>;
  const read = { rules: 'read' as const, errors: 'oci' as const, group: 'buckets' as const };
  const write = { rules: 'registry-write' as const, errors: 'oci' as const, group: 'buckets' as const };
  return [
    { ...read, method: 'GET', path: `${p}/tags/list`, cache: 60, summary: 'Tags of a bucket (OciTagList)', handler: v(readTags) },
    {
      ...read,
      method: 'GET',
      path: `${p}/manifests/:reference`,
      summary: 'A manifest or index of a bucket, by tag or digest, with the media type it was pushed with',
      handler: v(readManifest),
    },
    {
      ...read,
      method: 'GET',
      path: `${p}/blobs/:digest`,
      summary: 'A blob of a bucket: its bytes (the hub holds them), Range supported',
      handler: v(readBlob),
    },
    {
      ...write,
      method: 'POST',
      path: `${p}/blobs/uploads/`,
      summary: 'Start a blob upload (202), or upload whole with ?digest= (201), or mount with ?mount=&from= (201)',
      handler: v(startUpload),
    },
    { ...write, method: 'GET', path: `${p}/blobs/uploads/:uuid`, summary: 'Where an upload stands (204, Range)', handler: v(uploadStatus) },
    {
      ...write,
      method: 'PATCH',
      path: `${p}/blobs/uploads/:uuid`,
      summary: 'Append a chunk (Content-Range START-END) to an upload (202)',
      handler: v(patchUpload),
    },
    {
      ...write,
      method: 'PUT',
      path: `${p}/blobs/uploads/:uuid`,
      summary: 'Close an upload with ?digest= (201): stored only when the SHA-256 matches',
      handler: v(finishUpload),
    },
    { ...write, method: 'DELETE', path: `${p}/blobs/uploads/:uuid`, summary: 'Cancel an upload (204)', handler: v(cancelUpload) },
    {
      ...write,
      method: 'PUT',
      path: `${p}/manifests/:reference`,
      summary: 'Push a manifest or index by tag or digest (201); every blob it names must be in the bucket',
      handler: v(putManifest),
    },
  ] as Route<D>[];
}

/** {@link bucketRouteTable} with each route's API description (BUCKET_API) attached. */
export function bucketRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(bucketRouteTable<D>(), BUCKET_API);
}
