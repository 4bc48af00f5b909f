import {
  type CoreDeps,
  describeRoutes,
  type Handler,
  type HubResponse,
  isOllama,
  json,
  ollamaRedirectRules,
  parseRange,
  type Route,
  type RouteContext,
  recordMissing,
} from '@hub/core-index';
import { OCI_API, OCI_WRITE } from './api.js';
import { archiveAnswer } from './archive.js';
import {
  blobUnknown,
  digestInvalid,
  manifestUnknown,
  nameInvalid,
  nameUnknown,
  ociError,
  rangeInvalid,
  unavailable,
  unsupported,
} from './errors.js';
import { type Prepared, type Repository, repository, type Shape, type ShapeSet } from './manifests.js';
import { API_VERSION, API_VERSION_HEADER, MODELPACK_ARTIFACT, OCI_MANIFEST } from './media-types.js';
import { findModel, invalidName } from './names.js';
import { paginate, paginateCatalog } from './pagination.js';
import { registryRepositories } from './repositories.js';

const DIGEST = /^sha256:[0-9a-fA-F]{64}$/;
const ANY_DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:/;

/** Every /v2 answer carries `Docker-Distribution-API-Version`, errors included. */
function v2<D>(handler: Handler<D>): Handler<D> {
  return async (ctx) => {
    const res = await handler(ctx);
    res.headers[API_VERSION_HEADER] = API_VERSION;
    return res;
  };
}

/**
 * The manifest shape a client asked for: the OCI image manifest when `Accept` lists it (skopeo,
 * oras, containerd), else the Docker v2 / Ollama shape (Ollama asks only for Docker v2; llama.cpp
 * sends `application/json`; no `Accept` at all gets Docker v2 too).
 */
export function wantsOci(accept: string | null): boolean {
  if (!accept) return false;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';');
    if (type?.trim().toLowerCase() !== OCI_MANIFEST) continue;
    const q = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    if (q && Number(q.slice(2)) === 0) return false;
    return true;
  }
  return false;
}

/** Explicit shape tags: `{tag}-modelpack` and `{tag}-dmr`, for clients whose requests we cannot tell apart. */
export const SHAPE_SUFFIXES: Record<string, Shape> = { modelpack: 'modelpack', dmr: 'dockerai' };

/**
 * The shape one request gets on a plain tag, from what each client sends (docs/decisions/dialects.md,
 * "OCI negotiation"): Ollama's UA or a Docker-v2-only Accept gets Docker v2 with Ollama layers;
 * Docker Model Runner (UA `model-distribution` / `docker-model-cli`) gets its own v0.2 shape where the
 * model is GGUF, else ModelPack; modctl and KitOps (UA) or an Accept naming the ModelPack artifact
 * type get ModelPack; other OCI clients (skopeo, containerd, oras) get the OCI image manifest.
 */
export function negotiate(accept: string | null, userAgent: string | null, shapes: ShapeSet): Prepared {
  const ua = (userAgent ?? '').toLowerCase();
  if (ua.startsWith('ollama/')) return shapes.docker;
  if (ua.includes('model-distribution') || ua.includes('docker-model')) return shapes.dockerai ?? shapes.modelpack;
  if (ua.includes('modctl') || ua.startsWith('kitops') || ua.startsWith('kit/')) return shapes.modelpack;
  if (accept?.toLowerCase().includes(MODELPACK_ARTIFACT)) return shapes.modelpack;
  return wantsOci(accept) ? shapes.oci : shapes.docker;
}

interface Found {
  repo: Repository;
  /** the repository name as asked, lowercase */
  name: string;
}

async function findRepository<D extends CoreDeps>(ctx: RouteContext<D>): Promise<Found | HubResponse> {
  const owner = ctx.params.owner ?? '';
  const name = ctx.params.name ?? '';
  const why = invalidName(owner, name);
  if (why) return nameInvalid(`${owner}/${name}`, why);
  const index = ctx.deps.index();
  const model = await findModel(index, owner, name);
  if (!model) {
    recordMissing(ctx.deps, `${owner}/${name}`);
    return nameUnknown(`${owner}/${name}`.toLowerCase());
  }
  return { repo: await repository(index, model), name: `${owner}/${name}`.toLowerCase() };
}

function sendManifest(m: Prepared): HubResponse {
  return {
    status: 200,
    headers: {
      'content-type': m.mediaType,
      'docker-content-digest': m.digest,
      etag: `"${m.digest}"`,
      vary: 'Accept, User-Agent',
    },
    body: m.bytes,
  };
}

