import { type CoreDeps, describeRoutes, type Route, type RouteContext, withParams } from '@hub/core-index';
import { HF_API } from './api.js';
import { repoNotFound } from './errors.js';
import { listModels, modelInfo } from './models.js';
import { resolve } from './resolve.js';
import { pathsInfo, refs, tree } from './tree.js';

/** API routes are cached 60 s (spec: Limits, Caching); resolve redirects never. */
const API_CACHE = 60;

/**
 * The model-host dialect: what huggingface_hub, @huggingface/hub, transformers.js and llama.cpp call
 * when their endpoint points at the hub. Every route is a read (no token, CORS open).
 */
function hfRouteTable<D extends CoreDeps>(): Route<D>[] {
  // Handlers only need CoreDeps; a wider D is fine.
  const h = (fn: (ctx: RouteContext<CoreDeps>) => ReturnType<Route<CoreDeps>['handler']>) => fn as Route<D>['handler'];
  const api = (path: string, summary: string, handler: Route<D>['handler']): Route<D> => ({
    method: 'GET',
    path,
    rules: 'read',
    group: 'hf',
    errors: 'hub',
    cache: API_CACHE,
    // The index alone decides these answers (with the URL and the headers read): kept whole until the next index.
    reuse: 'index',
    summary,
    handler,
  });
  const download = (path: string, summary: string): Route<D> => ({
    method: 'GET',
    path,
    rules: 'read',
    group: 'hf',
    errors: 'hub',
    cache: 'no-store',
    // The index and the source health decide the redirect: kept whole until either changes.
    reuse: 'index+health',
    summary,
    // the serving policy sees the file (SHA256SUMS and other hub-made files pass by path; the list leaves refused files out)
    subject: (p) => ({ id: `${p.owner}/${p.name}`, path: p.path ?? '' }),
    handler: h(resolve),
  });
  return [
    api('/api/models', 'Search the index: an array of ModelRow, Link rel="next" pages', h(listModels)),
    api(
      '/api/models/:owner/:name',
      'ModelInfo at the indexed revision',
      h((ctx) => modelInfo(ctx, undefined)),
    ),
    api(
      '/api/models/:owner/:name/revision/*rev',
      'ModelInfo at main, HEAD or the indexed commit',
      h((ctx) => modelInfo(ctx, ctx.params.rev ?? '')),
    ),
    api('/api/models/:owner/:name/tree/:rev', 'TreeEntry array of the revision (oid = SHA-256)', h(tree)),
    api('/api/models/:owner/:name/tree/:rev/*path', 'TreeEntry array of one folder', h(tree)),
    api('/api/models/:owner/:name/refs', 'Refs: the one branch main at the indexed commit', h(refs)),
    {
      method: 'POST',
      path: '/api/models/:owner/:name/paths-info/*rev',
      rules: 'read',
      group: 'hf',
      errors: 'hub',
      summary: 'TreeEntry for each named path (JSON or form body)',
      handler: h(pathsInfo),
    },
    // One-segment ids (`gpt2`) are not in an index of `owner/name` models. An id sent with its slash encoded
    // (`demo%2Ftiny-bert`, as some clients quote a repo id) arrives here decoded and is that model.
    api(
      '/api/models/:owner',
      'RepoNotFound for one-segment ids; owner%2Fname is the model',
      h((ctx) => {
        const id = ctx.params.owner ?? '';
        const slash = id.indexOf('/');
        if (slash > 0 && slash === id.lastIndexOf('/') && slash < id.length - 1) {
          return modelInfo(withParams(ctx, { owner: id.slice(0, slash), name: id.slice(slash + 1) }), undefined);
        }
        return repoNotFound(ctx.deps, id);
      }),
    ),
    download('/:owner/:name/resolve/:rev/*path', '302 to a live source, with the SHA-256 the bytes must have'),
    download('/:owner/:name/raw/:rev/*path', '302 like resolve (huggingface.js fileExists)'),
    download('/via/:token/:owner/:name/resolve/:rev/*path', '302 to the named source when it holds the file and is live'),
    download('/via/:token/:owner/:name/raw/:rev/*path', '302 like resolve, named source first'),
  ];
}

/** {@link hfRouteTable} with each route's API description (HF_API) attached. */
export function hfRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(hfRouteTable<D>(), HF_API);
}
