import {
  type Address,
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HubResponse,
  type Route,
  type RouteContext,
  readSpace,
  readSpaces,
  type SpaceObject,
} from '@hub/core-index';
import { negotiate } from '../discovery/negotiate.js';
import { notFoundPage } from '../site/pages.js';
import { SPACE_API } from './api.js';
import { loadSpacesState, spacePage } from './section.js';

/**
 * The sandbox every space answer carries: scripts, forms and downloads run, but in an opaque origin
 * (no allow-same-origin), so a space can never read the site's storage or send its account cookie.
 */
export const SPACE_CSP = 'sandbox allow-scripts allow-forms allow-downloads';
/** A space by name follows its current root: a short cache. */
export const SPACE_NAME_CACHE = 'public, max-age=60';
/** A sealed root never changes meaning. */
export const SPACE_SEALED_CACHE = 'public, max-age=31536000, immutable';

const SEALED = /^blake3:[0-9a-f]{64}$/;
const LIST_AT_MOST = 20;

/** 404 of a space path: the site's page to a browser (by Accept, issue 27), `{error}` to anything else. */
function notFound(message: string, accept: string | null): HubResponse {
  const res =
    negotiate(accept) === 'html'
      ? {
          status: 404,
          headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } as Record<string, string>,
          body: notFoundPage(message),
        }
      : errorResponse('hub', 404, 'NotFound', message);
  res.headers['content-security-policy'] = SPACE_CSP;
  return res;
}

function names(list: string[]): string {
  if (list.length === 0) return 'none';
  const shown = list.slice(0, LIST_AT_MOST).join(', ');
  return list.length > LIST_AT_MOST ? `${shown} (and ${list.length - LIST_AT_MOST} more)` : shown;
}

/** The space a `/spaces/{name}` segment names: a sealed root, or a name looked up in the current catalog. */
async function resolveSpace(
  deps: CoreDeps,
  name: string,
  accept: string | null,
): Promise<{ space: SpaceObject; root: Address; sealed: boolean } | { error: HubResponse }> {
  if (SEALED.test(name)) {
    const space = await readSpace(deps.objects, name as Address);
    if (!space) return { error: notFound(`No space is sealed under ${name} here. Current spaces: see /spaces?format=json.`, accept) };
    return { space, root: name as Address, sealed: true };
  }
  const { catalog } = await readSpaces(deps.objects);
  const root = catalog.spaces[name] as Address | undefined;
  const space = root ? await readSpace(deps.objects, root) : undefined;
  if (!root || !space) {
    return { error: notFound(`No space named ${name}. Spaces here: ${names(Object.keys(catalog.spaces))}.`, accept) };
  }
  return { space, root, sealed: false };
}

async function answerFile(ctx: RouteContext<CoreDeps>, path: string | undefined): Promise<HubResponse> {
  const accept = ctx.req.headers.get('accept');
  const found = await resolveSpace(ctx.deps, ctx.params.name ?? '', accept);
  if ('error' in found) return found.error;
  const { space, root, sealed } = found;
  const want = path === undefined || path === '' ? space.entry : path;
  const file = space.files.find((f) => f.path === want);
  if (!file) {
    return notFound(`Space ${space.name} (${root}) has no file ${want}. Its files: ${names(space.files.map((f) => f.path))}.`, accept);
  }
  const stored = await ctx.deps.objects.get(file.address as Address);
  if (!stored) return notFound(`Space ${space.name} names ${file.address} for ${want}, but this hub does not hold it.`, accept);
  return {
    status: 200,
    headers: {
      'content-type': file.media_type,
      etag: `"${file.address}"`,
      'cache-control': sealed ? SPACE_SEALED_CACHE : SPACE_NAME_CACHE,
      'content-security-policy': SPACE_CSP,
      'x-space-root': root,
    },
    body: stored.bytes,
  };
}

/** `/spaces/{name}/…` and `/spaces/blake3:{root}/…`: a space's files; `/spaces/{name}` redirects to the slash. */
function spaceRouteTable<D extends CoreDeps>(): Route<D>[] {
  const h = (fn: (ctx: RouteContext<CoreDeps>) => Promise<HubResponse> | HubResponse) => fn as Route<D>['handler'];
  return [
    {
      method: 'GET',
      path: '/spaces/-/:name',
      rules: 'read',
      group: 'spaces',
      errors: 'text',
      cache: 60,
      summary: 'The site page of one space (HTML): its title, root, previous version and every file with its address',
      handler: h(async ({ deps, params }) => {
        const state = await loadSpacesState(deps.objects);
        const entry = state.spaces.find((s) => s.name === params.name);
        if (!entry) {
          return errorResponse(
            'text',
            404,
            'NotFound',
            `No space named ${params.name}. Spaces here: ${names(state.spaces.map((s) => s.name))}.`,
          );
        }
        return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: spacePage(entry) };
      }),
    },
    {
      method: 'GET',
      path: '/spaces/:name',
      rules: 'read',
      group: 'spaces',
      errors: 'hub',
      cache: 300,
      summary: "Redirect (301) to /spaces/{name}/, so the space's relative links resolve inside it",
      handler: h(({ path, search }) => ({ status: 301, headers: { location: `${path}/${search ? `?${search}` : ''}` }, body: null })),
    },
    {
      method: 'GET',
      path: '/spaces/:name/',
      rules: 'read',
      group: 'spaces',
      errors: 'hub',
      summary:
        "A space's entry file: {name} follows its current root (cached 60 s); blake3:{root} is one sealed version (cached forever). Sandboxed by Content-Security-Policy",
      handler: h((ctx) => answerFile(ctx, undefined)),
    },
    {
      method: 'GET',
      path: '/spaces/:name/*path',
      rules: 'read',
      group: 'spaces',
      errors: 'hub',
      summary: 'One file of a space, with its media type and ETag "blake3:…"; the same sandbox and caching as the entry file',
      handler: h((ctx) => answerFile(ctx, ctx.params.path)),
    },
  ];
}

/** {@link spaceRouteTable} with each route's API description (SPACE_API) attached. */
export function spaceRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(spaceRouteTable<D>(), SPACE_API);
}