const manifestHandler: Handler<CoreDeps> = async (ctx) => {
  const archived = await archiveAnswer(ctx, 'manifest');
  if (archived) return archived;
  const found = await findRepository(ctx);
  if (!('repo' in found)) return found;
  const { repo, name } = found;
  const reference = ctx.params.reference ?? '';
  if (ANY_DIGEST.test(reference)) {
    if (!DIGEST.test(reference)) return digestInvalid(reference);
    const m = repo.manifestsByDigest.get(reference.toLowerCase());
    return m ? sendManifest(m) : manifestUnknown(name, reference, repo.tags.list);
  }
  let target = repo.tags.lookup(reference);
  let forced: Shape | undefined;
  const suffixed = /^(.+)-(modelpack|dmr)$/i.exec(reference);
  if (!target && suffixed?.[1] && suffixed[2]) {
    target = repo.tags.lookup(suffixed[1]);
    forced = SHAPE_SUFFIXES[suffixed[2].toLowerCase()];
  }
  if (!target) {
    const extra = repo.tags.gguf
      ? ''
      : 'This model has no GGUF files, so it has no quantisation tags: its only manifest is `latest`, an artifact of every file.';
    return manifestUnknown(name, reference, repo.tags.list, extra);
  }
  const shapes = repo.manifests.get(target);
  if (!shapes) return manifestUnknown(name, reference, repo.tags.list);
  if (forced) {
    const m = shapes[forced];
    if (!m)
      return manifestUnknown(name, reference, repo.tags.list, 'Docker Model Runner manifests exist for GGUF tags only; use `-modelpack`.');
    return sendManifest(m);
  }
  return sendManifest(negotiate(ctx.req.headers.get('accept'), ctx.req.headers.get('user-agent'), shapes));
};

const blobHandler: Handler<CoreDeps> = async (ctx) => {
  const archived = await archiveAnswer(ctx, 'blob');
  if (archived) return archived;
  const found = await findRepository(ctx);
  if (!('repo' in found)) return found;
  const { repo, name } = found;
  const raw = ctx.params.digest ?? '';
  if (!DIGEST.test(raw)) return digestInvalid(raw);
  const digest = raw.toLowerCase();
  const head = ctx.req.method.toUpperCase() === 'HEAD';

  const file = repo.files.get(digest);
  if (file) {
    const common = { 'docker-content-digest': digest, etag: `"${file.sha256}"` };
    const model = repo.model;
    const ollama = isOllama(ctx.req.headers.get('user-agent'));
    const chosen = ctx.deps.health.choose({
      id: model.id,
      revision: model.revision,
      path: file.path,
      sha256: file.sha256,
      sources: model.sources,
      via: undefined,
      rules: ollama ? ollamaRedirectRules(ctx.origin) : undefined,
      hubOrigin: ctx.origin,
      otherHostName: ollama,
    });
    // HEAD answers as GET does: a blob no live source serves is 503 to both (an air-gapped hub without its bytes).
    if (!chosen.ok)
      return unavailable(`${model.id}/${file.path}`, chosen.holders, ctx.deps.health.retryAfterSeconds(), chosen.lacking, chosen.plainHttp);
    // HEAD is answered here with the exact size, never redirected (Ollama reads Content-Length).
    if (head) {
      return {
        status: 200,
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.size), ...common },
        body: null,
      };
    }
    // 307 (not 302): Ollama accepts only 307 or 200 here (protocols.md 4.2).
    return {
      status: 307,
      headers: { location: chosen.choice.url, 'x-hub-source': chosen.choice.source, vary: 'User-Agent', ...common },
      body: null,
    };
  }

  const made = repo.hubBlobs.get(digest);
  if (made) {
    // No live source holds hub-made blobs: 200 with the bytes, and a Location to this same URL,
    // which Ollama resolves as its "direct URL" for ranged part GETs.
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'docker-content-digest': digest,
      etag: `"${digest}"`,
      'accept-ranges': 'bytes',
      location: `${ctx.origin}${ctx.path}`,
    };
    const size = made.bytes.byteLength;
    const range = parseRange(ctx.req.headers.get('range'), size);
    if (range === 'unsatisfiable') return rangeInvalid(size);
    if (range) {
      headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
      return { status: 206, headers, body: made.bytes.subarray(range.start, range.end + 1) };
    }
    return { status: 200, headers, body: made.bytes };
  }
  return blobUnknown(name, digest);
};

const tagsHandler: Handler<CoreDeps> = async (ctx) => {
  const archived = await archiveAnswer(ctx, 'tags');
  if (archived) return archived;
  const found = await findRepository(ctx);
  if (!('repo' in found)) return found;
  const p = paginate(ctx, found.repo.tags.list, ctx.path);
  if (!('page' in p)) return p;
  return json(200, { name: found.name, tags: p.page }, p.headers);
};

/** Paths under /v2/ that no other route claims: names of other than two parts, odd tails. */
const fallbackHandler: Handler<CoreDeps> = (ctx) => {
  const parts = (ctx.params.rest ?? '').split('/');
  const op = parts.findIndex((p, i) => i > 0 && (p === 'manifests' || p === 'blobs' || p === 'tags'));
  const name = parts.slice(0, op === -1 ? parts.length : op).join('/');
  if (op !== 2) {
    return ociError(
      404,
      'NAME_UNKNOWN',
      `No repository ${JSON.stringify(name.slice(0, 200))}: repositories here are {owner}/{name}, two parts, as /v2/{owner}/{name}/manifests/{tag}. See /v2/_catalog.`,
    );
  }
  if (parts[op] === 'manifests') return manifestUnknown(name.toLowerCase(), parts.slice(op + 1).join('/'), []);
  if (parts[op] === 'blobs') return blobUnknown(name.toLowerCase(), parts.slice(op + 1).join('/'));
  return ociError(404, 'NAME_UNKNOWN', `No registry route at ${ctx.path.slice(0, 200)}; tags are listed at /v2/${name}/tags/list.`);
};

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const PATHS = [
  '/v2',
  '/v2/',
  '/v2/_catalog',
  '/v2/:owner/:name/tags/list',
  '/v2/:owner/:name/manifests/:reference',
  '/v2/:owner/:name/blobs/:digest',
  '/v2/*rest',
];

/** The OCI distribution dialect (pull only) over today's index. */
function ociRouteTable<D extends CoreDeps>(): Route<D>[] {
  const base = { rules: 'read' as const, errors: 'oci' as const };
  const as = (h: Handler<CoreDeps>) => v2(h as Handler<D>);
  // 200 with a Basic challenge: pulls stay anonymous, and skopeo (containers/image) sends --dest-creds on a bucket
  // push only when the API check named a challenge (design 9.2).
  const root: Handler<D> = () => json(200, {}, { 'www-authenticate': 'Basic realm="hub"' });
  const reads: Route<D>[] = [
    { ...base, method: 'GET', path: '/v2/', cache: 60, summary: 'OCI distribution API check', handler: v2(root) },
    { ...base, method: 'GET', path: '/v2', cache: 60, summary: 'OCI distribution API check', handler: v2(root) },
    {
      ...base,
      method: 'GET',
      path: '/v2/_catalog',
      cache: 60,
      summary: 'Every repository (OciCatalog), with n/last pagination',
      handler: v2(async (ctx) => {
        const p = await paginateCatalog(ctx, await registryRepositories(ctx.deps), ctx.path);
        if (!('page' in p)) return p;
        return json(200, { repositories: p.page }, p.headers);
      }),
    },
    {
      ...base,
      method: 'GET',
      path: '/v2/:owner/:name/tags/list',
      cache: 60,
      reuse: 'index',
      summary: 'Tags of one repository (OciTagList): quantisations, GGUF file names and latest',
      handler: as(tagsHandler),
    },
    {
      ...base,
      method: 'GET',
      path: '/v2/:owner/:name/manifests/:reference',
      cache: 60,
      // Manifests are prepared once per index (the archive repository's too): kept whole until the next index.
      reuse: 'index',
      summary: 'A manifest by tag or digest; Docker v2 (Ollama) or OCI image shape by Accept',
      // the serving policy sees the model as a whole (a refused layer is refused at its blob)
      subject: (p) => ({ id: `${p.owner}/${p.name}` }),
      handler: as(manifestHandler),
    },
    {
      ...base,
      method: 'GET',
      path: '/v2/:owner/:name/blobs/:digest',
      cache: 'no-store',
      // HEAD answers from the index; a weight layer's redirect from the index and the source health.
      reuse: 'index+health',
      summary: 'A blob: weight layers redirect (307) to a live source; hub-made blobs are served',
      subject: (p) => ({ id: `${p.owner}/${p.name}`, sha256: /^sha256:([0-9a-f]{64})$/i.exec(p.digest ?? '')?.[1] ?? '' }),
      handler: as(blobHandler),
    },
    { ...base, method: 'GET', path: '/v2/*rest', summary: 'Unknown registry paths', handler: as(fallbackHandler) },
  ];
  // Only the hub publishes: writes need the registry token (the hub answers 401 without it), then 405.
  const writes: Route<D>[] = PATHS.flatMap((path) =>
    WRITE_METHODS.map(
      (method): Route<D> => ({
        method,
        path,
        rules: 'registry-write',
        errors: 'oci',
        summary: 'Writes are not supported: only the hub publishes',
        handler: v2((ctx) => unsupported(method, ctx.path)),
      }),
    ),
  );
  return [...reads, ...writes];
}

/** {@link ociRouteTable} with each route's API description (OCI_API) attached. */
export function ociRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(ociRouteTable<D>(), OCI_API).map((r) =>
    r.api || r.rules !== 'registry-write' ? r : { ...r, api: { responses: OCI_WRITE } },
  );
}
